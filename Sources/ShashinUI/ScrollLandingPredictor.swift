// SwiftUI on Apple platforms only; compiles to nothing elsewhere. Type-checked by the Apple SDK checks.
#if canImport(SwiftUI)
import Shashin
import SwiftUI

/// Turns SwiftUI's scroll phase changes into the ``/Shashin/ScrollState`` a ``/Shashin/VisibleItemsLoader`` wants,
/// with the predicted resting offset from the moment the finger lifts: the target SwiftUI
/// reports when the OS gives one (through ``updateTarget(_:)`` from a `ScrollTargetBehavior`),
/// otherwise computed from the release velocity and the normal deceleration rate.
///
/// SwiftUI reports phase changes, not each frame of a fling, so a loader updated from them sees
/// a landing once, at the lift, when it is farthest away and least certain: with the default
/// ``/Shashin/VisibleItemsLoader/Policy/landingUncertainty`` only the middle of a near landing
/// would load. Set the loader's `policy.landingUncertainty` to 0 so the whole predicted window
/// loads at the lift, or update the loader on each frame as well.
///
/// ```swift
/// @State private var predictor = ScrollLandingPredictor(itemLength: 120)
/// ScrollView { LazyVStack { ForEach(posts) { PostRow(post: $0) } } }
///     .onScrollPhaseChange { _, phase, context in
///         loader.update(visibleItems: visibleIDs, scroll: predictor.scrollState(phase, context))
///     }
/// ```
@available(iOS 18, macOS 15, tvOS 18, watchOS 11, visionOS 2, *)
public struct ScrollLandingPredictor {
    /// The length of one item along the scroll axis, in points: offsets divided by it are items.
    public var itemLength: CGFloat
    /// Whether the list scrolls vertically (default) or horizontally.
    public var vertical: Bool
    /// The resting offset of the fling under way, in items; `nil` when none is known.
    public private(set) var predictedRestingOffset: Double?
    private var reportedTarget: Double?

    /// Creates a predictor for items `itemLength` points long.
    ///
    /// ```swift
    /// @State private var predictor = ScrollLandingPredictor(itemLength: 120)
    /// ```
    public init(itemLength: CGFloat, vertical: Bool = true) {
        self.itemLength = max(1, itemLength)
        self.vertical = vertical
    }

    /// Records a target a `ScrollTargetBehavior` settled on (its `target.rect.origin`, in points),
    /// which the next deceleration uses instead of the computed one.
    ///
    /// ```swift
    /// // in a ScrollTargetBehavior's updateTarget(_:context:)
    /// predictor.updateTarget(target.rect.origin)
    /// ```
    public mutating func updateTarget(_ origin: CGPoint) {
        reportedTarget = Double((vertical ? origin.y : origin.x) / itemLength)
    }

    /// The scroll state for a phase change: when the list starts decelerating (the finger
    /// lifted), the landing is the reported target or the release offset plus v·τ; a finger on
    /// the list again, or rest, forgets it.
    ///
    /// ```swift
    /// .onScrollPhaseChange { _, phase, context in
    ///     loader.update(visibleItems: visibleIDs, scroll: predictor.scrollState(phase, context))
    /// }
    /// ```
    public mutating func scrollState(_ phase: ScrollPhase, _ context: ScrollPhaseChangeContext) -> ScrollState {
        let geometry = context.geometry
        let offset = Double((vertical ? geometry.contentOffset.y : geometry.contentOffset.x) / itemLength)
        let velocity = context.velocity.map { Double((vertical ? $0.dy : $0.dx) / itemLength) } ?? 0
        switch phase {
        case .decelerating:
            if predictedRestingOffset == nil {
                predictedRestingOffset = reportedTarget
                    ?? ScrollState.predictedRestingOffset(releaseOffset: offset, velocity: velocity)
            }
            return ScrollState(phase: .decelerating, velocity: velocity, predictedRestingOffset: predictedRestingOffset)
        case .tracking, .interacting:
            predictedRestingOffset = nil
            reportedTarget = nil
            return ScrollState(phase: .dragging, velocity: velocity)
        default:
            predictedRestingOffset = nil
            reportedTarget = nil
            return .idle
        }
    }
}
#endif
