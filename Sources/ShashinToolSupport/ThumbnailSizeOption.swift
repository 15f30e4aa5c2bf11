import ArgumentParser
import Shashin

/// `--thumbnail`: the longest side of the thumbnails a command decodes, 0 for full size.
package struct ThumbnailSizeOption: ParsableArguments {
    @Option(name: .customLong("thumbnail"), help: "Longest side of each thumbnail, in pixels (0: full size).")
    package var maxPixelSize = 256

    package init() {}

    package func validate() throws {
        guard maxPixelSize >= 0 else { throw ValidationError("--thumbnail cannot be negative") }
    }

    /// The thumbnail options, or `nil` for full size (`--thumbnail 0`).
    package var options: ThumbnailOptions? {
        maxPixelSize > 0 ? ThumbnailOptions(maxPixelSize: maxPixelSize) : nil
    }
}
