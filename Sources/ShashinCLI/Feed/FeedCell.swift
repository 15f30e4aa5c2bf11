import Foundation
import Shashin

/// A headless cell of the feed: shows what it is told, like an image view, and reports every
/// change to the run's recorder. Cells are reused: `row` is the row it is configured for now.
@MainActor
final class FeedCell: ImageDisplaying {
    enum Content {
        case empty
        case placeholder
        /// A progressive preview of the row's image, not the image yet.
        case preview(Bitmap)
        case image(Bitmap)
        case failure
    }

    let id: Int
    private(set) var row: Int?
    private(set) var content = Content.empty
    /// Placeholders shown since the cell was created: a configure that raises it showed one.
    private(set) var placeholdersShown = 0
    /// The fingerprint of the image shown, when one is.
    private(set) var fingerprint: UInt64?
    private let onImage: (FeedCell, UInt64) -> Void
    private let onPreview: (FeedCell) -> Void

    init(id: Int, onImage: @escaping (FeedCell, UInt64) -> Void, onPreview: @escaping (FeedCell) -> Void) {
        self.id = id
        self.onImage = onImage
        self.onPreview = onPreview
    }

    func prepare(for row: Int) { self.row = row }

    func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ViewContentMode?) {
        // The pixels are what the demo checks; an image without a bitmap shows as a failure.
        guard let bitmap = Bitmap(platformImage: image) else { content = .failure; fingerprint = nil; return }
        content = .image(bitmap)
        let fingerprint = bitmap.fingerprint
        self.fingerprint = fingerprint
        onImage(self, fingerprint)
    }

    /// A preview is shown as its own state: it is neither the row's image (the wait goes on)
    /// nor another row's.
    func displayPreview(_ image: PlatformImage, contentMode: ViewContentMode?) {
        guard let bitmap = Bitmap(platformImage: image) else { content = .failure; fingerprint = nil; return }
        content = .preview(bitmap)
        fingerprint = nil
        onPreview(self)
    }

    func displayPlaceholder(_ placeholder: PlatformImage?) {
        content = .placeholder
        fingerprint = nil
        placeholdersShown += 1
    }

    func displayFailure(_ image: PlatformImage?, error: any Error) {
        content = .failure
        fingerprint = nil
    }

    func clearImage() {
        content = .empty
        fingerprint = nil
    }
}
