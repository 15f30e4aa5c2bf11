/* zlib, for the crafted PNG streams of ShashinVipsTests (CImageKernels includes it itself). */
#include <zlib.h>
