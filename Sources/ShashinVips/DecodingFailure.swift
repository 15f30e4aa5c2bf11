import ShashinCore

/// A libvips decode that failed at one step, with the lines libvips left for it; becomes the
/// `reason` of `ImagePipelineError.decodingFailed`.
struct DecodingFailure: Error {
    /// The step of a decode, as its message names it.
    enum Stage: CaseIterable {
        /// Checking the data before any library reads it (`PNGChunkGuard`).
        case checking
        /// Opening the data and reading its header (size, bands, metadata).
        case header
        /// Opening the data again to shrink it while decoding (JPEG's DCT, WebP's scaling).
        case shrinkOnLoad
        /// Opening the data again for random access, to turn it upright.
        case reopen
        /// Resizing to the thumbnail's size.
        case thumbnail
        /// Turning upright and converting to 8-bit sRGB with four bands.
        case conversion
        /// Decoding the pixels (where a lazily loaded image actually reads its data).
        case pixels

        /// What was being done, in words, for an image in `format`.
        func description(_ format: String) -> String {
            switch self {
            case .checking: "checking the \(format) chunks"
            case .header: "reading the \(format) header"
            case .shrinkOnLoad: "opening the \(format) data to shrink it while decoding"
            case .reopen: "opening the \(format) data for random access"
            case .thumbnail: "resizing the \(format) image to the thumbnail size"
            case .conversion: "converting the \(format) image to 8-bit sRGB RGBA"
            case .pixels: "decoding the \(format) pixels"
            }
        }
    }

    let stage: Stage
    /// What libvips' error buffer held for this failure.
    let libvipsLines: [String]

    /// The sentence for `decodingFailed`: the format, the step, and what the libraries said —
    /// `warnings` are libvips' warnings on this thread, where libvips puts libpng's words — or
    /// that they gave no reason.
    func reason(format: ImageFormat, warnings: [String]) -> String {
        let name = format.displayName
        var said: [String] = []
        if !warnings.isEmpty {
            // libvips 8.14 sends libpng's errors to its warnings; other loaders warn in their own words.
            let source = format == .png ? "libpng said" : "libvips warned"
            said.append("\(source) \"\(warnings.joined(separator: "; "))\"")
        }
        let lines = libvipsLines.filter { !warnings.contains($0) }
        if !lines.isEmpty {
            said.append("libvips said \"\(lines.joined(separator: "; "))\"")
        }
        let words = said.isEmpty ? VipsError.noReason : said.joined(separator: "; ")
        return "while \(stage.description(name)): \(words)"
    }
}

extension ImageFormat {
    /// The format as people write it: PNG, JPEG, WebP, GIF, HEIC, AVIF, BMP, TIFF.
    var displayName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .heic: "HEIC"
        case .avif: "AVIF"
        case .bmp: "BMP"
        case .tiff: "TIFF"
        }
    }
}
