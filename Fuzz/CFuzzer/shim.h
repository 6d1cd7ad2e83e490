/* libFuzzer's driver, for a program that has its own main (SwiftPM names
 * an executable's entry point itself, so libFuzzer's main cannot be used).
 * Only declared: it links only in `make fuzz`'s -sanitize=fuzzer build. */
#ifndef OHK_CFUZZER_SHIM_H
#define OHK_CFUZZER_SHIM_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
