extension ImageProcessors {
    /// Several processors applied in order as one step (one cache entry for the end result,
    /// none for the steps between).
    ///
    /// Its identifier joins the parts' in order, so two compositions of the same steps share a
    /// cache entry: `composition(resize(w=300,h=auto,fit,noCrop,noUpscale) > gaussianBlur(r=4))`.
    /// An empty composition returns the image unchanged. A composition among the steps is
    /// replaced by its own steps (the same output, one flat list), so nesting compositions
    /// costs no stack depth when processing and shares the cache entry of the flat list. A list
    /// of separate processors in a request caches each intermediate result (and shares it with
    /// requests that stop there); a composition does not.
    ///
    /// ```swift
    /// let thumbnail = ImageProcessors.Composition([.resize(width: 300), .roundedCorners(radius: 12)])
    /// ```
    public struct Composition: ImageProcessing {
        /// The steps, applied first to last, with nested compositions replaced by their steps.
        public let processors: [any ImageProcessing]
        /// `composition(` + the steps' identifiers joined by ` > ` + `)`.
        public let identifier: String

        /// Creates a composition of `processors`, applied first to last.
        public init(_ processors: [any ImageProcessing]) {
            // Each composition is flat once made, so one level of splicing flattens any depth.
            let processors = processors.flatMap { ($0 as? Composition)?.processors ?? [$0] }
            self.processors = processors
            self.identifier = "composition(" + processors.map(\.identifier).joined(separator: " > ") + ")"
        }

        /// Applies each step to the previous step's result within the default
        /// ``ImageProcessingContext``; see ``process(_:context:)``.
        public func process(_ image: PlatformImage) throws -> PlatformImage {
            try process(image, context: ImageProcessingContext())
        }

        /// Applies each step to the previous step's result, every step within `context`'s
        /// limits; the first error ends it.
        public func process(_ image: PlatformImage, context: ImageProcessingContext) throws -> PlatformImage {
            try processors.reduce(image) { image, processor in try processor.process(image, context: context) }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Composition {
    /// Several processors applied in order as one step; see `ImageProcessors.Composition`.
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.composition([.resize(width: 300), .circle])])
    /// ```
    public static func composition(_ processors: [any ImageProcessing]) -> Self {
        ImageProcessors.Composition(processors)
    }
}
