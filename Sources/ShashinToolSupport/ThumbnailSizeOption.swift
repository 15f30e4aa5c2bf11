import ArgumentParser
import Shashin

/// `--thumbnail`: the longest side of the thumbnails a command decodes (0: full size, where the
/// command allows it).
package struct ThumbnailSizeOption: ParsableArguments {
    @Option(help: "Longest side of each thumbnail, in pixels (0: full size).")
    package var thumbnail = 256

    package init() {}

    package func validate() throws {
        guard thumbnail >= 0 else { throw ValidationError("--thumbnail cannot be negative") }
    }

    /// The thumbnail options, or `nil` for full size (`--thumbnail 0`).
    package var options: ThumbnailOptions? {
        thumbnail > 0 ? ThumbnailOptions(maxPixelSize: thumbnail) : nil
    }
}
