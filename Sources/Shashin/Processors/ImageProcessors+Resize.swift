import Foundation
#if !canImport(ImageIO) && !SHASHIN_APPLE_SHAPE
import ShashinVips
#endif

extension ImageProcessors {
    /// Scales an image to a target size, in points (default) or pixels, keeping its aspect ratio.
    ///
    /// - `.aspectFit`: the whole image fits inside the target size; one side matches it.
    /// - `.aspectFill` (default): the image covers the target size; one side matches it, the
    ///   other may be larger. With `crop`, the overflow is cut off around the centre, so the
    ///   result is exactly the target size (when the image is at least that large, or `upscale`
    ///   is on; otherwise each side is the smaller of the target's and the image's).
    /// - Only a width or only a height: that side becomes the target, the other follows the
    ///   aspect ratio (content mode and crop do not apply).
    ///
    /// A size in points is multiplied by the scale: the one given, else the main display's on
    /// Apple platforms, where the result carries that scale (a 100 pt resize on a 3× screen gives
    /// 300 px that show at 100 pt); 1 on Linux, where there is no screen. Images are never made
    /// larger unless `upscale` is `true`; an image already at the target size is returned as it
    /// is. Resampling is Lanczos 3 with alpha premultiplied, so transparent pixels do not bleed
    /// colour into their neighbours.
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.resize(width: 300, height: 200, crop: true)])   // points
    /// ImageRequest(url: url, processors: [.resize(size: CGSize(width: 600, height: 400), unit: .pixels)])
    /// ```
    ///
    /// To resize *while decoding*, which is much cheaper for a large JPEG or WebP, use
    /// `ImageRequest.thumbnail` instead; resize after decoding when the exact size or a crop
    /// matters, or when the decoded image is shared with other requests.
    public struct Resize: ImageProcessing, Hashable {
        /// The target width in pixels; `nil` leaves the width to the aspect ratio.
        public let width: Int?
        /// The target height in pixels; `nil` leaves the height to the aspect ratio.
        public let height: Int?
        /// Pixels per point of the result on Apple platforms (the scale points were multiplied
        /// by); `nil` for a size in pixels, whose result keeps the input's scale.
        public let scale: Double?
        /// How the image is fitted when both sides are given. Default `.aspectFill`.
        public let contentMode: ImageContentMode
        /// Whether `.aspectFill` cuts the image down to the target size. Default `false`.
        public let crop: Bool
        /// Whether images smaller than the target are scaled up. Default `false`.
        public let upscale: Bool

        /// Creates a resize to `width` and/or `height` in `unit`s (default points, at `scale`
        /// pixels per point: default the main display's, 1 on Linux). A side that is infinite
        /// (or larger than a billion pixels) is left to the aspect ratio.
        ///
        /// ```swift
        /// ImageProcessors.Resize(width: 100)                                  // 100 pt wide
        /// ImageProcessors.Resize(width: 300, height: 300, unit: .pixels, crop: true) // a 300×300 px centre crop
        /// ```
        public init(width: CGFloat? = nil, height: CGFloat? = nil, unit: ImageUnit = .points, scale: Double? = nil,
                    contentMode: ImageContentMode = .aspectFill, crop: Bool = false, upscale: Bool = false) {
            let scale = unit == .points ? DisplayScale.resolve(scale) : nil
            self.width = width.flatMap { Self.pixels(Double($0) * (scale ?? 1)) }
            self.height = height.flatMap { Self.pixels(Double($0) * (scale ?? 1)) }
            self.scale = scale
            self.contentMode = contentMode
            self.crop = crop
            self.upscale = upscale
        }

        /// Creates a resize to `size` in `unit`s; see `init(width:height:unit:scale:contentMode:crop:upscale:)`.
        ///
        /// ```swift
        /// ImageProcessors.Resize(size: CGSize(width: 150, height: 100), contentMode: .aspectFit)
        /// ```
        public init(size: CGSize, unit: ImageUnit = .points, scale: Double? = nil, contentMode: ImageContentMode = .aspectFill,
                    crop: Bool = false, upscale: Bool = false) {
            self.init(width: size.width, height: size.height, unit: unit, scale: scale, contentMode: contentMode,
                      crop: crop, upscale: upscale)
        }

        /// `resize(w=300,h=200,fill,crop,noUpscale@3)`: every parameter that changes the output,
        /// normalised so settings that cannot matter do not split the cache (with one side given,
        /// or with `.aspectFit`, the mode and crop always read `fit,noCrop`); the result's scale
        /// last, when it has one.
        public var identifier: String {
            let fills = width != nil && height != nil && contentMode == .aspectFill
            return "resize(w=\(width.map(String.init) ?? "auto"),h=\(height.map(String.init) ?? "auto")," +
                (fills ? "fill," : "fit,") + (fills && crop ? "crop," : "noCrop,") + (upscale ? "upscale)" : "noUpscale)") +
                (scale.map { "@\(IdentifierNumber($0))" } ?? "")
        }

        /// Returns the resized image within the default limit of
        /// ``ImageProcessingContext/maxPixelCount`` (100 million pixels); see
        /// ``process(_:context:)``.
        public func process(_ image: PlatformImage) throws(ImagePipelineError) -> PlatformImage {
            try process(image, context: ImageProcessingContext())
        }

        /// Returns the resized image; throws `processingFailed` for an empty image, a target
        /// side of 0 or less, or a result over `context.maxPixelCount` pixels (the pipeline's
        /// configured `maxPixelCount`), which the error's reason names.
        public func process(_ image: PlatformImage, context: ImageProcessingContext) throws(ImagePipelineError) -> PlatformImage {
            try ImageProcessors.run(identifier) { () throws(ProcessingError) in
                guard let plan = try plan(width: image.pixelWidth, height: image.pixelHeight) else {
                    return ImageProcessors.rescaled(image, to: scale)
                }
                #if canImport(ImageIO) || SHASHIN_APPLE_SHAPE
                return try PixelWork.resize(image, source: plan.source, width: plan.width, height: plan.height,
                                            maxPixelCount: context.maxPixelCount, scale: scale)
                #else
                return try PixelWork.resize(image, source: plan.source, width: plan.width, height: plan.height,
                                            maxPixelCount: context.maxPixelCount)
                #endif
            }
        }
        /// What to resample for a `width` × `height` image: which part of it, to what size;
        /// `nil` when the image stays as it is.
        func plan(width imageWidth: Int, height imageHeight: Int) throws(ProcessingError) -> (source: PixelRect, width: Int, height: Int)? {
            guard imageWidth > 0, imageHeight > 0 else {
                throw ProcessingError("A \(imageWidth)×\(imageHeight) image has no pixels to resize")
            }
            if (width ?? 1) <= 0 || (height ?? 1) <= 0 {
                throw ProcessingError("The target size \(width.map(String.init) ?? "auto")×\(height.map(String.init) ?? "auto") has no pixels")
            }
            let widthScale = width.map { Double($0) / Double(imageWidth) }
            let heightScale = height.map { Double($0) / Double(imageHeight) }
            var scale: Double
            switch (widthScale, heightScale) {
            case (nil, nil): return nil
            case (let only?, nil), (nil, let only?): scale = only
            case (let x?, let y?): scale = contentMode == .aspectFit ? min(x, y) : max(x, y)
            }
            if !upscale { scale = min(scale, 1) }
            let full = PixelRect(width: imageWidth, height: imageHeight)
            let scaledWidth = Self.side(Double(imageWidth) * scale), scaledHeight = Self.side(Double(imageHeight) * scale)
            guard crop, contentMode == .aspectFill, let width, let height, scaledWidth > width || scaledHeight > height else {
                return scaledWidth == imageWidth && scaledHeight == imageHeight ? nil : (full, scaledWidth, scaledHeight)
            }
            // Crop first, in the source, to the part that lands inside the target: fewer pixels
            // to resample, and the same result as resizing everything and cropping after.
            let outputWidth = min(width, scaledWidth), outputHeight = min(height, scaledHeight)
            let sourceWidth = min(imageWidth, Self.side(Double(outputWidth) / scale))
            let sourceHeight = min(imageHeight, Self.side(Double(outputHeight) / scale))
            let source = PixelRect(x: (imageWidth - sourceWidth) / 2, y: (imageHeight - sourceHeight) / 2,
                                   width: sourceWidth, height: sourceHeight)
            return (source, outputWidth, outputHeight)
        }

        /// A scaled side in whole pixels: at least 1, and never past what an `Int` holds.
        private static func side(_ length: Double) -> Int {
            max(1, Int(min(length, 1e15).rounded()))
        }

        /// A side given in (possibly fractional, possibly infinite) pixels as whole pixels:
        /// `nil` for infinite or absurdly large, 0 for none or less (rejected when processing).
        private static func pixels(_ length: Double) -> Int? {
            if length.isNaN || length <= 0 { return 0 }
            if length > 1e9 { return nil }
            return max(1, Int(length.rounded()))
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Resize {
    /// Scales to `width` and/or `height`, in points by default; see `ImageProcessors.Resize`.
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.resize(width: 100)])
    /// ImageRequest(url: url, processors: [.resize(width: 40, height: 40, crop: true)])
    /// ```
    public static func resize(width: CGFloat? = nil, height: CGFloat? = nil, unit: ImageUnit = .points, scale: Double? = nil,
                              contentMode: ImageContentMode = .aspectFill, crop: Bool = false, upscale: Bool = false) -> Self {
        ImageProcessors.Resize(width: width, height: height, unit: unit, scale: scale, contentMode: contentMode, crop: crop,
                               upscale: upscale)
    }

    /// Scales to `size`, in points by default; see `ImageProcessors.Resize`.
    ///
    /// ```swift
    /// ImageRequest(url: url, processors: [.resize(size: CGSize(width: 60, height: 60), crop: true)])
    /// ```
    public static func resize(size: CGSize, unit: ImageUnit = .points, scale: Double? = nil,
                              contentMode: ImageContentMode = .aspectFill, crop: Bool = false, upscale: Bool = false) -> Self {
        ImageProcessors.Resize(size: size, unit: unit, scale: scale, contentMode: contentMode, crop: crop, upscale: upscale)
    }
}
