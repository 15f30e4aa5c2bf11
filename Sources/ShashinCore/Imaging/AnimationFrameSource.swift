import Foundation

/// An animation that decodes its frames while it plays: the frame count, each frame's duration
/// and the loop count, known from the file's header, and a decoder's readers
/// (`AnimationFrameDecoding`) that decode frames on demand at the delivered size.
///
/// Immutable and cheap to keep: it holds the encoded data and the header's facts, never a
/// decoded frame, so the memory cache that keeps it counts only the first frame and the data.
/// A player decodes through an `AnimationFrameBuffer` of its own (`makeBuffer(capacity:)`),
/// which holds a few frames ahead of the one shown; `AnimationPlayback` keeps its time.
///
/// ```swift
/// if let source = response.animation?.frameSource {
///     let buffer = source.makeBuffer(capacity: 3)
///     let second = try await buffer.frame(at: 1)
/// }
/// ```
public final class AnimationFrameSource: Sendable, Hashable, CustomStringConvertible {
    /// Frames in the animation; at least 2.
    public let frameCount: Int
    /// How long each frame shows, in seconds, as the file says (`AnimationTimeline` turns a
    /// frame under 20 ms into 100 ms); `frameCount` entries.
    public let durations: [TimeInterval]
    /// How many times the animation plays; `0` means forever.
    public let loopCount: Int
    /// The decoder's readers.
    private let decoder: any AnimationFrameDecoding
    /// Run on each frame after decoding, in order: the request's processors.
    private let transforms: [@Sendable (Bitmap) throws -> Bitmap]

    /// A source of `durations.count` frames decoded by `decoder`'s readers, played `loopCount`
    /// times (0: forever).
    public convenience init(durations: [TimeInterval], loopCount: Int, decoder: any AnimationFrameDecoding) {
        self.init(durations: durations, loopCount: loopCount, decoder: decoder, transforms: [])
    }

    /// A source over frames already decoded: how a player plays an animation delivered with
    /// every frame through the same path as a streamed one. Nothing is decoded again.
    public convenience init(frames: [AnimationFrame], loopCount: Int) {
        self.init(durations: frames.map(\.duration), loopCount: loopCount, decoder: DecodedFrames(frames: frames.map(\.bitmap)))
    }

    private init(durations: [TimeInterval], loopCount: Int, decoder: any AnimationFrameDecoding,
                 transforms: [@Sendable (Bitmap) throws -> Bitmap]) {
        frameCount = durations.count
        self.durations = durations
        self.loopCount = max(0, loopCount)
        self.decoder = decoder
        self.transforms = transforms
    }

    /// This source with `transform` run on every frame after it is decoded (durations, loop
    /// count and decoder kept): how processors treat a streamed animation.
    public func mapFrames(_ transform: @escaping @Sendable (Bitmap) throws -> Bitmap) -> AnimationFrameSource {
        AnimationFrameSource(durations: durations, loopCount: loopCount, decoder: decoder, transforms: transforms + [transform])
    }

    /// A buffer for one playback, holding at most `capacity` decoded frames (at least 1;
    /// default `AnimationFrameBuffer.defaultCapacity`, 3).
    public func makeBuffer(capacity: Int = AnimationFrameBuffer.defaultCapacity) -> AnimationFrameBuffer {
        AnimationFrameBuffer(source: self, capacity: capacity)
    }

    /// A reader whose frames have gone through `transforms`.
    func makeReader() throws -> any AnimationFrameReading {
        let reader = try decoder.makeReader()
        return transforms.isEmpty ? reader : TransformedReader(reader: reader, transforms: transforms)
    }

    /// `frame source, 300 frames`.
    public var description: String { "frame source, \(frameCount) frames" }

    /// Sources are equal when they are the same object.
    public static func == (lhs: AnimationFrameSource, rhs: AnimationFrameSource) -> Bool { lhs === rhs }

    /// Hashes the object's identity, as `==` compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// Frames decoded up front, served as they are.
private struct DecodedFrames: AnimationFrameDecoding {
    let frames: [Bitmap]

    func makeReader() throws -> any AnimationFrameReading { Reader(frames: frames) }

    final class Reader: AnimationFrameReading {
        let frames: [Bitmap]
        init(frames: [Bitmap]) { self.frames = frames }
        func frame(at index: Int) throws -> Bitmap { frames[index] }
    }
}

/// A reader whose frames go through the processors' transforms; it saves and starts from
/// canvases when the reader it wraps does (the canvases are the decoder's, before any transform).
private final class TransformedReader: AnimationFrameCheckpointing {
    let reader: any AnimationFrameReading
    let transforms: [@Sendable (Bitmap) throws -> Bitmap]

    init(reader: any AnimationFrameReading, transforms: [@Sendable (Bitmap) throws -> Bitmap]) {
        self.reader = reader
        self.transforms = transforms
    }

    func frame(at index: Int) throws -> Bitmap {
        try transformed(try reader.frame(at: index))
    }

    func frame(at index: Int, checkpoints: AnimationCheckpoints) throws -> Bitmap {
        guard let seeking = reader as? any AnimationFrameCheckpointing else { return try frame(at: index) }
        return try transformed(try seeking.frame(at: index, checkpoints: checkpoints))
    }

    private func transformed(_ frame: Bitmap) throws -> Bitmap {
        try transforms.reduce(frame) { frame, transform in try transform(frame) }
    }
}
