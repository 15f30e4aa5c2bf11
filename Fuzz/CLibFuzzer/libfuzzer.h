#ifndef SHASHIN_LIBFUZZER_H
#define SHASHIN_LIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, linked in by `-sanitize=fuzzer`. SwiftPM gives an executable target its own
// `main`, so the fuzz targets start libFuzzer from there rather than through libFuzzer's `main`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test_one_input)(const uint8_t *data, size_t size));

#endif
