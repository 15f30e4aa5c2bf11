import Foundation

/// How a newly loaded image replaces what a view showed: at once, a cross-fade, or an animation
/// of your own. One type for UIKit, AppKit and SwiftUI: `ShashinUI` adds the `.custom`
/// transitions each framework animates (a `UIView.transition` block, an `NSAnimationContext`
/// group, a SwiftUI `AnyTransition`).
///
/// ```swift
/// ImageLoadingOptions.shared.transition = .fade(duration: 0.3)
/// ImageLoadingOptions(transition: .immediate)
/// ```
///
/// (Not `.none`: among optional options that would read as `nil`, "not said".)
///
/// Like every transition, a custom one runs for loaded images only, not for memory-cache hits,
/// unless the options' `forcesTransition` is on.
public struct ImageTransition: Equatable, CustomStringConvertible {
    enum Kind {
        case immediate
        case fade
        case custom(Custom)
    }

    /// A view framework's own animation, held for the target of that framework to run.
    package final class Custom {
        package let animation: Any
        package init(_ animation: Any) { self.animation = animation }
    }

    let kind: Kind
    /// How long the transition lasts, in seconds; 0 for `.immediate`.
    public let duration: TimeInterval

    /// At once, with no animation.
    public static var immediate: ImageTransition { ImageTransition(kind: .immediate, duration: 0) }

    /// A cross-fade over `duration` seconds (default 0.25).
    public static func fade(duration: TimeInterval = 0.25) -> ImageTransition {
        ImageTransition(kind: .fade, duration: max(0, duration))
    }

    /// What a load shows with when its options say no transition: a 0.25 s fade.
    public static var defaultFade: ImageTransition { fade() }

    /// A view framework's own animation, lasting `duration`: how `ShashinUI` makes its `.custom` transitions.
    package static func custom(_ animation: Any, duration: TimeInterval) -> ImageTransition {
        ImageTransition(kind: .custom(Custom(animation)), duration: max(0, duration))
    }

    private init(kind: Kind, duration: TimeInterval) {
        self.kind = kind
        self.duration = duration
    }

    /// Whether the image appears at once (`.immediate`).
    public var isImmediate: Bool {
        if case .immediate = kind { true } else { false }
    }

    /// Whether this is a cross-fade.
    public var isFade: Bool {
        if case .fade = kind { true } else { false }
    }

    /// The custom animation a `ShashinUI` target runs; `nil` for `.immediate` and a fade.
    package var customAnimation: Any? {
        if case .custom(let custom) = kind { custom.animation } else { nil }
    }

    /// Equal when both are immediate, both fades of one duration, or the same custom transition.
    public static func == (lhs: ImageTransition, rhs: ImageTransition) -> Bool {
        switch (lhs.kind, rhs.kind) {
        case (.immediate, .immediate): true
        case (.fade, .fade): lhs.duration == rhs.duration
        case (.custom(let a), .custom(let b)): a === b
        default: false
        }
    }

    /// `immediate`, `fade(0.25 s)` or `custom(0.3 s)`.
    public var description: String {
        switch kind {
        case .immediate: "immediate"
        case .fade: "fade(\(duration) s)"
        case .custom: "custom(\(duration) s)"
        }
    }
}
