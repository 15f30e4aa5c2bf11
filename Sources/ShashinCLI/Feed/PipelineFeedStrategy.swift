import Foundation
import ImageServer
import Shashin

/// The pipeline without the scroll-aware policy: an `ImageBinding` per cell loads every row a
/// cell is configured for at once (cancelling the cell's previous row, sharing and prioritising
/// work, showing memory hits in the same frame), with no deferral and no prefetching.
@MainActor
final class PipelineFeedStrategy: FeedStrategy {
    let name = "pipeline"
    private(set) var sources: [String: Int] = [:]
    let pipeline: ImagePipeline
    private let catalog: FeedCatalog
    private let server: ImageServer
    private var bindings: [Int: ImageBinding] = [:]

    init(catalog: FeedCatalog, server: ImageServer, pipeline: ImagePipeline) {
        self.catalog = catalog
        self.server = server
        self.pipeline = pipeline
    }

    func binding(for cell: FeedCell) -> ImageBinding {
        if let binding = bindings[cell.id] { return binding }
        let binding = ImageBinding(target: cell, pipeline: pipeline)
        binding.onCompletion = { [weak self] result in
            if case .success(let response) = result { self?.sources[response.source.rawValue, default: 0] += 1 }
        }
        bindings[cell.id] = binding
        return binding
    }

    func configure(_ cell: FeedCell, row: Int) {
        binding(for: cell).setRequest(catalog.request(for: row, on: server))
    }

    func scrolled(visibleRows: [Int], scroll: ScrollState) {}

    func isInMemory(_ row: Int) -> Bool {
        pipeline.cachedImage(for: catalog.request(for: row, on: server)) != nil
    }

    func finish() async {
        for binding in bindings.values { binding.setRequest(nil) }
    }
}
