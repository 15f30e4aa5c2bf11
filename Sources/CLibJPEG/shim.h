/* libjpeg-turbo, declared for CImageKernels (which includes it itself); jpeglib.h needs stdio.h first. */
#include <stddef.h>
#include <stdio.h>
#include <jpeglib.h>
