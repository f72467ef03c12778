// libFuzzer runs `fuzzMountMatrix` (LLVMFuzzerTestOneInput) with this process's arguments.
import FuzzSupport

runFuzzer()
