#if canImport(ImageIO)
import CoreGraphics
import CoreImage

/// The one `CIContext` every blur renders with, shared by all threads: a context is costly to
/// make, and Apple documents `CIContext` as immutable and safe to use from several threads at
/// once (Core Image Programming Guide, "CIContext and CIImage objects are immutable, which means
/// each can be shared safely among threads"). The iOS 26 SDK tells Swift so (`CIContext` is
/// `Sendable` there); the macOS 15 SDK does not, so the sharing is declared here, once, for both,
/// and only rendering is exposed.
final class SharedCIContext: @unchecked Sendable { // no lock: `context` never changes, and CIContext is thread-safe (Apple's Core Image Programming Guide)
    private let context: CIContext

    init(options: [CIContextOption: Any]) {
        context = CIContext(options: options)
    }

    /// `CIContext.createCGImage(_:from:)`: renders the `rect` part of `image` into a new bitmap.
    func createCGImage(_ image: CIImage, from rect: CGRect) -> CGImage? {
        context.createCGImage(image, from: rect)
    }
}
#endif
