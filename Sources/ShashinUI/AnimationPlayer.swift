// Apple platforms only; compiles to nothing elsewhere. Not compiled on this project's Linux CI.
#if canImport(UIKit) || canImport(AppKit)
import Foundation
import Shashin

/// Plays an animation's decoded frames on the main actor, for views that do not animate an
/// image themselves (`NSImageView`, SwiftUI's `Image`): each frame is handed to `show` for its
/// time on the `AnimationTimeline`, the loop count honoured, until `stop`.
@MainActor
final class AnimationPlayer {
    private var task: Task<Void, Never>?

    /// Whether playback was started and not stopped (it may have reached its last loop).
    var isPlaying: Bool { task != nil }

    /// Shows `animation`'s frames through `show` after the first (which is the image already on
    /// screen), stopping any earlier playback;
    /// nothing when fewer than two frames were decoded. While `isVisible` says no (a view out of
    /// its window), time runs on but no frame is drawn; once `show`'s owner is gone
    /// (`isVisible` returns `nil`), playback ends.
    func play(_ animation: ImageAnimation, show: @escaping @MainActor (PlatformImage) -> Void,
              isVisible: @escaping @MainActor () -> Bool? = { true }) {
        stop()
        guard animation.frames.count > 1 else { return }
        let timeline = AnimationTimeline(animation)
        let images = animation.frames.map(\.bitmap.platformImage)
        task = Task { @MainActor in
            // The system's uptime: monotonic, and available on every supported OS (ContinuousClock
            // needs iOS 16 and macOS 13).
            let start = ProcessInfo.processInfo.systemUptime
            var shown = 0
            while !Task.isCancelled, let visible = isVisible() {
                let (index, remaining) = timeline.frame(at: ProcessInfo.processInfo.systemUptime - start)
                if visible, index != shown {
                    show(images[index])
                    shown = index
                }
                guard let remaining else { break }
                try? await Task.sleep(nanoseconds: UInt64(min(remaining, 86_400) * 1_000_000_000))
            }
        }
    }

    /// Stops showing frames; the last one shown stays.
    func stop() {
        task?.cancel()
        task = nil
    }
}
#endif
