// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
@testable import ShashinVips
import Testing

/// sRGB profiles are recognised from their description and skip the (costly, no-op) transform;
/// every other profile is transformed.
@Suite struct ICCProfileRecognition {
    /// A minimal profile: a 128-byte header naming `colourSpace`, one `desc` tag.
    static func profile(colourSpace: String = "RGB ", version4: Bool = false, description: String) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 128)
        header.replaceSubrange(16..<20, with: Array(colourSpace.utf8))
        let tagOffset = 128 + 4 + 12
        var tag: [UInt8]
        if version4 {
            let text = description.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            tag = Array("mluc".utf8) + [0, 0, 0, 0] + be(1) + be(12) + Array("enUS".utf8) + be(UInt32(text.count)) + be(28) + text
        } else {
            let text = Array(description.utf8) + [0]
            tag = Array("desc".utf8) + [0, 0, 0, 0] + be(UInt32(text.count)) + text
        }
        return header + be(1) + Array("desc".utf8) + be(UInt32(tagOffset)) + be(UInt32(tag.count)) + tag
    }

    static func be(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32($0))) } }

    static func describesSRGB(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { ICCProfile($0).describesSRGB }
    }

    @Test(arguments: ["sRGB", "sRGB IEC61966-2.1", "sRGB built-in", "Artifex Software sRGB ICC Profile"], [false, true])
    func sRGBProfilesAreRecognisedInBothVersions(description: String, version4: Bool) {
        #expect(Self.describesSRGB(Self.profile(version4: version4, description: description)))
    }

    @Test(arguments: ["Display P3", "sP3C", "esRGB", "Artifex Software scRGB ICCProfile", "Linear sRGB", "Adobe RGB (1998)"])
    func otherProfilesAreTransformed(description: String) {
        #expect(!Self.describesSRGB(Self.profile(description: description)))
        #expect(!Self.describesSRGB(Self.profile(version4: true, description: description)))
    }

    @Test func aGreyProfileIsNeverTakenForSRGB() {
        #expect(!Self.describesSRGB(Self.profile(colourSpace: "GRAY", description: "sRGB")))
    }

    @Test func truncatedOrGarbageProfilesAreNotRecognised() {
        let whole = Self.profile(description: "sRGB IEC61966-2.1")
        for length in stride(from: 0, to: whole.count, by: 7) {
            _ = Self.describesSRGB(Array(whole.prefix(length)))
        }
        var random = SplitMix64(seed: 7)
        for _ in 0..<200 {
            var damaged = whole
            for _ in 0..<4 { damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next()) }
            _ = Self.describesSRGB(damaged)
        }
        #expect(!Self.describesSRGB(Array(whole.prefix(140))))
    }
}
#endif
