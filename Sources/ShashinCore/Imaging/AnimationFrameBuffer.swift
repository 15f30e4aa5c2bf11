import Foundation

/// The decoded frames of one playback of an `AnimationFrameSource`: at most `capacity` of them,
/// the frames just ahead of the one shown, decoded by a reader of its own.
///
/// `fill(from:count:)` decodes the frames from an index on (wrapping after the last) and lets go
/// of the others; `frame(at:)` gives one frame, decoding it when it is not held;
/// `bufferedFrame(at:)` answers at once without decoding, so a player on the main thread asks it.
/// Decodes run one at a time, in the order asked, on a queue of the buffer's own whose threads
/// are libdispatch's, never Swift's cooperative pool: awaiting a frame holds no thread that other
/// tasks need. A caller that is cancelled gets `CancellationError` at once; a decode already
/// under way finishes on its thread and its frames stay held.
///
/// The reader saves a canvas every few frames as it passes them (GIF and APNG, through
/// ShashinVips): a read that goes back, or jumps past frames already decoded once, composes at
/// most that many frames, not every frame from the first.
///
/// ```swift
/// let buffer = source.makeBuffer()
/// try await buffer.fill(from: 1)
/// if let frame = buffer.bufferedFrame(at: 1) { show(frame) }
/// let tenth = try await buffer.frame(at: 9)
/// ```
public final class AnimationFrameBuffer: @unchecked Sendable { // `frames` and `decodes` under `stateLock`; `reader` and `checkpoints` under `decodeLock`
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
    private let checkpoints: AnimationCheckpoints
    private let queue = AnimationDecodeQueue()

    /// A buffer over `source` holding at most `capacity` frames (at least 1).
    public convenience init(source: AnimationFrameSource, capacity: Int = AnimationFrameBuffer.defaultCapacity) {
        self.init(source: source, capacity: capacity, checkpoints: AnimationCheckpoints())
    }

    /// A buffer whose reader saves its canvases into `checkpoints` (their interval and budget).
    package init(source: AnimationFrameSource, capacity: Int, checkpoints: AnimationCheckpoints) {
        self.source = source
        self.capacity = max(1, capacity)
        self.checkpoints = checkpoints
    }

    /// Frame `index` when it is decoded and held; `nil` otherwise. Never waits for a decode.
    public func bufferedFrame(at index: Int) -> Bitmap? {
        stateLock.locked { frames[index] }
    }

    /// The indices of the frames held now, in no order.
    public var bufferedIndices: Set<Int> { stateLock.locked { Set(frames.keys) } }

    /// How many frames this buffer's reader has produced so far (a measure of the decoding work).
    public var decodedFrameCount: Int { stateLock.locked { decodes } }

    /// The frames after which the reader saved a canvas, and the bytes those canvases hold.
    package var checkpointState: (indices: [Int], byteCount: Int, interval: Int) {
        decodeLock.locked { (checkpoints.indices, checkpoints.byteCount, checkpoints.interval) }
    }

    /// Frame `index`, from the buffer or decoded now off the cooperative pool (and then held, with
    /// the frames after it up to `capacity`). Throws `CancellationError` at once when the calling
    /// task is cancelled, and `ImagePipelineError` when the frame cannot be decoded.
    public func frame(at index: Int) async throws -> Bitmap {
        if let frame = bufferedFrame(at: index) { return frame }
        return try await queue.run { [self] in try frameBlocking(at: index) }
    }

    /// Holds frames `index`, `index + 1`, … (`capacity` of them, wrapping after the last frame),
    /// letting go of every other frame first, and decodes those not held among the first `count`
    /// of them (default all), in order, off the cooperative pool. A frame that fails to decode
    /// throws; the frames before it stay held. Throws `CancellationError` at once when the
    /// calling task is cancelled (a decode under way goes on and its frames stay held).
    public func fill(from index: Int, count: Int? = nil) async throws {
        try await queue.run { [self] in try fillBlocking(from: index, count: count) }
    }

    /// `frame(at:)` on the calling thread, which it blocks while it decodes: for a caller that owns
    /// its thread (never a task's), such as the benchmark measuring a decode held on the pool.
    package func frameBlocking(at index: Int) throws -> Bitmap {
        if let frame = bufferedFrame(at: index) { return frame }
        guard let frame = try fillBlocking(from: index, count: nil, keeping: index) else { throw Self.outOfRange(index, source.frameCount) }
        return frame
    }

    /// `fill(from:count:)` on the calling thread, which it blocks while it decodes.
    package func fillBlocking(from index: Int, count: Int? = nil) throws {
        _ = try fillBlocking(from: index, count: count, keeping: nil)
    }

    /// The fill, and frame `wanted` as held when it ends (under the decode lock, so no other fill
    /// has let go of it).
    private func fillBlocking(from index: Int, count: Int?, keeping wanted: Int?) throws -> Bitmap? {
        let frameCount = source.frameCount
        guard (0..<frameCount).contains(index) else { throw Self.outOfRange(index, frameCount) }
        let window = (0..<min(capacity, frameCount)).map { (index + $0) % frameCount }
        let decoded = window.prefix(max(0, count ?? window.count))
        return try decodeLock.locked { () throws -> Bitmap? in
            let missing = stateLock.locked { () -> [Int] in
                frames = frames.filter { window.contains($0.key) }
                return decoded.filter { frames[$0] == nil }
            }
            for index in missing {
                if reader == nil { reader = try source.makeReader() }
                guard let reader else { return nil }
                let frame = if let seeking = reader as? any AnimationFrameCheckpointing {
                    try seeking.frame(at: index, checkpoints: checkpoints)
                } else {
                    try reader.frame(at: index)
                }
                stateLock.locked {
                    frames[index] = frame
                    decodes += 1
                }
            }
            return wanted.flatMap { wanted in stateLock.locked { frames[wanted] } }
        }
    }

    private static func outOfRange(_ index: Int, _ count: Int) -> ImagePipelineError {
        .decodingFailed(format: nil, reason: "frame \(index) is outside the animation's \(count) frames")
    }
}
