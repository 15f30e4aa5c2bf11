import CVips
import Foundation
import ShashinCore

/// Animated PNG: libvips' PNG loader reads only the default image, so the frames are found here
/// (`APNGStructure`), each frame's region decoded by libvips from a small PNG made of the file's
/// header, the chunks its pixels depend on and the frame's data (so palettes, transparency,
/// 16-bit samples, interlacing and ICC profiles go through the same libpng path as a still
/// PNG), composed on one canvas (`APNGCanvas`) and shrunk to the thumbnail size frame by frame.
extension VipsImageDecoder {
    /// Decodes every frame of `bytes`, an APNG (`APNGStructure.isAnimated`), when the budgets
    /// allow: the frames are counted from the chunk list before any is decoded. Damage after the
    /// first frame keeps the frames before it; damage in the first throws.
    static func decodeAPNG(_ bytes: UnsafeRawBufferPointer, data: Data, context: ImageDecodingContext) throws -> AnimatedDecode {
        // A PNG without a whole IHDR is left to the still path, which says what is wrong.
        guard let canvas = APNGStructure.canvasSize(bytes) else { return .still }
        try context.checkPixelCount(width: canvas.width, height: canvas.height)
        let target = context.thumbnail?.targetSize(width: canvas.width, height: canvas.height) ?? canvas
        try checkTargetSize(target, in: context)
        // More frames than the budgets allow are counted, not laid out: the budgets refuse them.
        // The limit leaves out the shared chunks' work, not known before the walk: it can only
        // lower the limit, and `animationShortfall` counts it.
        // A streamed animation lays out every frame up to `maxStreamedFrames`: layouts are small.
        let framesWithinBudget = context.animationDelivery == .frameSource || context.animationDelivery == .automatic
            ? maxStreamedFrames : context.animationFrameLimit(width: canvas.width, height: canvas.height, target: target)
        let structure = APNGStructure.read(bytes, frameLimit: framesWithinBudget + 1)
        let frameCount = structure.frameCount
        // One frame is a still image: the default image when it is that frame, otherwise the
        // frame (the default image is then not part of the animation a player shows).
        let isOneHiddenFrame = frameCount == 1 && !structure.defaultImageIsFirstFrame && structure.defect == nil
        guard frameCount > 1 || (structure.defect != nil && structure.declaredFrames > 1) || isOneHiddenFrame else { return .still }
        guard frameCount > 0 else {
            throw DecodingFailure(stage: .header, libvipsLines: ["the animation is damaged before its first frame: \(structure.defect ?? "")"])
        }
        if !isOneHiddenFrame {
            switch context.animationPlan(frameCount: frameCount, width: canvas.width, height: canvas.height, target: target,
                                         repeatedWorkPerFrame: structure.repeatedBytesPerFrame) {
            case .firstFrame(let shortfall):
                return .firstFrameOnly(ImageAnimation(format: .png, frameCount: frameCount, data: data,
                                                      loopCount: structure.plays, shortfall: shortfall))
            case .frameSource where structure.frames.count > 1:
                return .animated(try streamedAPNG(data: data, structure: structure, target: target, context: context))
            case .frameSource, .allFrames:
                break
            }
        }
        // Held at once: the frames kept at the target size; the canvas, the copy shown and
        // shrunk, a region saved for `previous`, and one frame's region decoded at up to 16-bit
        // RGBA (each at most the canvas); working rows.
        typealias E = DecodeMemoryEstimate
        let estimate = E(output: E.product(target.width, target.height, 4, frameCount),
                         wholeImage: E.product(canvas.width, canvas.height, 4, 5), rows: E.rows(width: canvas.width))
        let reservation = try context.memoryBudget.reserve(estimate.bytes)
        defer { reservation.release() }

        var composer = APNGCanvas(width: canvas.width, height: canvas.height)
        var frames: [AnimationFrame] = []
        frames.reserveCapacity(structure.frames.count)
        var shortfall: AnimationShortfall?
        for layout in structure.frames {
            let region: Bitmap
            do {
                region = try decodeRegion(of: layout, in: bytes, structure: structure)
            } catch is DecodingFailure where !frames.isEmpty {
                // The frame's data does not decode: damage, after which the frames before it
                // stand. Any other failure (a shrink, the budget) is the decode's and propagates.
                _ = VipsErrorBuffer.take()
                shortfall = .damaged(decodedFrames: frames.count)
                break
            }
            let shown = try composer.draw(region, as: layout) { whole in
                guard whole.width != target.width || whole.height != target.height else { return whole }
                return try during(.thumbnail) {
                    try VipsProcessing.resize(whole, width: target.width, height: target.height, maxPixelCount: context.maxPixelCount,
                                              directShrinkLimit: .max, boxGap: 2)
                }
            }
            frames.append(AnimationFrame(bitmap: shown, duration: layout.duration))
        }
        DecodedFrameCounter.add(frames.count)
        if shortfall == nil, structure.defect != nil { shortfall = .damaged(decodedFrames: frames.count) }
        if isOneHiddenFrame { return .animated(frames[0].bitmap) }
        var image = frames[0].bitmap
        image.animation = ImageAnimation(format: .png, frameCount: max(frameCount, 2), data: data,
                                         frames: frames, loopCount: structure.plays, shortfall: shortfall)
        return .animated(image)
    }

    /// The most frames of an APNG a frame source plays (their layouts are kept, about 100 bytes
    /// each); the frames after them are left out, as damage would leave them.
    static let maxStreamedFrames = 65_536

    /// The first frame of an APNG with an `AnimationFrameSource` that decodes the others on
    /// demand (`APNGFrames`).
    private static func streamedAPNG(data: Data, structure: APNGStructure, target: (width: Int, height: Int),
                                     context: ImageDecodingContext) throws -> Bitmap {
        typealias E = DecodeMemoryEstimate
        let pinned = PinnedData(copying: data)
        // Held while one frame is made: the canvas, the copy shown and shrunk, a region saved for
        // `previous`, one frame's region at up to 16-bit RGBA, the frame at the target size.
        let frames = APNGFrames(pinned: pinned, structure: structure, target: target, maxPixelCount: context.maxPixelCount,
                                memoryBudget: context.memoryBudget,
                                estimate: E(output: E.product(target.width, target.height, 4),
                                            wholeImage: E.product(structure.width, structure.height, 4, 5),
                                            rows: E.rows(width: structure.width)))
        var first = try frames.makeReader().frame(at: 0)
        let source = AnimationFrameSource(durations: structure.frames.map(\.duration), loopCount: structure.plays, decoder: frames)
        first.animation = ImageAnimation(format: .png, frameCount: max(structure.frameCount, 2), data: pinned.data,
                                         loopCount: structure.plays, frameSource: source)
        return first
    }

    /// One frame's region in RGBA8 sRGB, decoded by libvips from a PNG holding only that frame.
    static func decodeRegion(of layout: APNGStructure.Frame, in bytes: UnsafeRawBufferPointer,
                                     structure: APNGStructure) throws -> Bitmap {
        let png = structure.standalonePNG(for: layout, in: bytes)
        return try png.withUnsafeBytes { png in
            try VipsImageScope.with { scope in
                let image = try during(.pixels) {
                    try scope.make { shashin_pngload_buffer(png.baseAddress, png.count, $0, VIPS_ACCESS_SEQUENTIAL, VIPS_FAIL_ON_TRUNCATED) }
                }
                let rgba = try during(.conversion) { try scope.uprightRGBA8(image) }
                let region = try during(.pixels) { try scope.bitmap(from: rgba) }
                guard region.width == layout.width, region.height == layout.height else {
                    throw DecodingFailure(stage: .pixels, libvipsLines: ["a \(layout.width)×\(layout.height) frame decoded as \(region.width)×\(region.height)"])
                }
                return region
            }
        }
    }
}

extension APNGStructure {
    /// The canvas size from the IHDR that must open any PNG, or `nil` when it is not there whole.
    static func canvasSize(_ bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        guard bytes.count >= 33, uint32(bytes, 8) == 13, uint32(bytes, 12) == Chunk.IHDR else { return nil }
        return (Int(uint32(bytes, 16)), Int(uint32(bytes, 20)))
    }

    /// A PNG of `frame` alone: an IHDR of the frame's size with the file's pixel format, the
    /// chunks every frame depends on (`sharedChunks`), the frame's data as IDATs, and IEND.
    func standalonePNG(for frame: Frame, in bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png.reserveCapacity(64 + sharedChunks.reduce(0) { $0 + $1.count } + frame.data.reduce(0) { $0 + $1.count + 12 })
        func append(_ type: UInt32, _ data: some Collection<UInt8>) {
            let start = png.count
            png += Self.bigEndian(UInt32(data.count)) + Self.bigEndian(type)
            png += data
            png += png.withUnsafeBytes { Self.bigEndian(Self.crc($0, from: start + 4, count: data.count + 4)) }
        }
        append(Chunk.IHDR, Self.bigEndian(UInt32(frame.width)) + Self.bigEndian(UInt32(frame.height)) + pixelFormat)
        for chunk in sharedChunks { png += bytes[chunk] }
        for range in frame.data { append(Chunk.IDAT, bytes[range]) }
        append(Chunk.IEND, [])
        return png
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32($0))) } }
}
