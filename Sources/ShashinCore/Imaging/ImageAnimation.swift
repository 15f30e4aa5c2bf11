import Foundation

/// An animated GIF, WebP or PNG (APNG): its frames decoded at the delivered size, how long each shows, how
/// often it repeats, and the original bytes.
///
/// The pipeline delivers the first frame as the image and this on `ImageResponse.animation`
/// (and `Bitmap.animation` / `PlatformImage.animation`, which travel with the image through the
/// memory cache). `frames[0]` is the image itself. Processors run on every frame, so a resized,
/// cropped or rounded animation keeps its frames; `data` stays the file that was decoded.
///
/// How it comes depends on `AnimationDelivery`: with every frame in `frames`; streamed, with
/// `frames` empty and `frameSource` decoding frames while they play; or the first frame only.
/// When decoding every frame would pass the decoder's budgets (see
/// `ImageDecodingContext.maxAnimationByteCount`) and the delivery is `.allFrames`, only the
/// first frame is decoded: `frames` is then empty and `shortfall` says which budget it passed.
/// A file damaged after its first frame gives the frames before the damage, with `shortfall`
/// `.damaged`.
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
    /// Why `frames` does not hold all `frameCount` frames; `nil` when it does, or when the
    /// animation is streamed.
    public var shortfall: AnimationShortfall?
    /// The frames decoded while they play, when the animation was delivered as a frame source
    /// (`AnimationDelivery.frameSource`); `frames` is then empty. `nil` otherwise.
    public var frameSource: AnimationFrameSource?

    /// Creates an animation.
    public init(format: ImageFormat, frameCount: Int, data: Data, frames: [AnimationFrame] = [], loopCount: Int = 0,
                shortfall: AnimationShortfall? = nil, frameSource: AnimationFrameSource? = nil) {
        self.format = format
        self.frameCount = frameCount
        self.data = data
        self.frames = frames
        self.loopCount = loopCount
        self.shortfall = shortfall
        self.frameSource = frameSource
    }

    /// Whether the frames are decoded while they play (`frameSource` is set).
    public var isStreamed: Bool { frameSource != nil }

    /// The frames a player plays: `frameSource` when streamed, otherwise a source over the
    /// decoded `frames`; `nil` when fewer than two frames can play (first frame only).
    public var playableFrames: AnimationFrameSource? {
        if let frameSource { return frameSource }
        return frames.count > 1 ? AnimationFrameSource(frames: frames, loopCount: loopCount) : nil
    }

    /// Whether only the first frame was decoded, because the whole animation passed a budget, the
    /// request asked for it, or the decoder could read no frame after it: a view shows the image still.
    public var isFirstFrameOnly: Bool {
        guard frameSource == nil else { return false }
        return switch shortfall {
        case .overPixelBudget?, .overByteBudget?, .firstFrameRequested?: true
        case .damaged?: frames.isEmpty
        case nil: false
        }
    }

    /// The bytes the frames after the first hold: `frames[0]` shares the delivered image's pixels.
    public var extraFrameByteCount: Int { frames.dropFirst().reduce(0) { $0 + $1.bitmap.pixels.count } }

    /// The sum of the frames' durations, in seconds: the decoded frames', or the frame source's
    /// when streamed.
    public var totalDuration: TimeInterval {
        frameSource.map { $0.durations.reduce(0, +) } ?? frames.reduce(0) { $0 + $1.duration }
    }

    /// This animation with `transform` applied to every frame (durations, loop count and data
    /// kept): how processors treat animations. `transform` gets each frame without an animation.
    /// A streamed animation's frames are not decoded here: see `mapStreamedFrames(_:)`.
    public func mapFrames(_ transform: (Bitmap) throws -> Bitmap) rethrows -> ImageAnimation {
        var mapped = self
        mapped.frames = try frames.map { AnimationFrame(bitmap: try transform($0.bitmap), duration: $0.duration) }
        return mapped
    }

    /// This animation with `transform` run on each frame its `frameSource` decodes, as it
    /// decodes it (`AnimationFrameSource.mapFrames`); unchanged when it is not streamed.
    public func mapStreamedFrames(_ transform: @escaping @Sendable (Bitmap) throws -> Bitmap) -> ImageAnimation {
        var mapped = self
        mapped.frameSource = frameSource?.mapFrames(transform)
        return mapped
    }

    /// `gif, 12 frames, 48213 bytes` (with `, first frame only` or `, 5 decoded` when short).
    public var description: String {
        let base = "\(format), \(frameCount) frames, \(data.count) bytes"
        if isStreamed { return base + ", streamed" }
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
    /// The request asked for the first frame only (`AnimationDelivery.firstFrameOnly`): one
    /// frame was decoded.
    case firstFrameRequested

    /// What happened, in words.
    public var description: String {
        switch self {
        case .overPixelBudget(let frames, let pixels, let limit):
            "first frame only: \(frames) frames of \(pixels) pixels pass the limit of \(limit) pixels"
        case .overByteBudget(let bytes, let limit):
            "first frame only: the frames take \(bytes) bytes, over the limit of \(limit) bytes"
        case .damaged(let decoded):
            "the file is damaged after frame \(decoded); the frames before it were kept"
        case .firstFrameRequested:
            "first frame only, as the request asked"
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

    /// What to decode of an animation of `frameCount` frames on a `width` × `height` canvas, as
    /// `animationDelivery` says, given the budgets (`animationShortfall`): decoders call it with
    /// the header's facts, before decoding any frame.
    public func animationPlan(frameCount: Int, width: Int, height: Int, target: (width: Int, height: Int),
                              repeatedWorkPerFrame: Int = 0) -> AnimationPlan {
        switch animationDelivery {
        case .firstFrameOnly:
            return .firstFrame(.firstFrameRequested)
        case .frameSource:
            return .frameSource
        case .allFrames, .automatic:
            guard let shortfall = animationShortfall(frameCount: frameCount, width: width, height: height, target: target,
                                                     repeatedWorkPerFrame: repeatedWorkPerFrame) else { return .allFrames }
            return animationDelivery == .automatic ? .frameSource : .firstFrame(shortfall)
        }
    }

    /// What a decoder decodes of an animation (`animationPlan`).
    public enum AnimationPlan: Sendable, Equatable {
        /// Every frame, up front.
        case allFrames
        /// The first frame, and an `AnimationFrameSource` for the rest.
        case frameSource
        /// The first frame only, for this reason.
        case firstFrame(AnimationShortfall)
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
