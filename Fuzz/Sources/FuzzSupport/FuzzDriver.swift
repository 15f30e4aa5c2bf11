import CLibFuzzer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The function libFuzzer calls with each input: the bytes and their count; returns 0.
public typealias FuzzTestFunction = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Hands the process to libFuzzer's driver (its command-line flags included), testing each input
/// with `testOneInput`; exits with libFuzzer's status.
///
/// Each target also exports `testOneInput` as `LLVMFuzzerTestOneInput`: when the linker picks
/// libFuzzer's own `main` over SwiftPM's, that `main` finds it by that name.
public func runFuzzer(_ testOneInput: FuzzTestFunction) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}

/// A broken invariant: traps like a crash, so libFuzzer stops and keeps the input as a finding.
public func fuzzFailure(_ message: String) -> Never {
    fatalError("fuzz invariant broken: \(message)")
}
