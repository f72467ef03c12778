// libFuzzer runs `fuzzConfiguration` (LLVMFuzzerTestOneInput) with this process's arguments.
import FuzzSupport

runFuzzer()
