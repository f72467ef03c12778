// libFuzzer runs `fuzzSysfsNumber` (LLVMFuzzerTestOneInput) with this process's arguments.
import FuzzSupport

runFuzzer()
