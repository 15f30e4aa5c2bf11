/* Little CMS, declared for CImageKernels (which includes it itself). */
#include <lcms2.h>
