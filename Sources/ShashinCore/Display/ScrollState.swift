import Foundation

/// How a list is moving, as a ``VisibleItemsLoader`` needs to know it.
///
/// ```swift
/// loader.update(visibleItems: ids, scroll: ScrollState(phase: .decelerating, velocity: 42,
///                                                       predictedRestingOffset: 180.5))
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

    /// UIScrollView's normal deceleration rate: the velocity keeps this fraction per millisecond.
    public static let normalDecelerationRate = 0.998

    /// What the user is doing with the list.
    public var phase: Phase
    /// Items per second; positive toward later items (down a feed), negative toward earlier
    /// ones. A view layer converts from points: `velocity / itemHeight`.
    public var velocity: Double
    /// Where the list will come to rest, in items: the index of the first visible item at rest,
    /// with a fraction for a partly visible one (`contentOffset / itemHeight` for rows of one
    /// height). Known from the moment the finger lifts for a fling (UIKit's
    /// `targetContentOffset`, or ``predictedRestingOffset(releaseOffset:velocity:decelerationRate:)``)
    /// until the list rests or is caught; `nil` otherwise. A new flick replaces it.
    public var predictedRestingOffset: Double?

    /// Creates a scroll state.
    public init(phase: Phase, velocity: Double = 0, predictedRestingOffset: Double? = nil) {
        self.phase = phase
        self.velocity = velocity
        self.predictedRestingOffset = predictedRestingOffset
    }

    /// At rest.
    public static let idle = ScrollState(phase: .idle)

    /// Where a fling released at `releaseOffset` with `velocity` comes to rest when its speed
    /// keeps `decelerationRate` of itself every millisecond (v(t) = v₀·rate^t): the release
    /// offset plus v₀·τ, with τ = −1 ms / ln(rate) (about 0.5 s at the normal rate). Offsets and
    /// velocity share one unit (items, or points per second and points).
    public static func predictedRestingOffset(releaseOffset: Double, velocity: Double,
                                              decelerationRate: Double = normalDecelerationRate) -> Double {
        guard decelerationRate > 0, decelerationRate < 1 else { return releaseOffset }
        return releaseOffset + velocity * (-0.001 / log(decelerationRate))
    }

    /// Seconds until the list's speed falls below `speed` (items per second) under `decelerationRate`:
    /// τ·ln(|velocity| / speed); 0 when it is that slow already or `speed` is not positive.
    func secondsUntilSpeed(below speed: Double, decelerationRate: Double = normalDecelerationRate) -> Double {
        let current = abs(velocity)
        guard speed > 0, current > speed, decelerationRate > 0, decelerationRate < 1 else { return 0 }
        return -0.001 / log(decelerationRate) * log(current / speed)
    }
}
