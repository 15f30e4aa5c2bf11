import Foundation

/// Decides, as a list scrolls, which images to load, which to defer and which to give up:
/// scroll-aware lazy loading without swizzling and without a base view controller.
///
/// Tell it which items are visible and how the list moves (``update(visibleItems:scroll:)``,
/// on every scroll callback), and give it each cell's ``ImageBinding`` when the cell is
/// configured (``display(_:in:)``). With the default ``Policy``:
/// - during a fast fling, cells that fly past show memory-cache hits at once (also an image
///   that reaches memory while its row is on screen) but start no network work (their requests
///   wait as ``ImageBinding/State/deferred``);
/// - when a fling's resting place is known (``ScrollState/predictedRestingOffset``, from the
///   moment the finger lifts), the items of that landing window load at high priority, from
///   disk or the network, each once it is likely enough to be on screen when the list rests
///   (``Policy/landingThreshold``): the middle of the window first, the rest as the list nears
///   it (``Policy/landingUncertainty``; ``Policy/landingLeadTime`` can hold them back further);
///   the items in between do not load, except a disk-cache hit on screen while the decode
///   queue is idle, nor do the items on screen the list glides away from as it slows, beyond
///   ``Policy/landingMargin``; nothing is prefetched beyond the landing;
/// - when the prediction changes (a next flick, or a finger catching the list), the landing
///   items no longer likely are cancelled at once; what they downloaded stays for resuming;
/// - when the list slows down with no landing predicted, or stops, the visible items load at
///   high priority;
/// - while the list moves slowly, the items it would still reach if let go now (up to
///   ``Policy/prefetchDistance``) are prefetched at low priority; at rest only the items ahead
///   whose images are on disk (no network bytes);
/// - items off screen that still load — those that left, and cells a collection view configured
///   ahead of time — drop below the visible ones (``Policy/prefetchPriority`` ahead,
///   ``Policy/leftPriority`` otherwise) and are cancelled once they are more than
///   ``Policy/keepDistance`` items away; a row that left keeps its download even when its cell
///   is reused at once, and a row that comes back during a fling joins that download.
///
/// ```swift
/// let loader = VisibleItemsLoader<Post.ID>(pipeline: pipeline, items: posts.map(\.id)) { id in
///     ImageRequest(url: posts[id].imageURL, thumbnail: .init(maxPixelSize: 300))
/// }
/// // configuring a cell:        loader.display(post.id, in: cell.imageBinding)
/// // on every scroll callback:   loader.update(visibleItems: visibleIDs, scroll: ScrollState(phase: .decelerating, velocity: v))
/// ```
///
/// Like ``ImageBinding``, a loader lives on the main actor.
@MainActor
public final class VisibleItemsLoader<ID: Hashable & Sendable> {
    /// What the loader does as the list moves; every part can be changed.
    public struct Policy: Sendable {
        /// Whether fast scrolling defers network work (memory hits still show). Default `true`.
        /// Disk-cache hits of rows that fly past wait too, unless the decode queue is idle:
        /// decoding one takes tens of milliseconds of the CPU the scrolling needs, for rows gone
        /// before it ends. Rows on or near the predicted landing window load regardless.
        public var defersNetworkWhileScrollingFast = true
        /// Whether a fling's predicted landing (``ScrollState/predictedRestingOffset``) loads
        /// during the fling, at ``visiblePriority``, each row once it is likely enough to be on
        /// screen at rest (``landingThreshold``). Default `true`.
        public var loadsPredictedLanding = true
        /// How long (seconds) before a fling slows below ``fastScrollVelocity`` its predicted
        /// landing starts loading. Default `.infinity`: at the lift, the moment the prediction
        /// is known, so the landing rows have the whole fling to arrive. A finite lead saves
        /// bytes: a fast flick coasts for over a second before it slows, and a flick that
        /// follows soon or a finger that catches the list replaces the prediction, so a landing
        /// held back until the fling is within the lead of slowing is never requested for those;
        /// the landing rows then have less time (the list still coasts about
        /// ``fastScrollVelocity``·τ, six items at the default, after slowing). The time is
        /// reckoned from the velocity under ``ScrollState/normalDecelerationRate``.
        public var landingLeadTime = Double.infinity
        /// How likely (0–1) a row of a predicted landing window must be to be on screen when the
        /// list comes to rest before it loads during the fling; rows load likeliest first.
        /// Default 0.8. The likelihood rises as the list nears its landing (see
        /// ``landingUncertainty``): the middle of the window loads first, the edges as the list
        /// nears them, so a flick that the next one replaces, or that a finger catches, has
        /// spent fewer bytes. 0 loads the whole window at the lift; higher values spend fewer
        /// bytes on landings that do not happen, and leave less time for those that do.
        public var landingThreshold = 0.8
        /// How far the resting place may fall from the prediction, as a fraction of the distance
        /// the list still has to travel (the standard deviation of a normal error). Default 0.05.
        /// The prediction for a fling nobody touches is exact; this stands for the flicks and
        /// catches that replace it, which a longer way to go leaves more time for. 0 trusts the
        /// prediction fully (every row of the window is certain).
        public var landingUncertainty = 0.05
        /// Items on either side of the predicted landing window that count as near it: on screen
        /// during a fling, they load like the landing items. Default 2.
        public var landingMargin = 2
        /// Items per second above which scrolling counts as fast. Default 12 (a feed of
        /// 100-point rows scrolled faster than 1,200 points a second).
        public var fastScrollVelocity = 12.0
        /// The most items ahead in the scroll direction to prefetch while the list moves slowly
        /// (a drag, or a deceleration below ``fastScrollVelocity`` with no landing predicted);
        /// 0 turns prefetching off. Default 6. Prefetching reaches as far as the list would still
        /// travel if the finger lifted now (|velocity|·τ, about half a second of the motion), and
        /// a fling with a predicted landing prefetches nothing beyond it: those rows come on
        /// screen only if the user moves again. At rest, only items whose images are on disk
        /// are prefetched (in the last scroll direction): they cost no network bytes.
        public var prefetchDistance = 6
        /// How far (in items beyond the visible ones) an item that left the screen keeps
        /// loading, at ``leftPriority``; farther, its load is cancelled. Default 8.
        public var keepDistance = 8
        /// The priority of visible items. Default `.high`.
        public var visiblePriority: ImageRequest.Priority = .high
        /// The priority of prefetched items. Default `.low`.
        public var prefetchPriority: ImageRequest.Priority = .low
        /// The priority of items that left the screen while loading. Default `.veryLow`.
        public var leftPriority: ImageRequest.Priority = .veryLow

        /// The default policy.
        public init() {}
    }

    /// The pipeline images load through.
    public let pipeline: ImagePipeline
    /// Prefetches the items ahead and keeps loading those that just left.
    public let prefetcher: ImagePrefetcher
    /// What the loader does as the list moves; changes apply from the next update.
    public var policy: Policy
    /// Every item in list order: what "ahead" and "distance" mean. Set it when the data changes.
    public var items: [ID] { didSet { reindex(); diskAheadAtRest = nil } }
    /// The items visible at the last update, in list order.
    public private(set) var visibleItems: [ID] = []
    /// The scroll state at the last update.
    public private(set) var scroll: ScrollState = .idle

    private let makeRequest: (ID) -> ImageRequest?
    private var indexOf: [ID: Int] = [:]
    private var direction = 1
    /// The binding showing each item, and the item each binding shows.
    private var bindings: [ID: WeakBinding] = [:]
    private var itemOfBinding: [ObjectIdentifier: ID] = [:]
    /// Items prefetched ahead, and the loads the loader holds for items that left the screen
    /// (their cells may be reused at once; the download they started goes on at low priority).
    private var ahead: [ID: ImageRequest] = [:]
    private var behind: [ID: ImageTask] = [:]
    /// The loader's own loads of predicted landing items not yet bound to a cell.
    private var landing: [ID: ImageTask] = [:]
    /// The predicted landing window at the last update, as indices into ``items``.
    private var landingWindow: ClosedRange<Int>?
    /// A disk-cache hit of an item flying past, started while the decode queue was idle: at
    /// most one at a time.
    private var flyPastDiskLoad: ID?
    /// The items ahead found on disk at the current resting place (see `diskItemsAhead(of:)`);
    /// forgotten once the list moves.
    private var diskAheadAtRest: (range: ClosedRange<Int>, direction: Int, distance: Int, items: [ID])?

    /// Creates a loader.
    /// - Parameters:
    ///   - pipeline: where images load; default `ImagePipeline.shared`.
    ///   - items: every item in list order; can be set later.
    ///   - policy: what to do as the list moves; default ``Policy/init()``.
    ///   - prefetcher: the prefetcher to use; default a new one on `pipeline`, at most 2 at once.
    ///   - request: the image request of an item; `nil` for an item without an image.
    public init(pipeline: ImagePipeline = .shared, items: [ID] = [], policy: Policy = Policy(),
                prefetcher: ImagePrefetcher? = nil, request: @escaping (ID) -> ImageRequest?) {
        self.pipeline = pipeline
        self.items = items
        self.policy = policy
        self.prefetcher = prefetcher ?? ImagePrefetcher(pipeline: pipeline)
        self.makeRequest = request
        reindex()
    }

    deinit {
        prefetcher.stopPrefetching(with: Array(ahead.values))
        for task in behind.values { task.cancel() }
        for task in landing.values { task.cancel() }
    }

    /// Whether network work may start now: not while scrolling fast (under the policy).
    public var allowsNetwork: Bool {
        !(policy.defersNetworkWhileScrollingFast && scroll.phase != .idle
            && abs(scroll.velocity) >= policy.fastScrollVelocity)
    }

    /// Items being prefetched ahead of the visible ones.
    public var prefetchingItems: Set<ID> { Set(ahead.keys) }
    /// Items that left the screen and still load, at ``Policy/leftPriority``.
    public var leavingItems: Set<ID> { Set(behind.filter { !$0.value.isFinished }.keys) }
    /// Items of a predicted landing window (or of an earlier one, not yet cancelled) that the
    /// loader loads itself because no cell shows them yet.
    public var landingItems: Set<ID> { Set(landing.filter { !$0.value.isFinished }.keys) }
    /// The position of `id` in ``items``: the unit of ``ScrollState/predictedRestingOffset``.
    public func index(of id: ID) -> Int? { indexOf[id] }
    /// The priority of the loader's own load of landing item `id`, or `nil` when it holds none.
    func landingPriority(of id: ID) -> ImageRequest.Priority? {
        landing[id].flatMap { $0.isFinished ? nil : $0.priority }
    }

    /// The items of the predicted landing window at the last update; empty when no landing is
    /// known (at rest, while dragging, or with ``Policy/loadsPredictedLanding`` off).
    public var predictedLandingItems: [ID] { landingWindow.map { $0.map { items[$0] } } ?? [] }
    /// The items of the predicted landing window the last update wanted loaded (likely enough to
    /// be on screen at rest, and due), likeliest first: the order their loads were started in.
    private(set) var wantedLandingItems: [ID] = []

    /// Shows item `id` through `binding` (a cell's, as the cell is configured or reused), on the
    /// loader's pipeline (it becomes the binding's `options.pipeline`): a
    /// memory hit at once; otherwise a load at ``Policy/visiblePriority``, or a deferred request
    /// while scrolling fast — unless the item's image is already downloading for the loader (a
    /// prefetch, or a row that left and came back), which the binding then joins at that work's
    /// priority.
    ///
    /// Call it before or after the ``update(visibleItems:scroll:)`` that reports the
    /// item visible: UIKit configures a reused cell before the scroll callback that follows. When
    /// `binding` still loads another item, the loader keeps that download going at
    /// ``Policy/leftPriority`` (like any row that left) before the binding moves on.
    public func display(_ id: ID, in binding: ImageBinding) {
        // The loader's prefetches and holds are on its pipeline: the binding joins them there.
        binding.options.pipeline = pipeline
        let key = ObjectIdentifier(binding)
        if let previous = itemOfBinding[key], bindings[previous]?.binding === binding, previous != id {
            bindings[previous] = nil
            keepLoading(previous, from: binding)
        }
        guard var request = makeRequest(id) else {
            itemOfBinding[key] = nil
            binding.setRequest(nil)
            return
        }
        request.priority = policy.visiblePriority
        let inFlight = heldWorkPriority(for: id)
        binding.setRequest(request, deferringNetwork: !loadsOnScreen(id))
        // Scrolling fast, yet the image is already on its way: join it rather than drop it.
        if binding.state == .deferred, let inFlight { binding.startDeferredLoad(priority: inFlight) }
        bindings[id] = WeakBinding(binding: binding)
        itemOfBinding[key] = id
        // After the binding joined the work: a prefetch or kept load in flight hands its download over.
        releaseHolds(of: id)
    }

    /// Tells the loader what is visible (in any order) and how the list moves; call it on every
    /// scroll callback and when scrolling ends.
    public func update(visibleItems: [ID], scroll: ScrollState) {
        let previous = Set(self.visibleItems)
        let visible = visibleItems.sorted { (indexOf[$0] ?? .max) < (indexOf[$1] ?? .max) }
        let visibleSet = Set(visible)
        self.visibleItems = visible
        let previousLanding = self.scroll.predictedRestingOffset
        self.scroll = scroll
        if scroll.phase != .idle { diskAheadAtRest = nil }
        if scroll.velocity > 0 { direction = 1 } else if scroll.velocity < 0 { direction = -1 }
        let range = visibleRange()
        landingWindow = predictedLandingWindow(scroll, visibleCount: range?.count ?? visibleItems.count)
        // Prefetching goes only where the motion leads: not beyond a predicted landing (the list
        // stops there), not at rest, and not while the list flies fast.
        let wantedAhead = allowsNetwork ? aheadItems(from: range, scroll: scroll) : []
        let wantedAheadSet = Set(wantedAhead)
        // The landing rows likely enough to be on screen at rest, likeliest first.
        let wantedLanding = landingIsDue(scroll) ? likelyLandingItems(scroll, from: range) : []
        let wantedLandingSet = Set(wantedLanding)
        wantedLandingItems = wantedLanding

        // Items that left while loading: keep them going, last in line, even when their cells
        // are reused...
        for id in previous.subtracting(visibleSet) where behind[id] == nil {
            guard let binding = bindings[id]?.binding else { continue }
            keepLoading(id, from: binding)
        }

        // Every bound item off screen (one that left, or a cell a collection view configured
        // ahead of time) loads below the visible ones, or not at all once too far away.
        var forgot = false
        for id in Array(bindings.keys) where !visibleSet.contains(id) {
            guard let binding = bindings[id]?.binding else {
                bindings[id] = nil // its cell is gone
                forgot = true
                continue
            }
            guard binding.state == .loading else { continue }
            if distance(of: id, from: range) > policy.keepDistance {
                binding.cancel()
                continue
            }
            let priority = wantedLandingSet.contains(id) ? policy.visiblePriority
                : wantedAheadSet.contains(id) ? policy.prefetchPriority : policy.leftPriority
            if binding.priority != priority { binding.priority = priority }
        }

        if forgot { itemOfBinding = itemOfBinding.filter { bindings[$0.value]?.binding.map(ObjectIdentifier.init) == $0.key } }

        // ...until they are too far away.
        for (id, task) in behind where !visibleSet.contains(id) && (task.isFinished || distance(of: id, from: range) > policy.keepDistance) {
            behind[id] = nil
            task.cancel()
        }

        // Landing items no longer wanted (the prediction changed, or a finger caught the list):
        // cancelled at once, unless the slow motion now leads to them. What already arrived stays
        // for the pipeline to resume from, should the row come on screen after all. One started
        // for a prediction that still stands keeps loading while it is in the window or just past
        // it: the window's last row comes and goes as partly visible rows change the count, and
        // cancelling it there would restart it at the next frame.
        let landingStands = landingIsDue(scroll) && scroll.predictedRestingOffset == previousLanding
        for (id, task) in landing where !wantedLandingSet.contains(id) && !visibleSet.contains(id) {
            if !task.isFinished, landingStands, let window = landingWindow, let index = indexOf[id],
               window.lowerBound...(window.upperBound + 1) ~= index {
                if task.priority != policy.visiblePriority { task.priority = policy.visiblePriority }
                continue
            }
            if task.isFinished || !wantedAheadSet.contains(id) {
                landing[id] = nil
                task.cancel()
                continue
            }
            if task.priority != policy.prefetchPriority { task.priority = policy.prefetchPriority }
        }
        // The landing window loads now, unless a cell already loads an item or memory has it.
        for id in wantedLanding where !visibleSet.contains(id) {
            if let task = landing[id], !task.isFinished {
                if task.priority != policy.visiblePriority { task.priority = policy.visiblePriority }
                continue
            }
            if let binding = bindings[id]?.binding, binding.state == .loading { continue }
            if let task = behind.removeValue(forKey: id), !task.isFinished {
                task.priority = policy.visiblePriority
                landing[id] = task
                continue
            }
            guard var request = makeRequest(id) else { continue }
            request.priority = policy.visiblePriority
            if case .inProgress(let task) = pipeline.loadImage(request) { landing[id] = task }
        }

        // A prefetch whose item came on screen waits for the cell's binding to join it.
        var dropped: [ImageRequest] = []
        for (id, request) in ahead where !wantedAheadSet.contains(id) && !visibleSet.contains(id) {
            ahead[id] = nil
            dropped.append(request)
        }
        if !dropped.isEmpty { prefetcher.stopPrefetching(with: dropped) }

        if let id = flyPastDiskLoad, bindings[id]?.binding?.state != .loading { flyPastDiskLoad = nil }
        for id in visible {
            guard let binding = bindings[id]?.binding else { continue }
            if loadsOnScreen(id) {
                switch binding.state {
                case .deferred: binding.startDeferredLoad(priority: policy.visiblePriority)
                case .loading where binding.priority != policy.visiblePriority: binding.priority = policy.visiblePriority
                default: break
                }
            } else if binding.state == .deferred, let request = binding.request {
                // Still flying: an image another load brought into memory shows now.
                binding.setRequest(request, deferringNetwork: true)
                // A disk hit flying past loads only when decoding has nothing else to do.
                if binding.state == .deferred, flyPastDiskLoad == nil, pipeline.isDecodeIdle,
                   pipeline.hasOriginalOnDisk(request) {
                    binding.startDeferredLoad(priority: policy.prefetchPriority)
                    flyPastDiskLoad = id
                }
            }
            // A visible item its cell still loads (or shows) needs no hold of the loader's.
            if binding.state != .deferred { releaseHolds(of: id) }
        }
        guard allowsNetwork else { return }
        var prefetch: [ImageRequest] = []
        for id in wantedAhead where ahead[id] == nil && landing[id] == nil && bindings[id]?.binding == nil {
            guard var request = makeRequest(id) else { continue }
            request.priority = policy.prefetchPriority
            ahead[id] = request
            prefetch.append(request)
        }
        if !prefetch.isEmpty { prefetcher.startPrefetching(with: prefetch, priority: policy.prefetchPriority) }
    }

    /// Stops every prefetch and every deferred or kept load; visible bindings keep theirs.
    public func stop() {
        prefetcher.stopPrefetching(with: Array(ahead.values))
        for task in behind.values { task.cancel() }
        for task in landing.values { task.cancel() }
        ahead = [:]
        behind = [:]
        landing = [:]
    }

    // MARK: Private

    /// Cells own their bindings; the loader only points at them. Keep the weak reference the only
    /// field: with a second stored field, `bindings[missing]?.binding` crashes in
    /// `swift_weakLoadStrong` in -Onone builds (Swift 6.3.1 on Linux, reproduced standalone).
    private struct WeakBinding {
        weak var binding: ImageBinding?
    }

    /// Holds the download `binding` runs for `id` at ``Policy/leftPriority``, so it goes on when
    /// the binding moves to another item (until ``update(visibleItems:scroll:)`` finds
    /// the item too far away).
    private func keepLoading(_ id: ID, from binding: ImageBinding) {
        guard behind[id] == nil, binding.state == .loading, var request = binding.request else { return }
        binding.priority = policy.leftPriority
        request.priority = policy.leftPriority
        // The hold joins the binding's job before the binding's cancellation reaches the graph
        // (each reaches it on this thread, in this order), so the download is never dropped.
        if case .inProgress(let task) = pipeline.loadImage(request) { behind[id] = task }
    }

    /// The priority of the loader's own work for `id` in flight (a kept load or a running
    /// prefetch), or `nil` when there is none.
    private func heldWorkPriority(for id: ID) -> ImageRequest.Priority? {
        if let task = landing[id], !task.isFinished { return task.priority }
        if let task = behind[id], !task.isFinished { return policy.leftPriority }
        if let request = ahead[id], prefetcher.isLoading(request) { return policy.prefetchPriority }
        return nil
    }

    /// Lets go of the loader's own work for `id`: a binding that loads the item has joined it.
    private func releaseHolds(of id: ID) {
        if let request = ahead.removeValue(forKey: id) { prefetcher.stopPrefetching(with: [request]) }
        behind.removeValue(forKey: id)?.cancel()
        landing.removeValue(forKey: id)?.cancel()
    }

    private func reindex() {
        indexOf = Dictionary(items.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }

    private func visibleRange() -> ClosedRange<Int>? {
        let indices = visibleItems.compactMap { indexOf[$0] }
        guard let low = indices.min(), let high = indices.max() else { return nil }
        return low...high
    }

    /// How many items `id` lies beyond `range` (the visible items) or, nearer, beyond the
    /// predicted landing window.
    private func distance(of id: ID, from range: ClosedRange<Int>?) -> Int {
        guard let index = indexOf[id] else { return .max }
        return min(Self.distance(of: index, from: range), Self.distance(of: index, from: landingWindow))
    }

    private static func distance(of index: Int, from range: ClosedRange<Int>?) -> Int {
        guard let range else { return .max }
        if index < range.lowerBound { return range.lowerBound - index }
        if index > range.upperBound { return index - range.upperBound }
        return 0
    }

    /// Whether visible item `id` may load now: anything while the list is slow with no landing
    /// predicted, and otherwise the items in or near the landing window. A row the list is
    /// gliding away from as it slows toward its landing leaves the screen before its image could
    /// arrive, so it waits (a memory hit still shows).
    private func loadsOnScreen(_ id: ID) -> Bool {
        (allowsNetwork && landingWindow == nil) || isNearLanding(id)
    }

    /// Whether `id` is in the predicted landing window or within ``Policy/landingMargin`` of it.
    private func isNearLanding(_ id: ID) -> Bool {
        guard landingWindow != nil, let index = indexOf[id] else { return false }
        return Self.distance(of: index, from: landingWindow) <= policy.landingMargin
    }

    /// The items on screen when the list rests at the scroll's predicted offset (as many as
    /// are visible now), as indices; `nil` when no landing is predicted or the policy ignores it.
    private func predictedLandingWindow(_ scroll: ScrollState, visibleCount: Int) -> ClosedRange<Int>? {
        guard policy.loadsPredictedLanding, scroll.phase != .idle, let offset = scroll.predictedRestingOffset,
              offset.isFinite, !items.isEmpty, visibleCount > 0 else { return nil }
        // The list rests within its ends: a prediction past the last screen lands on it.
        let last = Double(max(0, items.count - visibleCount))
        let first = Int(min(max(0, offset), last).rounded(.down)) // clamped before Int: no trap
        return first...min(items.count - 1, first + visibleCount - 1)
    }

    /// The items of the predicted landing window whose likelihood of being on screen at rest
    /// reaches ``Policy/landingThreshold``, likeliest first.
    private func likelyLandingItems(_ scroll: ScrollState, from range: ClosedRange<Int>?) -> [ID] {
        guard let window = landingWindow, let offset = scroll.predictedRestingOffset else { return [] }
        let remaining = range.map { abs(offset - Double($0.lowerBound)) } ?? 0
        let spread = max(0, policy.landingUncertainty) * remaining
        var likely: [(index: Int, likelihood: Double)] = []
        for index in window {
            let likelihood = Self.restingLikelihood(of: index, offset: offset, visibleCount: window.count, spread: spread,
                                                    itemCount: items.count)
            if likelihood > 0, likelihood >= policy.landingThreshold { likely.append((index, likelihood)) }
        }
        likely.sort { $0.likelihood != $1.likelihood ? $0.likelihood > $1.likelihood : $0.index < $1.index }
        return likely.map { items[$0.index] }
    }

    /// The likelihood that item `index` is on screen when the list rests, for a resting offset
    /// predicted at `offset` with a normal error of standard deviation `spread` (items), and
    /// `visibleCount` items on screen. The item shows at offsets in (index − length, index + 1)
    /// for a screen `length` items long, taken as half an item less than `visibleCount` (which
    /// counts partly visible items too), so an item at either edge of an exact prediction is
    /// likely, not a coin toss. With `itemCount`, the list rests within its ends: the likelihood
    /// of a resting place beyond an end goes to the items that end shows.
    static func restingLikelihood(of index: Int, offset: Double, visibleCount: Int, spread: Double,
                                  itemCount: Int? = nil) -> Double {
        let length = Double(visibleCount) - 0.5
        var low = Double(index) - length, high = Double(index + 1)
        if let itemCount {
            // A resting place beyond an end is that end: the items it shows take those outcomes.
            if low < 0 { low = -.infinity }                                          // shown at the top
            if high > max(0, Double(itemCount) - length) { high = .infinity }       // shown at the bottom
        }
        guard spread > 1e-9 else { return offset > low && offset < high ? 1 : 0 }
        func normal(_ x: Double) -> Double { 0.5 * erfc(-x / 2.0.squareRoot()) }
        return max(0, normal((high - offset) / spread) - normal((low - offset) / spread))
    }

    /// Whether the predicted landing loads now: the fling slows below
    /// ``Policy/fastScrollVelocity`` within ``Policy/landingLeadTime``.
    private func landingIsDue(_ scroll: ScrollState) -> Bool {
        scroll.secondsUntilSpeed(below: policy.fastScrollVelocity) <= policy.landingLeadTime
    }

    /// The items to prefetch: ahead of the visible ones in the scroll direction, as far as the
    /// list would still travel if the finger lifted now (at most ``Policy/prefetchDistance``);
    /// at rest only those whose image is on disk, and none when a landing is predicted (the
    /// list stops there).
    private func aheadItems(from range: ClosedRange<Int>?, scroll: ScrollState) -> [ID] {
        guard let range, policy.prefetchDistance > 0, landingWindow == nil else { return [] }
        if scroll.phase == .idle { return diskItemsAhead(of: range) }
        let travel = ScrollState.predictedRestingOffset(releaseOffset: 0, velocity: abs(scroll.velocity))
        let reach = travel.isFinite ? Int(min(travel, Double(policy.prefetchDistance)).rounded(.up)) : policy.prefetchDistance
        return indices(aheadOf: range, count: reach).map { items[$0] }
    }

    /// At rest, where the user goes next is unknown, so only the items ahead (within
    /// ``Policy/prefetchDistance``) whose image is on disk are prefetched: they cost no network
    /// bytes. Worked out once per resting place.
    private func diskItemsAhead(of range: ClosedRange<Int>) -> [ID] {
        if let known = diskAheadAtRest, known.range == range, known.direction == direction,
           known.distance == policy.prefetchDistance { return known.items }
        let onDisk = indices(aheadOf: range, count: policy.prefetchDistance).map { items[$0] }.filter { id in
            makeRequest(id).map(pipeline.hasOriginalOnDisk) ?? false
        }
        diskAheadAtRest = (range, direction, policy.prefetchDistance, onDisk)
        return onDisk
    }

    /// Up to `count` indices past `range` in the scroll direction, nearest first.
    private func indices(aheadOf range: ClosedRange<Int>, count: Int) -> [Int] {
        guard count > 0 else { return [] }
        return direction > 0
            ? Array(stride(from: range.upperBound + 1, to: min(items.count, range.upperBound + 1 + count), by: 1))
            : Array(stride(from: range.lowerBound - 1, through: max(0, range.lowerBound - count), by: -1))
    }
}
