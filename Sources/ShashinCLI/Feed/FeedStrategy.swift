import Foundation
import ImageServer
import Shashin

/// One way of loading the feed's images, driven by the same scripted scroll as the others.
/// Calls come in the order a UIKit list makes them: `configure` for each cell that comes on
/// screen (like `cellForItemAt` during layout, a reused cell still loading its old row), then
/// `scrolled` with the rows now visible (the next `scrollViewDidScroll`, whose
/// `indexPathsForVisibleItems` is the layout just made).
@MainActor
protocol FeedStrategy: AnyObject {
    /// The key of the strategy in the report.
    var name: String { get }
    /// A cell now shows `row` (new, or reused from a row that left).
    func configure(_ cell: FeedCell, row: Int)
    /// The visible rows and how the list moves.
    func scrolled(visibleRows: [Int], scroll: ScrollState)
    /// Whether `row`'s image is in this strategy's memory cache now.
    func isInMemory(_ row: Int) -> Bool
    /// Where shown images came from (`network`, `memory`, ...), counted.
    var sources: [String: Int] { get }
    /// Loads that ended in an error (not cancelled): a row left with its failure.
    var failures: Int { get }
    /// The failures by kind of error.
    var failureKinds: [String: Int] { get }
    /// Download attempts beyond the first, summed over the images shown (a pipeline's
    /// `ImageTimings.attempts - 1`); 0 for a strategy that never retries.
    var retries: Int { get }
    /// Stops all work (the script is over).
    func finish() async
}

/// Which strategy, by name.
enum FeedStrategyKind: String, CaseIterable {
    /// Every cell starts its own URLSession load: no cancellation, no coalescing, no priority.
    case naive
    /// `ImageBinding` per cell on the pipeline, without the scroll-aware policy or prefetching.
    case pipeline
    /// `ImageBinding` + `VisibleItemsLoader` + `ImagePrefetcher`.
    case shashin
}
