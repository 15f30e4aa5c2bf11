import Foundation

/// An animated GIF, WebP or PNG (APNG): its frames decoded at the delivered size, how long each shows, how
/// often it repeats, and the original bytes.
///
/// The pipeline delivers the first frame as the image and this on `ImageResponse.animation`
/// (and `Bitmap.animation` / `PlatformImage.animation`, which travel with the image through the
/// memory cache). `frames[0]` is the image itself. Processors run on every frame, so a resized,
/// cropped or rounded animation keeps its frames; `data` stays the file that was decoded.
///
/// When decoding every frame would pass the decoder's budgets (see
/// `ImageDecodingContext.maxAnimationByteCount`), only the first frame is decoded: `frames` is
/// then empty and `shortfall` says which budget it passed. A file damaged after its first frame
/// gives the frames before the damage, with `shortfall` `.damaged`.
///
/// ```swift
/// let response = try await pipeline.response(for: request)
/// if let animation = response.animation, !animation.isFirstFrameOnly {
///     for frame in animation.frames { show(frame.bitmap, for: frame.duration) }
/// }
/// ```
public struct ImageAnimation: Sendable, Hashable, CustomStringConvertible {
    /// The animation's format (`.gif`, `.webp`, or `.png` for an APNG).
    public let format: ImageFormat
    /// Frames in the file; always at least 2 (a single frame is a still image).
    public let frameCount: Int
    /// The encoded bytes that were decoded (the original file, or a processed result read back
    /// from the disk cache).
    public let data: Data
    /// The decoded frames in display order, each the whole canvas with earlier frames composed
    /// under it as the file's disposal and blending say; `frames[0]` is the delivered image.
    /// Empty when `isFirstFrameOnly`; fewer than `frameCount` when the file is `.damaged`.
    public var frames: [AnimationFrame]
    /// How many times the animation plays; `0` means forever.
    public var loopCount: Int
    /// Why `frames` does not hold all `frameCount` frames; `nil` when it does.
    public var shortfall: AnimationShortfall?

    /// Creates an animation.
    public init(format: ImageFormat, frameCount: Int, data: Data, frames: [AnimationFrame] = [], loopCount: Int = 0,
                shortfall: AnimationShortfall? = nil) {
        self.format = format
        self.frameCount = frameCount
        self.data = data
        self.frames = frames
        self.loopCount = loopCount
        self.shortfall = shortfall
    }

    /// Whether only the first frame was decoded because the whole animation passed a budget:
    /// a view shows the image still.
    public var isFirstFrameOnly: Bool {
        switch shortfall {
        case .overPixelBudget?, .overByteBudget?: true
        case .damaged?, nil: false
        }
    }

    /// The bytes the frames after the first hold: `frames[0]` shares the delivered image's pixels.
    public var extraFrameByteCount: Int { frames.dropFirst().reduce(0) { $0 + $1.bitmap.pixels.count } }

    /// The sum of the decoded frames' durations, in seconds.
    public var totalDuration: TimeInterval { frames.reduce(0) { $0 + $1.duration } }

    /// This animation with `transform` applied to every frame (durations, loop count and data
    /// kept): how processors treat animations. `transform` gets each frame without an animation.
    public func mapFrames(_ transform: (Bitmap) throws -> Bitmap) rethrows -> ImageAnimation {
        var mapped = self
        mapped.frames = try frames.map { AnimationFrame(bitmap: try transform($0.bitmap), duration: $0.duration) }
        return mapped
    }

    /// `gif, 12 frames, 48213 bytes` (with `, first frame only` or `, 5 decoded` when short).
    public var description: String {
        let base = "\(format), \(frameCount) frames, \(data.count) bytes"
        if isFirstFrameOnly { return base + ", first frame only" }
        if shortfall != nil { return base + ", \(frames.count) decoded" }
        return base
    }
}

/// One decoded frame of an animation: the whole canvas as it shows, and for how long.
public struct AnimationFrame: Sendable, Hashable {
    /// The frame's pixels, the size of the delivered image; its own `animation` is `nil`.
    public let bitmap: Bitmap
    /// How long the frame shows, in seconds, as the file says (a GIF's 0 is kept as 0; players
    /// commonly show such frames for 0.1 s).
    public let duration: TimeInterval

    /// Creates a frame.
    public init(bitmap: Bitmap, duration: TimeInterval) {
        self.bitmap = bitmap
        self.duration = duration
    }
}

/// Why an animation holds fewer frames than its file.
public enum AnimationShortfall: Sendable, Hashable, CustomStringConvertible {
    /// All frames at the file's size hold more pixels than the decoder's `maxPixelCount`:
    /// only the first frame was decoded.
    case overPixelBudget(frameCount: Int, pixelsPerFrame: Int, limit: Int)
    /// All frames at the delivered size take more bytes than
    /// `ImageDecodingContext.maxAnimationByteCount`: only the first frame was decoded.
    case overByteBudget(byteCount: Int, limit: Int)
    /// The file is damaged or cut after `decodedFrames` complete frames, which were kept.
    case damaged(decodedFrames: Int)

    /// What happened, in words.
    public var description: String {
        switch self {
        case .overPixelBudget(let frames, let pixels, let limit):
            "first frame only: \(frames) frames of \(pixels) pixels pass the limit of \(limit) pixels"
        case .overByteBudget(let bytes, let limit):
            "first frame only: the frames take \(bytes) bytes, over the limit of \(limit) bytes"
        case .damaged(let decoded):
            "the file is damaged after frame \(decoded); the frames before it were kept"
        }
    }
}

extension ImageDecodingContext {
    /// The fewest pixels a frame is charged in `maxPixelCount`: 64×64. Each frame costs a
    /// decoder call, a composition and a shrink whatever its size, so a file of a million
    /// one-pixel frames is charged for that work: at the default 100 MP, 24,414 frames at most.
    public static let minimumFramePixelCharge = 64 * 64

    /// The fewest bytes a kept frame is charged in `maxAnimationByteCount`: 1 KB, more than a
    /// frame's bookkeeping (its entry in the frame list and its bitmap's array header) takes.
    public static let minimumFrameByteCharge = 1024

    /// What budget decoding all `frameCount` frames of a `width` × `height` canvas into
    /// `target`-sized bitmaps would pass, or `nil` when within both: `maxPixelCount` bounds the
    /// pixels of all frames at the file's size (each is decoded whole before shrinking; each is
    /// charged at least `minimumFramePixelCharge`, plus `repeatedWorkPerFrame`), and
    /// `maxAnimationByteCount` the bytes of the frames kept (each at least
    /// `minimumFrameByteCharge`). Decoders call it with the header's frame count, before
    /// decoding any frame.
    ///
    /// `repeatedWorkPerFrame` is work every frame's decode repeats, in pixels' worth: an APNG
    /// charges one per byte of the chunks (its colour profile inflated) that each frame's
    /// decode copies and parses again.
    public func animationShortfall(frameCount: Int, width: Int, height: Int, target: (width: Int, height: Int),
                                   repeatedWorkPerFrame: Int = 0) -> AnimationShortfall? {
        let charge = Self.frameCharge(width: width, height: height, target: target, repeatedWorkPerFrame: repeatedWorkPerFrame)
        let (pixels, o2) = (charge.pixels ?? 0).multipliedReportingOverflow(by: frameCount)
        if charge.pixels == nil || o2 || pixels > maxPixelCount {
            return .overPixelBudget(frameCount: frameCount, pixelsPerFrame: charge.pixels ?? .max, limit: maxPixelCount)
        }
        let (bytes, o4) = (charge.bytes ?? 0).multipliedReportingOverflow(by: frameCount)
        if charge.bytes == nil || o4 || bytes > maxAnimationByteCount {
            return .overByteBudget(byteCount: charge.bytes == nil || o4 ? .max : bytes, limit: maxAnimationByteCount)
        }
        return nil
    }

    /// The most frames `animationShortfall` lets through for this canvas, target and repeated
    /// work: a decoder that counts frames keeps the layouts of at most one more than this.
    public func animationFrameLimit(width: Int, height: Int, target: (width: Int, height: Int),
                                    repeatedWorkPerFrame: Int = 0) -> Int {
        let charge = Self.frameCharge(width: width, height: height, target: target, repeatedWorkPerFrame: repeatedWorkPerFrame)
        guard let pixels = charge.pixels, let bytes = charge.bytes else { return 0 }
        return max(0, min(maxPixelCount / pixels, maxAnimationByteCount / bytes))
    }

    /// One frame's charge in pixels and in kept bytes; `nil` where it overflows an `Int`.
    private static func frameCharge(width: Int, height: Int, target: (width: Int, height: Int),
                                    repeatedWorkPerFrame: Int) -> (pixels: Int?, bytes: Int?) {
        let (area, o1) = width.multipliedReportingOverflow(by: height)
        let (pixels, o2) = max(area, minimumFramePixelCharge).addingReportingOverflow(max(0, repeatedWorkPerFrame))
        let (targetBytes, o3) = (target.width * 4).multipliedReportingOverflow(by: target.height)
        return (o1 || o2 ? nil : pixels, o3 ? nil : max(targetBytes, minimumFrameByteCharge))
    }
}
