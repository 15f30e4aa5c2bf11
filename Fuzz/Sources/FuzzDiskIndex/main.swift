import Foundation
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    DiskIndexFuzzer.run(Data(UnsafeRawBufferPointer(start: bytes, count: count)))
    return 0
}

if let folder = ProcessInfo.processInfo.environment["SHASHIN_FUZZ_MAKE_SEEDS"] {
    DiskIndexFuzzer.makeSeeds(in: folder)
    exit(0)
}
// Loaded before the first input, so LeakSanitizer does not count them against it.
_ = (DiskIndexFuzzer.entryFiles.count, DiskIndexFuzzer.root)
// Each input's folder goes when it ends; the process's own folder when libFuzzer exits.
atexit { _ = rmdir(DiskIndexFuzzer.root) }
runFuzzer(testOneInput)
