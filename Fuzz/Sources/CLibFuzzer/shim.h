// libFuzzer's interface (compiler-rt FuzzerInterface.h, LLVM 12 and later), linked in by
// `-sanitize=fuzzer`. SwiftPM gives every executable on Linux a `main` of its own
// (`--defsym main=MODULE_main`), which wins over libFuzzer's, so each target's main.swift
// starts the driver itself on the target's test, the `@_cdecl` function below.
#ifndef SHIMMERD_CLIBFUZZER_SHIM_H
#define SHIMMERD_CLIBFUZZER_SHIM_H
#include <stddef.h>
#include <stdint.h>

/// The fuzz target: one per executable, written in Swift with @_cdecl.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/// Parses the libFuzzer flags in argv and fuzzes user_callback; returns the exit status.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*user_callback)(const uint8_t *data, size_t size));

#endif
