// libFuzzer runs `fuzzScanDecoder` (LLVMFuzzerTestOneInput) with this process's arguments.
import FuzzSupport

runFuzzer()
