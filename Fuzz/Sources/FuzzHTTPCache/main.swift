import Foundation
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    HTTPCacheFuzzer.run(Data(UnsafeRawBufferPointer(start: bytes, count: count)))
    return 0
}

runFuzzer(testOneInput)
