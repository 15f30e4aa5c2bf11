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
    /// The failures by kind of error, such as `truncatedData` or `networkFailure -1011`.
    private(set) var failureKinds: [String: Int] = [:]
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
        let binding = ImageBinding(target: cell, options: ImageLoadingOptions(pipeline: pipeline))
        binding.onCompletion = { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let response):
                sources[response.loadedFrom, default: 0] += 1
                retries += max(0, response.timings.attempts - 1)
            case .failure(let error):
                failures += 1 // a binding reports no cancellation here
                failureKinds[Self.kind(of: error), default: 0] += 1
            }
        }
        bindings[cell.id] = binding
        return binding
    }

    /// A short name for `error`'s kind: `URLError` and its code, the case of an
    /// `ImagePipelineError` (with the status of an HTTP one), or the error's type.
    static func kind(of error: any Error) -> String {
        if let error = error as? URLError { return "URLError \(error.code.rawValue)" }
        guard let error = error as? ImagePipelineError else { return String(describing: type(of: error)) }
        switch error {
        case .httpStatus(let status): return "httpStatus \(status)"
        default: return Mirror(reflecting: error).children.first?.label ?? String(describing: error)
        }
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
