/// One step that turns an image into another (resize, crop, round, blur, ...).
///
/// `identifier` must be stable across launches and differ whenever the output would: it is part
/// of the memory-cache key, and identical steps of identical requests run once between them.
///
/// The pipeline calls ``process(_:context:)`` with its configured limits; its default
/// implementation calls ``process(_:)``, so a step that needs no limit implements `process(_:)`
/// alone. A step that can make an image larger than its input implements both, with
/// `process(_:)` passing the default ``ImageProcessingContext`` to `process(_:context:)`.
///
/// ```swift
/// struct Grayscale: ImageProcessing {
///     var identifier: String { "grayscale" }
///     func process(_ image: PlatformImage) throws -> PlatformImage { ... }
/// }
/// ```
public protocol ImageProcessing: Sendable {
    /// A stable description of what this step does, with its parameters.
    var identifier: String { get }
    /// Returns the processed image, or throws to fail the request with `processingFailed`.
    func process(_ image: PlatformImage) throws -> PlatformImage
    /// Returns the processed image within `context`'s limits, or throws to fail the request with
    /// `processingFailed`; how the pipeline runs a step. Defaults to ``process(_:)``, which
    /// leaves the limits to the step.
    func process(_ image: PlatformImage, context: ImageProcessingContext) throws -> PlatformImage
}

extension ImageProcessing {
    /// Runs ``process(_:)``: a step that implements only that one keeps working unchanged.
    public func process(_ image: PlatformImage, context: ImageProcessingContext) throws -> PlatformImage {
        try process(image)
    }
}

/// A processing step given as a closure, identified by the caller.
///
/// ```swift
/// ImageRequest(url: url, processors: [AnonymousProcessor("invert-v1") { invert($0) }])
/// ```
public struct AnonymousProcessor: ImageProcessing {
    /// The caller-given identifier.
    public let identifier: String
    private let closure: @Sendable (PlatformImage) throws -> PlatformImage

    /// Creates a processor from an identifier and the work it does.
    public init(_ identifier: String, _ closure: @escaping @Sendable (PlatformImage) throws -> PlatformImage) {
        self.identifier = identifier
        self.closure = closure
    }

    /// Runs the closure.
    public func process(_ image: PlatformImage) throws -> PlatformImage { try closure(image) }
}
