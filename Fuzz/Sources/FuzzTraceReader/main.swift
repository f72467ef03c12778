// libFuzzer runs `fuzzTraceReader` (LLVMFuzzerTestOneInput) with this process's arguments.
import FuzzSupport

runFuzzer()
