import Foundation
import ImageServer
import Shashin

/// The display layer as designed: an `ImageBinding` per cell, fed by a `VisibleItemsLoader`
/// (the landing window predicted when the finger lifts loads from the lift, or within the
/// policy's lead time before the fling slows, the rows flown past do not, visible rows at high
/// priority when the list slows, prefetching ahead, rows that left kept at the lowest priority,
/// then cancelled) with its `ImagePrefetcher`. The scroll states
/// carry the landing the script predicted at each lift, as UIKit's `targetContentOffset` would.
@MainActor
final class ShashinFeedStrategy: FeedStrategy {
    let name = "shashin"
    var sources: [String: Int] { cells.sources }
    var failures: Int { cells.failures }
    var failureKinds: [String: Int] { cells.failureKinds }
    var retries: Int { cells.retries }
    private let cells: PipelineFeedStrategy
    let loader: VisibleItemsLoader<Int>

    init(catalog: FeedCatalog, server: ImageServer, pipeline: ImagePipeline, policy: VisibleItemsLoader<Int>.Policy) {
        cells = PipelineFeedStrategy(catalog: catalog, server: server, pipeline: pipeline)
        loader = VisibleItemsLoader(pipeline: pipeline, items: Array(0..<catalog.rows), policy: policy) { row in
            catalog.request(for: row, on: server)
        }
    }

    func configure(_ cell: FeedCell, row: Int) {
        loader.display(row, in: cells.binding(for: cell))
    }

    func scrolled(visibleRows: [Int], scroll: ScrollState) {
        loader.update(visibleItems: visibleRows, scroll: scroll)
    }

    func isInMemory(_ row: Int) -> Bool { cells.isInMemory(row) }

    func finish() async {
        loader.stop()
        await cells.finish()
    }
}
