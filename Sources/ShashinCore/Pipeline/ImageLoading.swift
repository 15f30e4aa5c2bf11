import Foundation

/// Loads the image at a URL: the one call that business-layer code (a view model, a presenter)
/// needs from an image loader. `ImagePipeline` conforms; a test hands the code a fake instead.
///
/// ```swift
/// @MainActor final class ProfileModel {
///     private let images: any ImageLoading
///     private(set) var avatar: PlatformImage?
///     init(images: any ImageLoading = ImagePipeline.shared) { self.images = images }
///     func load(_ url: URL) async throws { avatar = try await images.image(for: url) }
/// }
/// ```
public protocol ImageLoading: Sendable {
    /// Loads the image at `url`; throws `CancellationError` if the calling task is cancelled.
    func image(for url: URL) async throws -> PlatformImage
}

extension ImagePipeline: ImageLoading {}
