/// How a list is moving, as a ``VisibleItemsLoader`` needs to know it.
///
/// ```swift
/// loader.update(visibleItems: ids, scroll: ScrollState(phase: .decelerating, velocity: 42))
/// ```
public struct ScrollState: Sendable, Hashable {
    /// What the user is doing with the list.
    public enum Phase: Sendable, Hashable {
        /// Nothing moves.
        case idle
        /// A finger (or the wheel) moves the list.
        case dragging
        /// The list coasts after a fling and slows down.
        case decelerating
    }

    /// What the user is doing with the list.
    public var phase: Phase
    /// Items per second; positive toward later items (down a feed), negative toward earlier
    /// ones. A view layer converts from points: `velocity / itemHeight`.
    public var velocity: Double

    /// Creates a scroll state.
    public init(phase: Phase, velocity: Double = 0) {
        self.phase = phase
        self.velocity = velocity
    }

    /// At rest.
    public static let idle = ScrollState(phase: .idle)
}
