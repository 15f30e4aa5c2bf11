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
    private(set) var failures = 0
    private(set) var retries = 0
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
            guard let self else { return }
            switch result {
            case .success(let response):
                sources[response.source.rawValue, default: 0] += 1
                retries += max(0, response.timings.attempts - 1)
            case .failure:
                failures += 1 // a binding reports no cancellation here
            }
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
