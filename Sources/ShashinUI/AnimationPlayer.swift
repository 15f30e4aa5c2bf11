// Apple platforms only; compiles to nothing elsewhere. Type-checked by the Apple SDK checks.
#if canImport(UIKit) || canImport(AppKit)
import Foundation
import Shashin
#if canImport(UIKit)
import UIKit
#endif

/// Plays an animation on the main actor, for views that do not animate an image themselves
/// (`NSImageView`, SwiftUI's `Image`, and a `UIImageView` showing a streamed animation): its
/// frames come from `ImageAnimation.playableFrames` (decoded up front, or decoded while they
/// play into a buffer of `bufferCapacity` frames), and `AnimationPlayback` (ShashinCore, tested
/// on Linux) keeps the time by each frame's duration and drops frames that are late. Frames are
/// decoded on the buffer's decode queue, off the main actor and off Swift's cooperative pool (the
/// player's task only awaits them); the loop count is honoured, until `stop`.
@MainActor
final class AnimationPlayer {
    private var task: Task<Void, Never>?

    /// Frames decoded ahead of the one shown (default `AnimationFrameBuffer.defaultCapacity`, 3).
    var bufferCapacity = AnimationFrameBuffer.defaultCapacity

    /// Whether playback was started and not stopped (it may have reached its last loop).
    var isPlaying: Bool { task != nil }

    /// Shows `animation`'s frames through `show` after the first (which is the image already on
    /// screen), at `scale` pixels per point, stopping any earlier playback; nothing when it has
    /// no frames to play. While `isVisible` says no (a view out of its window), time runs on but
    /// no frame is drawn or decoded; once `show`'s owner is gone (`isVisible` returns `nil`), playback ends.
    /// A frame that fails to decode ends playback on the frame shown.
    func play(_ animation: ImageAnimation, scale: Double = 1, show: @escaping @MainActor (PlatformImage) -> Void,
              isVisible: @escaping @MainActor () -> Bool? = { true }) {
        stop()
        guard let source = animation.playableFrames else { return }
        // The system's uptime: monotonic, and available on every supported OS (ContinuousClock
        // needs iOS 16 and macOS 13).
        let playback = AnimationPlayback(buffer: source.makeBuffer(capacity: bufferCapacity),
                                         now: { ProcessInfo.processInfo.systemUptime })
        task = Task { @MainActor in
            while !Task.isCancelled, let visible = isVisible() {
                let step = playback.step()
                if visible, let frame = step.frame { show(Self.image(frame.bitmap, scale: scale)) }
                // Out of its window a view decodes nothing: time runs on, and late frames are
                // dropped when it comes back.
                if step.needsFill, visible {
                    // A decode failure ends playback on the frame shown; so does `stop` (the
                    // cancelled fill throws at once, its decode left to finish on its queue).
                    do { try await playback.fill() } catch { break }
                    continue
                }
                guard let wait = step.wait else { break }
                try? await Task.sleep(nanoseconds: UInt64(min(wait, 86_400) * 1_000_000_000))
            }
        }
    }

    /// Stops showing frames; the last one shown stays.
    func stop() {
        task?.cancel()
        task = nil
    }

    /// A frame as the platform's image at `scale` pixels per point.
    private static func image(_ bitmap: Bitmap, scale: Double) -> PlatformImage {
        let image = bitmap.platformImage
        #if canImport(UIKit)
        guard scale != 1, let cgImage = image.cgImage else { return image }
        return UIImage(cgImage: cgImage, scale: scale, orientation: .up)
        #else
        return image
        #endif
    }
}
#endif
