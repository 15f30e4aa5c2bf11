// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
@testable import ShashinVips
import Testing

/// JPEGs carrying an RGB ICC profile other than sRGB stay on the direct libjpeg-turbo path and
/// come out in sRGB as the libvips path gives them; profiles the direct path cannot use, however
/// broken, go to libvips and never crash.
@Suite struct DirectJPEGColour {
    static let vips = VipsImageDecoder(decodesJPEGDirectly: false)
    static let profile = DisplayP3Profile.bytes()
    static let photo = DirectJPEGDecoding.photo
    /// The 800×600 photo's samples, tagged as Display P3.
    static let photoInP3 = JPEGFiles.withICCProfile(photo, profile: profile)

    /// The generated profile means what it says: the samples (211, 51, 38) in Display P3 are
    /// sRGB (230, 20, 20) (the same pair as the `colour/` fixtures made by libvips' own P3
    /// profile), through the direct path and through libvips.
    @Test func theGeneratedDisplayP3ProfileGivesKnownSRGBColours() throws {
        let (width, height) = (64, 48)
        let samples: [UInt8] = (0..<width * height).flatMap { _ -> [UInt8] in [211, 51, 38] }
        let data = JPEGFiles.withICCProfile(try JPEGFiles.encode(samples, width: width, height: height, bands: 3, quality: 100), profile: Self.profile)
        for decoded in [try DirectJPEGDecoding.direct(data, .init(format: .jpeg)), try Self.vips.decodeBitmap(data, context: .init(format: .jpeg))] {
            let pixel = decoded.pixel(x: 20, y: 20)
            #expect(abs(Int(pixel.r) - 230) <= 3 && abs(Int(pixel.g) - 20) <= 3 && abs(Int(pixel.b) - 20) <= 3 && pixel.a == 255, "\(pixel)")
        }
    }

    /// Where the DCT alone makes the size, both paths run the same decode and the same lcms
    /// transform: identical pixels. Alpha stays opaque.
    @Test(arguments: [nil, 400, 200, 100] as [Int?])
    func decodesWithoutResamplingAreIdenticalToLibvips(maxPixelSize: Int?) throws {
        let context = ImageDecodingContext(format: .jpeg, thumbnail: maxPixelSize.map { ThumbnailOptions(maxPixelSize: $0) })
        let direct = try DirectJPEGDecoding.direct(Self.photoInP3, context)
        let expected = try Self.vips.decodeBitmap(Self.photoInP3, context: context)
        #expect(direct == expected, "\(PixelDifference(direct, expected))")
        #expect(stride(from: 3, to: direct.pixels.count, by: 4).allSatisfy { direct.pixels[$0] == 255 })
        // The profile was applied: the same samples without it decode to other colours.
        let untagged = try DirectJPEGDecoding.direct(Self.photo, context)
        #expect(PixelDifference(direct, untagged).maximum > 10)
    }

    /// Thumbnails that resample after the DCT shrink. Both paths shrink first and transform
    /// the result, so each tagged thumbnail is exactly the transform of the same path's untagged
    /// one, and the paths differ only by their resamplers (within `DirectJPEGDecoding`'s bound
    /// for untagged JPEGs: mean ≤ 0.5, largest ≤ 10) carried through the transform. The
    /// transform is steeper than 1 in places (dark, saturated colours): measured here mean
    /// 0.09–0.28, largest 11–19; bound: mean ≤ 0.5, largest ≤ 24. The public decoder takes this path.
    @Test(arguments: [256, 150, 97, 611])
    func thumbnailsAreTheTransformOfTheUntaggedOnes(maxPixelSize: Int) throws {
        let context = ImageDecodingContext(format: .jpeg, thumbnail: .init(maxPixelSize: maxPixelSize))
        let direct = try DirectJPEGDecoding.direct(Self.photoInP3, context)
        let expected = try Self.vips.decodeBitmap(Self.photoInP3, context: context)
        let transform = try #require(Self.profile.withUnsafeBytes { SRGBTransforms.shared.transform(for: $0) })
        func transformed(_ bitmap: Bitmap) -> Bitmap {
            var pixels = bitmap.pixels
            pixels.withUnsafeMutableBufferPointer { transform.apply(to: $0.baseAddress!, count: bitmap.width * bitmap.height) }
            return Bitmap(width: bitmap.width, height: bitmap.height, pixels: pixels)
        }
        #expect(direct == transformed(try DirectJPEGDecoding.direct(Self.photo, context)))
        #expect(expected == transformed(try Self.vips.decodeBitmap(Self.photo, context: context)))
        try #require(direct.width == expected.width && direct.height == expected.height)
        let difference = JPEGFiles.difference(direct, expected)
        #expect(difference.mean <= 0.5 && difference.maximum <= 24, "\(maxPixelSize): \(difference)")
        #expect(try VipsImageDecoder().decodeBitmap(Self.photoInP3, context: context) == direct)
    }

    /// A turned Display P3 photo (as phones write them) stays direct too.
    @Test(arguments: [3, 6, 8])
    func exifOrientationAndAProfileTogetherStayDirect(orientation: Int) throws {
        let data = JPEGFiles.withICCProfile(try OrientationDecoding.jpeg(orientation: UInt16(orientation), width: 800, height: 600), profile: Self.profile)
        let full = ImageDecodingContext(format: .jpeg)
        #expect(try DirectJPEGDecoding.direct(data, full) == Self.vips.decodeBitmap(data, context: full))
        let context = ImageDecodingContext(format: .jpeg, thumbnail: .init(maxPixelSize: 256))
        let thumbnail = try DirectJPEGDecoding.direct(data, context)
        #expect(thumbnail.width == (orientation >= 5 ? 192 : 256))
        let difference = JPEGFiles.difference(thumbnail, try Self.vips.decodeBitmap(data, context: context))
        #expect(difference.mean <= 0.5 && difference.maximum <= 24, "\(difference)")
    }

    /// A profile on greyscale data, or on CMYK data, is libvips' to handle.
    @Test func greyscaleAndCMYKWithAProfileAreLeftToLibvips() throws {
        let grey = (0..<60 * 40).map { UInt8(truncatingIfNeeded: $0) }
        let greyData = JPEGFiles.withICCProfile(try JPEGFiles.encode(grey, width: 60, height: 40, bands: 1), profile: Self.profile)
        #expect(try DirectJPEGDecoding.declineReason(greyData)?.contains("greyscale") == true)
        let cmyk = (0..<40 * 30 * 4).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let cmykData = JPEGFiles.withICCProfile(try JPEGFiles.encode(cmyk, width: 40, height: 30, bands: 4),
                                                profile: DisplayP3Profile.bytes(colourSpace: "CMYK"))
        #expect(try DirectJPEGDecoding.declineReason(cmykData)?.contains("4 components") == true)
        for data in [greyData, cmykData] {
            #expect(try VipsImageDecoder().decodeBitmap(data, context: .init(format: .jpeg)) == Self.vips.decodeBitmap(data, context: .init(format: .jpeg)))
        }
    }

    /// Profiles cut short, damaged at random, describing CMYK or grey, or only a header: the
    /// direct path either transforms exactly as libvips does or declines naming the profile,
    /// and the public decoder gives libvips' picture every time (libvips ignores a profile lcms
    /// cannot use). Never a crash, never a different picture.
    @Test func brokenOrForeignProfilesGiveLibvipsPictureOrTheSameTransform() throws {
        let small = try VipsImageEncoder().encodeBitmap(JPEGFiles.photo(width: 48, height: 32), as: .jpeg, quality: 0.9)
        var profiles: [[UInt8]] = [
            DisplayP3Profile.bytes(colourSpace: "CMYK"), DisplayP3Profile.bytes(colourSpace: "GRAY"),
            ICCProfileRecognition.profile(description: "Adobe RGB (1998)"), [], Array(Self.profile.prefix(128)),
        ]
        profiles += stride(from: 1, to: Self.profile.count, by: 37).map { Array(Self.profile.prefix($0)) }
        var random = SplitMix64(seed: 0x1CC)
        for _ in 0..<150 {
            var damaged = Self.profile
            for _ in 0..<Int(random.next() % 4 + 1) {
                damaged[Int(random.next() % UInt64(damaged.count))] = UInt8(truncatingIfNeeded: random.next())
            }
            profiles.append(damaged)
        }
        var counts = (transformed: 0, declined: 0)
        let context = ImageDecodingContext(format: .jpeg)
        for (index, profile) in profiles.enumerated() {
            let data = JPEGFiles.withICCProfile(small, profile: profile)
            let expected = try Self.vips.decodeBitmap(data, context: context)
            if let reason = try DirectJPEGDecoding.declineReason(data, context) {
                counts.declined += 1
                #expect(reason.contains("ICC"), "profile \(index): \(reason)")
            } else {
                counts.transformed += 1
                let direct = try DirectJPEGDecoding.direct(data, context)
                #expect(direct == expected, "profile \(index): \(PixelDifference(direct, expected))")
            }
            #expect(try VipsImageDecoder().decodeBitmap(data, context: context) == expected, "profile \(index)")
        }
        #expect(counts.transformed > 0 && counts.declined > 0, "\(counts)")
    }

    /// One transform per profile, made once and shared; when all places are taken, the profile
    /// used longest ago gives up its place, and its transform still works for whoever holds it.
    @Test func transformsAreKeptPerProfileAndTheLeastRecentlyUsedGoes() throws {
        let transforms = SRGBTransforms(capacity: 2)
        func transform(_ profile: [UInt8]) throws -> SRGBTransform {
            try #require(profile.withUnsafeBytes { transforms.transform(for: $0) })
        }
        let (b, c) = (DisplayP3Profile.bytes(description: "Display P3 (b)"), DisplayP3Profile.bytes(description: "Display P3 (c)"))
        let first = try transform(Self.profile)
        #expect(try transform(Self.profile) === first)
        let firstB = try transform(b)
        #expect(try transform(Self.profile) === first) // used last now: b is the oldest
        _ = try transform(c)                            // takes b's place
        #expect(try transform(Self.profile) === first)
        let secondB = try transform(b)
        #expect(secondB !== firstB)
        // The transform that lost its place still works, and gives what its successor gives.
        var pixels: [UInt8] = [211, 51, 38, 255, 0, 128, 255, 255]
        var again = pixels
        pixels.withUnsafeMutableBufferPointer { firstB.apply(to: $0.baseAddress!, count: 2) }
        again.withUnsafeMutableBufferPointer { secondB.apply(to: $0.baseAddress!, count: 2) }
        #expect(pixels == again && pixels[3] == 255 && pixels[7] == 255)
        #expect(abs(Int(pixels[0]) - 230) <= 2, "\(pixels)")
    }

    /// Many threads decoding tagged JPEGs at once, with one profile shared and others new to
    /// each decode, get the picture one thread gets.
    @Test func concurrentDecodesShareTransformsSafely() throws {
        let context = ImageDecodingContext(format: .jpeg, thumbnail: .init(maxPixelSize: 100))
        let expected = try DirectJPEGDecoding.direct(Self.photoInP3, context)
        let inputs = (0..<16).map { index in
            index % 2 == 0 ? Self.photoInP3
                : JPEGFiles.withICCProfile(Self.photo, profile: DisplayP3Profile.bytes(description: "Display P3 (thread \(index))"))
        }
        let results = Locked<[Int: Bitmap]>([:])
        DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
            if let bitmap = try? DirectJPEGDecoding.direct(inputs[index], context) {
                results.withLock { $0[index] = bitmap }
            }
        }
        let decoded = results.current
        #expect(decoded.count == inputs.count)
        #expect(decoded.values.allSatisfy { $0 == expected })
    }
}
#endif
