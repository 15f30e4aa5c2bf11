import Foundation

/// The decoded frames of one playback of an `AnimationFrameSource`: at most `capacity` of them,
/// the frames just ahead of the one shown, decoded by a reader of its own.
///
/// `fill(from:)` decodes the frames from an index on (wrapping after the last) and lets go of
/// the others; `bufferedFrame(at:)` answers without waiting for a decode, so a player on the
/// main thread asks it and fills the buffer elsewhere. Safe from any thread: decodes run one at
/// a time, and a lookup never waits for one.
///
/// ```swift
/// let buffer = source.makeBuffer()
/// try buffer.fill(from: 1)                 // off the main thread
/// if let frame = buffer.bufferedFrame(at: 1) { show(frame) }
/// ```
public final class AnimationFrameBuffer: @unchecked Sendable { // `frames` and `decodes` under `stateLock`; `reader` under `decodeLock`
    /// 3 frames: the one about to show and two behind it, as `SDAnimatedImageView` and
    /// Kingfisher's `AnimatedImageView` keep a few.
    public static let defaultCapacity = 3

    /// The source this buffer plays.
    public let source: AnimationFrameSource
    /// The most decoded frames held at once (at least 1).
    public let capacity: Int

    private let stateLock = Lock()
    private var frames: [Int: Bitmap] = [:]
    private var decodes = 0
    private let decodeLock = Lock()
    private var reader: (any AnimationFrameReading)?

    /// A buffer over `source` holding at most `capacity` frames (at least 1).
    public init(source: AnimationFrameSource, capacity: Int = AnimationFrameBuffer.defaultCapacity) {
        self.source = source
        self.capacity = max(1, capacity)
    }

    /// Frame `index` when it is decoded and held; `nil` otherwise. Never waits for a decode.
    public func bufferedFrame(at index: Int) -> Bitmap? {
        stateLock.locked { frames[index] }
    }

    /// The indices of the frames held now, in no order.
    public var bufferedIndices: Set<Int> { stateLock.locked { Set(frames.keys) } }

    /// How many frames this buffer's reader has produced so far (a measure of the decoding work).
    public var decodedFrameCount: Int { stateLock.locked { decodes } }

    /// Frame `index`, from the buffer or decoded now (and then held, with the frames after it
    /// up to `capacity`). Blocks while decoding: call it off the main thread.
    public func frame(at index: Int) throws -> Bitmap {
        if let frame = bufferedFrame(at: index) { return frame }
        try fill(from: index)
        guard let frame = bufferedFrame(at: index) else { throw Self.outOfRange(index, source.frameCount) }
        return frame
    }

    /// Holds frames `index`, `index + 1`, … (`capacity` of them, wrapping after the last frame),
    /// letting go of every other frame first, and decodes those not held among the first
    /// `count` of them (default all), in order. Blocks while decoding: call it off the main
    /// thread. A frame that fails to decode throws; the frames before it stay held.
    public func fill(from index: Int, count: Int? = nil) throws {
        let frameCount = source.frameCount
        guard (0..<frameCount).contains(index) else { throw Self.outOfRange(index, frameCount) }
        let window = (0..<min(capacity, frameCount)).map { (index + $0) % frameCount }
        let decoded = window.prefix(max(0, count ?? window.count))
        try decodeLock.locked { () throws -> Void in
            let missing = stateLock.locked { () -> [Int] in
                frames = frames.filter { window.contains($0.key) }
                return decoded.filter { frames[$0] == nil }
            }
            for index in missing {
                if reader == nil { reader = try source.makeReader() }
                guard let reader else { return }
                let frame = try reader.frame(at: index)
                stateLock.locked {
                    frames[index] = frame
                    decodes += 1
                }
            }
        }
    }

    private static func outOfRange(_ index: Int, _ count: Int) -> ImagePipelineError {
        .decodingFailed(format: nil, reason: "frame \(index) is outside the animation's \(count) frames")
    }
}
