import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin

/// The baseline the older articles teach: each cell starts a `URLSession` data task, decodes
/// the bytes in the completion handler and sets the cell's image — no cancellation when the cell
/// is reused, no coalescing, no priorities. It keeps decoded images in a dictionary and shows
/// one at once when it has it (the article's `NSCache`).
@MainActor
final class NaiveFeedStrategy: FeedStrategy {
    let name = "naive"
    private(set) var sources: [String: Int] = [:]
    private(set) var failures = 0
    /// Naive loads fail silently: no kinds are told apart.
    var failureKinds: [String: Int] { failures > 0 ? ["any": failures] : [:] }
    /// A data task is never tried again.
    let retries = 0
    private let catalog: FeedCatalog
    private let server: ImageServer
    /// No `URLCache` (Foundation on Linux keeps one on disk for default sessions): the baseline
    /// caches nothing but its dictionary, so every round and every run of it starts cold.
    private let session: URLSession = {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()
    private var cache: [Int: Bitmap] = [:]

    init(catalog: FeedCatalog, server: ImageServer) {
        self.catalog = catalog
        self.server = server
    }

    func configure(_ cell: FeedCell, row: Int) {
        if let image = cache[row] {
            sources["memory", default: 0] += 1
            cell.display(image.platformImage, transition: .immediate, contentMode: nil)
            return
        }
        cell.displayPlaceholder(nil)
        let thumbnail = catalog.thumbnail
        let task = session.dataTask(with: catalog.url(of: row, on: server)) { data, _, error in
            guard let data, error == nil, let image = try? FeedCatalog.decode(data, thumbnail: thumbnail) else {
                // Only `finish` cancels a naive load, after the run's figures are taken.
                Task { @MainActor in self.failures += 1 }
                return
            }
            Task { @MainActor in
                self.cache[row] = image
                self.sources["network", default: 0] += 1
                cell.display(image.platformImage, transition: .fade(duration: 0.25), contentMode: nil) // whatever row the cell shows now
            }
        }
        task.resume()
    }

    func scrolled(visibleRows: [Int], scroll: ScrollState) {}

    func isInMemory(_ row: Int) -> Bool { cache[row] != nil }

    func finish() async {
        session.invalidateAndCancel()
    }
}
