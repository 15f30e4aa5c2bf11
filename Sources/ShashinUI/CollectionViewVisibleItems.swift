// UIKit only; compiles to nothing elsewhere. Type-checked by the Apple SDK checks.
#if canImport(UIKit) && !os(watchOS)
import QuartzCore
import Shashin
import UIKit

/// Feeds a ``/Shashin/VisibleItemsLoader`` from a `UICollectionView`: the visible items, the scroll
/// phase, the velocity in items per second and, from the moment the finger lifts, where the
/// fling will land (UIKit's `targetContentOffset`). Forward four scroll-view delegate calls to it
/// and configure cells through ``display(_:in:)``.
///
/// ```swift
/// let visibleItems = CollectionViewVisibleItems(collectionView: collectionView, loader: loader) { indexPath in
///     dataSource.itemIdentifier(for: indexPath)
/// }
/// // cellForItemAt:                 visibleItems.display(item.id, in: cell.photoView)
/// // scrollViewDidScroll:            visibleItems.scrollViewDidScroll(scrollView)
/// // scrollViewWillEndDragging:      visibleItems.scrollViewWillEndDragging(scrollView, withVelocity: velocity,
/// //                                                                        targetContentOffset: targetContentOffset)
/// // scrollViewDidEndDragging:       visibleItems.scrollViewDidEndDragging(scrollView, willDecelerate: decelerate)
/// // scrollViewDidEndDecelerating:   visibleItems.scrollViewDidEndDecelerating(scrollView)
/// ```
@MainActor
public final class CollectionViewVisibleItems<ID: Hashable & Sendable> {
    /// The loader being fed.
    public let loader: VisibleItemsLoader<ID>
    private weak var collectionView: UICollectionView?
    private let itemID: (IndexPath) -> ID?
    private var lastOffset: CGPoint?
    private var lastTime: CFTimeInterval = 0
    /// Where the current fling will rest, in items (see ``ScrollState/predictedRestingOffset``).
    private var predictedRestingOffset: Double?

    /// Creates a helper for `collectionView`; `itemID` maps an index path to its item.
    ///
    /// ```swift
    /// let visibleItems = CollectionViewVisibleItems(collectionView: collectionView, loader: loader) { indexPath in
    ///     posts[indexPath.item].id
    /// }
    /// ```
    public init(collectionView: UICollectionView, loader: VisibleItemsLoader<ID>, itemID: @escaping (IndexPath) -> ID?) {
        self.collectionView = collectionView
        self.loader = loader
        self.itemID = itemID
    }

    /// Shows `id` in `imageView` through the view's binding, under the loader's policy.
    ///
    /// ```swift
    /// // collectionView(_:cellForItemAt:)
    /// visibleItems.display(posts[indexPath.item].id, in: cell.photoView)
    /// ```
    public func display(_ id: ID, in imageView: UIImageView) {
        loader.display(id, in: imageView.shashin.binding)
    }

    /// Forward from `scrollViewDidScroll(_:)`.
    ///
    /// ```swift
    /// func scrollViewDidScroll(_ scrollView: UIScrollView) { visibleItems.scrollViewDidScroll(scrollView) }
    /// ```
    public func scrollViewDidScroll(_ scrollView: UIScrollView) {
        // A finger on the list again (it caught the fling): the old target no longer holds.
        if scrollView.isTracking { predictedRestingOffset = nil }
        let phase: ScrollState.Phase = scrollView.isDragging ? .dragging : scrollView.isDecelerating ? .decelerating : .idle
        update(scrollView, phase: phase)
    }

    /// Forward from `scrollViewWillEndDragging(_:withVelocity:targetContentOffset:)` (after any
    /// change your delegate makes to the target): the loader starts the rows where the list will
    /// rest (at once, or within the policy's `landingLeadTime` of slowing when that is finite),
    /// and not the rows it flies past.
    ///
    /// ```swift
    /// func scrollViewWillEndDragging(_ scrollView: UIScrollView, withVelocity velocity: CGPoint,
    ///                                targetContentOffset: UnsafeMutablePointer<CGPoint>) {
    ///     visibleItems.scrollViewWillEndDragging(scrollView, withVelocity: velocity, targetContentOffset: targetContentOffset)
    /// }
    /// ```
    public func scrollViewWillEndDragging(_ scrollView: UIScrollView, withVelocity velocity: CGPoint,
                                          targetContentOffset: UnsafeMutablePointer<CGPoint>) {
        predictedRestingOffset = itemOffset(at: targetContentOffset.pointee, in: scrollView)
    }

    /// Forward from `scrollViewDidEndDragging(_:willDecelerate:)`.
    ///
    /// ```swift
    /// func scrollViewDidEndDragging(_ scrollView: UIScrollView, willDecelerate decelerate: Bool) {
    ///     visibleItems.scrollViewDidEndDragging(scrollView, willDecelerate: decelerate)
    /// }
    /// ```
    public func scrollViewDidEndDragging(_ scrollView: UIScrollView, willDecelerate decelerate: Bool) {
        if !decelerate {
            predictedRestingOffset = nil
            update(scrollView, phase: .idle)
        }
    }

    /// Forward from `scrollViewDidEndDecelerating(_:)`.
    ///
    /// ```swift
    /// func scrollViewDidEndDecelerating(_ scrollView: UIScrollView) { visibleItems.scrollViewDidEndDecelerating(scrollView) }
    /// ```
    public func scrollViewDidEndDecelerating(_ scrollView: UIScrollView) {
        predictedRestingOffset = nil
        update(scrollView, phase: .idle)
    }

    private func update(_ scrollView: UIScrollView, phase: ScrollState.Phase) {
        guard let collectionView else { return }
        let paths = collectionView.indexPathsForVisibleItems.sorted()
        let now = CACurrentMediaTime()
        var velocity = 0.0
        if phase != .idle, let lastOffset, now > lastTime {
            // Points per second along the main axis, over the average item size on screen.
            let vertical = scrollView.contentSize.height >= scrollView.contentSize.width
            let delta = vertical ? scrollView.contentOffset.y - lastOffset.y : scrollView.contentOffset.x - lastOffset.x
            let sizes = paths.compactMap { collectionView.layoutAttributesForItem(at: $0)?.frame }
                .map { vertical ? $0.height : $0.width }
            let itemLength = sizes.isEmpty ? 100 : max(1, sizes.reduce(0, +) / CGFloat(sizes.count))
            velocity = Double(delta / itemLength) / (now - lastTime)
        }
        lastOffset = scrollView.contentOffset
        lastTime = now
        let landing = phase == .idle ? nil : predictedRestingOffset
        loader.update(visibleItems: paths.compactMap(itemID),
                      scroll: ScrollState(phase: phase, velocity: velocity, predictedRestingOffset: landing))
    }

    /// The content offset `offset` in items: the loader's index of the first item whose frame
    /// reaches past the leading edge there, plus the fraction of it above (or left of) the edge.
    /// `nil` when the layout has no item there.
    private func itemOffset(at offset: CGPoint, in scrollView: UIScrollView) -> Double? {
        guard let collectionView else { return nil }
        let vertical = scrollView.contentSize.height >= scrollView.contentSize.width
        let edge = vertical ? offset.y + scrollView.adjustedContentInset.top : offset.x + scrollView.adjustedContentInset.left
        let size = collectionView.bounds.size
        let strip = vertical ? CGRect(x: 0, y: edge, width: size.width, height: 1) : CGRect(x: edge, y: 0, width: 1, height: size.height)
        let first = (collectionView.collectionViewLayout.layoutAttributesForElements(in: strip) ?? [])
            .filter { $0.representedElementCategory == .cell }
            .min { $0.indexPath < $1.indexPath }
        guard let first, let id = itemID(first.indexPath), let index = loader.index(of: id) else { return nil }
        let start = vertical ? first.frame.minY : first.frame.minX
        let length = max(1, vertical ? first.frame.height : first.frame.width)
        return Double(index) + Double(min(max(0, (edge - start) / length), 1))
    }
}
#endif
