import Foundation
import Shashin
import ShashinToolSupport

/// What the soak does with one request, drawn in advance from the run's seed: which URL, which
/// variant (original, thumbnail, processed), cache policy, priority, when to change the priority
/// and whether and when to cancel.
struct SoakRequestPlan: Sendable {
    enum Variant: String, Sendable, CaseIterable {
        case original
        case thumbnail
        case processed
    }

    /// How a cancellation reaches the task.
    enum CancelStyle: Sendable {
        /// `ImageTask.cancel()`.
        case task
        /// Cancelling the Swift `Task` that awaits the response.
        case awaitingTask
    }

    let ordinal: Int
    let entry: SoakCatalog.Entry
    let variant: Variant
    /// The request's cache options: none, or one of the cache policies.
    let cacheOptions: ImageRequest.Options
    let priority: ImageRequest.Priority
    /// Priority changes, each after a delay from the start of the request.
    let priorityChanges: [(after: Duration, to: ImageRequest.Priority)]
    /// When to cancel, counted from the start of the request; `nil`: never.
    let cancel: (after: Duration, style: CancelStyle)?

    /// Thumbnails are 48 px on their longest side.
    static let thumbnail = ThumbnailOptions(maxPixelSize: 48)

    /// A few processor chains; each result is stored on disk under a "processed" key.
    static let processorChains: [[any ImageProcessing]] = [
        [.resize(width: 32, height: 32, crop: true)],
        [.resize(width: 40, height: 30, crop: true), .roundedCorners(radius: 4)],
        [.circle],
    ]

    var request: ImageRequest {
        switch variant {
        case .original:
            ImageRequest(url: entry.url, priority: priority, options: cacheOptions)
        case .thumbnail:
            ImageRequest(url: entry.url, thumbnail: Self.thumbnail, priority: priority, options: cacheOptions)
        case .processed:
            ImageRequest(url: entry.url, processors: Self.processorChains[ordinal % Self.processorChains.count],
                         priority: priority, options: cacheOptions)
        }
    }

    /// Draws `count` plans: 30% of the URLs' traffic goes to a hot set (coalescing, memory hits),
    /// the rest is spread over all of them; `cancelRatio` of the requests are cancelled at a random
    /// moment (a third at once, a third within 20 ms, a third within half a second); a quarter
    /// change their priority once or twice. The first `warmUp` requests visit every URL once (in
    /// random order) if they can, so caches and the server's per-URL counters fill during warm-up.
    static func make(count: Int, catalog: SoakCatalog, cancelRatio: Double, coveringEveryURLWithin warmUp: Int,
                     seed: UInt64) -> [SoakRequestPlan] {
        var random = SplitMix64(seed: seed)
        let entries = catalog.entries
        let hotCount = max(1, min(100, entries.count / 10))
        let priorities = ImageRequest.Priority.allCases
        let tour = entries.count <= warmUp ? entries.shuffled(using: &random) : []
        return (0..<count).map { ordinal in
            let entry = ordinal < tour.count ? tour[ordinal]
                : Double.random(in: 0..<1, using: &random) < 0.3
                ? entries[Int.random(in: 0..<hotCount, using: &random)]
                : entries[Int.random(in: 0..<entries.count, using: &random)]
            let roll = Double.random(in: 0..<1, using: &random)
            let variant: Variant = roll < 0.65 ? .original : roll < 0.9 ? .thumbnail : .processed
            let policyRoll = Double.random(in: 0..<1, using: &random)
            let cacheOptions: ImageRequest.Options = switch policyRoll {
            case ..<0.10: .reloadIgnoringCachedData
            case ..<0.14: .reloadRevalidatingCachedData
            case ..<0.19: .returnCacheDataElseLoad
            case ..<0.21: .returnCacheDataDontLoad
            default: []
            }
            var changes: [(after: Duration, to: ImageRequest.Priority)] = []
            if Double.random(in: 0..<1, using: &random) < 0.25 {
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    changes.append((.milliseconds(Int.random(in: 0...300, using: &random)), priorities.randomElement(using: &random)!))
                }
            }
            var cancel: (after: Duration, style: CancelStyle)?
            if Double.random(in: 0..<1, using: &random) < cancelRatio {
                let moment = Int.random(in: 0..<3, using: &random)
                let after: Duration = switch moment {
                case 0: .zero
                case 1: .microseconds(Int.random(in: 0...20_000, using: &random))
                default: .milliseconds(Int.random(in: 20...500, using: &random))
                }
                cancel = (after, Bool.random(using: &random) ? .task : .awaitingTask)
            }
            return SoakRequestPlan(ordinal: ordinal, entry: entry, variant: variant, cacheOptions: cacheOptions,
                                   priority: priorities.randomElement(using: &random)!,
                                   priorityChanges: changes, cancel: cancel)
        }
    }
}
