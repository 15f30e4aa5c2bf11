import Foundation

/// One download's previews, decoded as the bytes arrive by a decoder that keeps its state from
/// one preview to the next (libjpeg-turbo's buffered-image mode): each byte is decoded once,
/// however many previews are made, and when the whole body is in, the final image can come from
/// the same state.
///
/// The pipeline makes one session per download and thumbnail (`ProgressiveImageDecoding.
/// makeProgressiveSession(for:context:)`), calls it once at a time, and closes it when the final
/// image is made or the request is cancelled. Like `decodePreview`, a session never throws:
/// anything it cannot do gives `nil`, and the pipeline's own decode decides the result.
public protocol ProgressiveDecodingSession: AnyObject, Sendable {
    /// A preview of the complete scans in the first `scanEnd` bytes of `data`, at the thumbnail
    /// size the session was made for, orientation applied; `nil` when there is none to make.
    /// `data` is the body so far: it begins with every byte given to earlier calls, and holds at
    /// least the two bytes of the marker at `scanEnd` that ends the last complete scan.
    func preview(_ data: Data, scanEnd: Int) -> PlatformImage?

    /// The final image from the whole body `data` (which begins with every byte given to
    /// `preview`), the same pixels the decoder's `decode(_:context:)` makes; `nil` when the
    /// session cannot make it, and the pipeline then decodes `data` as usual. Ends the session.
    func finish(_ data: Data) -> PlatformImage?

    /// Frees what the session holds (a buffered JPEG decode holds the whole image's
    /// coefficients); later calls give `nil`. Deinitialising a session frees it too.
    func close()
}
