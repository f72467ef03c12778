// libFuzzer runs `fuzzShmHeader` (LLVMFuzzerTestOneInput) with this process's arguments.
import FuzzSupport

runFuzzer()
