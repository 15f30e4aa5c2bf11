import Foundation
#if canImport(UIKit)
import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// Pixels per point of the main display, for sizes given in points without a view to take the
/// scale from (`ImageUnit.points` with no scale): `UIScreen.main.scale` on iOS and tvOS, the main
/// display's backing scale on macOS, 2 on visionOS and watchOS; 1 on Linux, where there is no screen.
///
/// Safe from any thread. UIKit's screen is main-actor state: read on the main thread, or
/// fetched from it once (a synchronous hop) the first time another thread asks; the display's
/// scale does not change while the process runs, so it is read once and kept. macOS reads the
/// main display's mode through Core Graphics, which any thread may call.
package enum DisplayScale {
    private static let kept = Locked<Double?>(nil)

    package static var main: Double {
        if let scale = kept.current { return scale }
        let scale = read()
        kept.withLock { $0 = scale }
        return scale
    }

    private static func read() -> Double {
        #if os(iOS) || os(tvOS)
        if Thread.isMainThread { return MainActor.assumeIsolated { Double(UIScreen.main.scale) } }
        return DispatchQueue.main.sync { MainActor.assumeIsolated { Double(UIScreen.main.scale) } }
        #elseif os(macOS)
        guard let mode = CGDisplayCopyDisplayMode(CGMainDisplayID()), mode.width > 0 else { return 1 }
        return max(1, Double(mode.pixelWidth) / Double(mode.width))
        #elseif canImport(UIKit)
        return 2
        #else
        return 1
        #endif
    }

    /// `scale` when it is a positive finite number, else the main display's.
    package static func resolve(_ scale: Double?) -> Double {
        guard let scale, scale.isFinite, scale > 0 else { return main }
        return scale
    }
}
