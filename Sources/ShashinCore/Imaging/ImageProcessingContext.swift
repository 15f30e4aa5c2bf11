/// What the pipeline tells a processor about the step it runs: the limits its output must keep.
///
/// The pipeline passes one made from its configuration to
/// ``ImageProcessing/process(_:context:)``; a processor called on its own gets the defaults.
///
/// ```swift
/// let small = try ImageProcessors.Resize(width: 300).process(image, context: .init(maxPixelCount: 4_000_000))
/// ```
public struct ImageProcessingContext: Sendable, Hashable {
    /// The most pixels (width × height) a step may produce; a step that would make more throws,
    /// so a processor cannot allocate what the decoder refuses as a decompression bomb. The
    /// pipeline passes its ``ImagePipeline/Configuration/maxPixelCount``; default
    /// ``ImageDecodingContext/defaultMaxPixelCount`` (100 megapixels), the configuration's default.
    public var maxPixelCount: Int

    /// Creates a context; every parameter has the default its property documents.
    public init(maxPixelCount: Int = ImageDecodingContext.defaultMaxPixelCount) {
        self.maxPixelCount = maxPixelCount
    }
}
