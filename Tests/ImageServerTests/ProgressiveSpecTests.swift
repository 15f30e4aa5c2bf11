import Foundation
import Testing
import Shashin
import ImageServer

@Suite("Generated images: progressive JPEGs")
struct ProgressiveSpecTests {
    @Test func aProgressiveSpecHasItsOwnPathThatParsesBack() {
        let spec = ImageSpec(format: .jpeg, width: 640, height: 480, seed: 42, progressive: true)
        #expect(spec.isProgressive)
        #expect(spec.path == "/gen/42-640x480-progressive.jpg")
        #expect(ImageSpec(path: spec.path) == spec)
        #expect(ImageSpec(path: "42-640x480-progressive.jpeg") == spec)
        #expect(ImageSpec(path: "/gen/42-640x480.jpg") == ImageSpec(format: .jpeg, width: 640, height: 480, seed: 42))
        #expect(ImageSpec(path: "/gen/42-640x480.jpg") != spec)
        // Only a JPEG is progressive: the flag is dropped from other formats, and their paths
        // with it do not parse.
        #expect(!ImageSpec(format: .png, width: 8, height: 8, seed: 1, progressive: true).isProgressive)
        for bad in ["/gen/1-10x10-progressive.png", "/gen/1-progressive.jpg", "/gen/1-10x10-progressive-progressive.jpg",
                    "/gen/1-10x10progressive.jpg", "/gen/1--progressive.jpg"] {
            #expect(ImageSpec(path: bad) == nil, "\(bad)")
        }
    }

    @Test func aProgressiveSpecIsEncodedAsAProgressiveJPEGOfTheSamePicture() async throws {
        let generator = ImageGenerator()
        let baseline = try await generator.data(for: ImageSpec(format: .jpeg, width: 160, height: 120, seed: 5))
        let progressive = try await generator.data(for: ImageSpec(format: .jpeg, width: 160, height: 120, seed: 5, progressive: true))
        #expect(Self.frameMarker(baseline) == 0xC0)    // SOF0: baseline
        #expect(Self.frameMarker(progressive) == 0xC2) // SOF2: progressive
        let decoder = PlatformImageDecoder()
        let a = try decoder.decode(baseline, context: ImageDecodingContext(format: .jpeg))
        let b = try decoder.decode(progressive, context: ImageDecodingContext(format: .jpeg))
        #expect(a.pixelWidth == 160 && b.pixelWidth == 160 && b.pixelHeight == 120)
    }

    /// The second byte of the first start-of-frame marker (FFC0...FFC2), walking the segments.
    static func frameMarker(_ data: Data) -> UInt8? {
        let bytes = [UInt8](data)
        var i = 2
        while i + 3 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            if (0xC0...0xC2).contains(marker) { return marker }
            i += 2 + Int(bytes[i + 2]) << 8 + Int(bytes[i + 3])
        }
        return nil
    }
}
