/// Why a `VipsProcessing` step could not produce its image. The processors in `Shashin` turn it
/// into `ImagePipelineError.processingFailed` with their own identifier.
package struct VipsProcessingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong: libvips' message, or which argument was out of range.
    package let reason: String

    package init(_ reason: String) {
        self.reason = reason
    }

    package var description: String { reason }
}
