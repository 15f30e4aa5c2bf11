import Foundation

/// SplitMix64: a pseudo-random generator whose output depends only on its seed, for the tools'
/// reproducible keys, sizes, request plans and entry bytes.
///
/// `DiskCacheCrashTests` and `DiskCacheTwoProcessTests` repeat ``bytes(count:seed:)`` to check what
/// `shashin-dev cache-writer` stored (a test cannot import an executable's module), so its output
/// stays as it is.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    /// `count` bytes from a generator seeded with `seed`: each word's bytes, lowest first.
    package static func bytes(count: Int, seed: UInt64) -> Data {
        var generator = SplitMix64(seed: seed)
        var data = Data(count: count)
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            var index = 0
            while index < count {
                var word = generator.next()
                for _ in 0..<min(8, count - index) {
                    buffer[index] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    index += 1
                }
            }
        }
        return data
    }
}
