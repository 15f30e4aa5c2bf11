/// SHA-256 (FIPS 180-4), for naming disk-cache entries by a hash of their key: CryptoKit is not
/// on Linux, and the core takes no package dependency for one function. Allocation-free apart
/// from the returned digest (and `prefix64` allocates nothing): it runs on every cache lookup.
/// `package`: `shashin-dev soak` checks the disk cache's entries against the server's bytes with it.
package struct SHA256 {
    private typealias State = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    /// The 32-byte digest of `bytes`.
    package static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let state = hash(bytes)
        let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
        var digest = [UInt8](repeating: 0, count: 32)
        for (index, word) in words.enumerated() {
            digest[index * 4] = UInt8(truncatingIfNeeded: word >> 24)
            digest[index * 4 + 1] = UInt8(truncatingIfNeeded: word >> 16)
            digest[index * 4 + 2] = UInt8(truncatingIfNeeded: word >> 8)
            digest[index * 4 + 3] = UInt8(truncatingIfNeeded: word)
        }
        return digest
    }

    /// The first 8 bytes of the digest of the UTF-8 bytes of `string`, big-endian: the disk
    /// cache's row id, without the digest's array.
    static func prefix64(_ string: String) -> UInt64 {
        var string = string
        let state = string.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
        return UInt64(state.0) << 32 | UInt64(state.1)
    }

    /// The final state, whose eight words big-endian are the digest.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> State {
        var state: State =
            (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
                let fullBlocks = bytes.count / 64
                for block in 0..<fullBlocks {
                    compress(&state, UnsafeRawBufferPointer(rebasing: bytes[(block * 64)..<(block * 64 + 64)]), schedule)
                }
                // The rest, a one bit, zeros, and the length in bits (big-endian) fill one or two blocks.
                let rest = bytes.count - fullBlocks * 64
                let tailCount = rest + 9 <= 64 ? 64 : 128
                let tailBytes = UnsafeMutableRawBufferPointer(tail)
                tailBytes.initializeMemory(as: UInt8.self, repeating: 0)
                if rest > 0 { tailBytes.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[(fullBlocks * 64)...])) }
                tailBytes[rest] = 0x80
                let bitLength = UInt64(bytes.count) &* 8
                for index in 0..<8 { tailBytes[tailCount - 1 - index] = UInt8(truncatingIfNeeded: bitLength >> UInt64(index * 8)) }
                for offset in stride(from: 0, to: tailCount, by: 64) {
                    compress(&state, UnsafeRawBufferPointer(rebasing: tailBytes[offset..<(offset + 64)]), schedule)
                }
            }
        }
        return state
    }

    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { digest($0) }
    }

    /// The digest of the UTF-8 bytes of `string`.
    static func digest(_ string: String) -> [UInt8] {
        var string = string
        return string.withUTF8 { digest(UnsafeRawBufferPointer($0)) }
    }

    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    @inline(__always)
    private static func rotateRight(_ value: UInt32, _ count: UInt32) -> UInt32 {
        (value >> count) | (value << (32 - count))
    }

    /// One 64-byte block into `state`; `schedule` is scratch space for 64 words.
    private static func compress(_ state: inout (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32),
                                 _ block: UnsafeRawBufferPointer, _ schedule: UnsafeMutableBufferPointer<UInt32>) {
        for index in 0..<16 {
            let base = index * 4
            schedule[index] = UInt32(block[base]) << 24 | UInt32(block[base + 1]) << 16
                | UInt32(block[base + 2]) << 8 | UInt32(block[base + 3])
        }
        for index in 16..<64 {
            let early = schedule[index - 15], late = schedule[index - 2]
            let sigma0 = rotateRight(early, 7) ^ rotateRight(early, 18) ^ (early >> 3)
            let sigma1 = rotateRight(late, 17) ^ rotateRight(late, 19) ^ (late >> 10)
            schedule[index] = schedule[index - 16] &+ sigma0 &+ schedule[index - 7] &+ sigma1
        }
        var (a, b, c, d, e, f, g, h) = state
        roundConstants.withUnsafeBufferPointer { constants in
            for index in 0..<64 {
                let sum1 = rotateRight(e, 6) ^ rotateRight(e, 11) ^ rotateRight(e, 25)
                let choose = (e & f) ^ (~e & g)
                let temp1 = h &+ sum1 &+ choose &+ constants[index] &+ schedule[index]
                let sum0 = rotateRight(a, 2) ^ rotateRight(a, 13) ^ rotateRight(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let temp2 = sum0 &+ majority
                h = g; g = f; f = e; e = d &+ temp1
                d = c; c = b; b = a; a = temp1 &+ temp2
            }
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h)
    }
}
