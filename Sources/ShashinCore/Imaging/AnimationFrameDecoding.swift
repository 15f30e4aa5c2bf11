import Foundation

/// What a decoder supplies so an animation decodes while it plays: readers over the encoded
/// data, each decoding frames at the delivered size as a player asks for them.
///
/// A decoder that supports `AnimationDelivery.frameSource` decodes the first frame, then puts
/// one of these in an `AnimationFrameSource` on the image's `ImageAnimation`. It holds the data
/// and what the decoder learned from the header, nothing decoded: the memory cache keeps it.
///
/// ```swift
/// struct MyFrames: AnimationFrameDecoding {
///     let data: Data, size: (width: Int, height: Int)
///     func makeReader() throws -> any AnimationFrameReading { MyReader(data, size) }
/// }
/// ```
public protocol AnimationFrameDecoding: Sendable {
    /// Opens a reader positioned before the first frame. Every playback makes its own, so two
    /// views playing one cached animation never share a decoder's state.
    func makeReader() throws -> any AnimationFrameReading
}

/// Decodes the frames of one playback. Not thread-safe: `AnimationFrameBuffer` calls it under
/// its lock, one call at a time, on its decode queue's threads (never Swift's cooperative pool),
/// so a call may block its thread for as long as the decode takes.
public protocol AnimationFrameReading: AnyObject {
    /// Frame `index` as a player shows it: the whole canvas, composed as the file's disposal and
    /// blending say, at the delivered size, RGBA8. Readers decode cheapest in increasing order:
    /// an index after the last one read composes the frames between without producing them; an
    /// earlier one starts again from the first frame (or, for the readers of ShashinVips, from a
    /// canvas saved on the way). Throws when the frame cannot be decoded (the file is damaged
    /// there).
    func frame(at index: Int) throws -> Bitmap
}
