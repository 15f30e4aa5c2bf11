// UIKit only; compiles to nothing elsewhere. Not compiled on this project's Linux CI.
#if canImport(UIKit) && !os(watchOS)
import QuartzCore
import Shashin
import UIKit

/// Feeds a ``VisibleItemsLoader`` from a `UICollectionView`: the visible items, the scroll
/// phase and the velocity in items per second. Forward three scroll-view delegate calls to it
/// and configure cells through ``display(_:in:)``.
///
/// ```swift
/// let visibleItems = CollectionViewVisibleItems(collectionView: collectionView, loader: loader) { indexPath in
///     dataSource.itemIdentifier(for: indexPath)
/// }
/// // cellForItemAt:                 visibleItems.display(item.id, in: cell.imageView)
/// // scrollViewDidScroll:            visibleItems.scrollViewDidScroll(scrollView)
/// // scrollViewDidEndDragging:       visibleItems.scrollViewDidEndDragging(scrollView, willDecelerate: decelerate)
/// // scrollViewDidEndDecelerating:   visibleItems.scrollViewDidEndDecelerating(scrollView)
/// ```
@MainActor
public final class CollectionViewVisibleItems<ID: Hashable> {
    /// The loader being fed.
    public let loader: VisibleItemsLoader<ID>
    private weak var collectionView: UICollectionView?
    private let itemID: (IndexPath) -> ID?
    private var lastOffset: CGPoint?
    private var lastTime: CFTimeInterval = 0

    /// Creates a helper for `collectionView`; `itemID` maps an index path to its item.
    public init(collectionView: UICollectionView, loader: VisibleItemsLoader<ID>, itemID: @escaping (IndexPath) -> ID?) {
        self.collectionView = collectionView
        self.loader = loader
        self.itemID = itemID
    }

    /// Shows `id` in `imageView` through the view's binding, under the loader's policy.
    public func display(_ id: ID, in imageView: UIImageView) {
        loader.display(id, in: imageView.shashin.binding(pipeline: loader.pipeline))
    }

    /// Forward from `scrollViewDidScroll(_:)`.
    public func scrollViewDidScroll(_ scrollView: UIScrollView) {
        let phase: ScrollState.Phase = scrollView.isDragging ? .dragging : scrollView.isDecelerating ? .decelerating : .idle
        update(scrollView, phase: phase)
    }

    /// Forward from `scrollViewDidEndDragging(_:willDecelerate:)`.
    public func scrollViewDidEndDragging(_ scrollView: UIScrollView, willDecelerate decelerate: Bool) {
        if !decelerate { update(scrollView, phase: .idle) }
    }

    /// Forward from `scrollViewDidEndDecelerating(_:)`.
    public func scrollViewDidEndDecelerating(_ scrollView: UIScrollView) {
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
        loader.update(visibleItems: paths.compactMap(itemID), scroll: ScrollState(phase: phase, velocity: velocity))
    }
}
#endif
