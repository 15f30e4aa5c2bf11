import Foundation
#if os(macOS)
import Dispatch
#endif

/// What a `MemoryCache` follows on its own on Apple platforms: on iOS and tvOS, memory warnings
/// (empty the cache) and entering the background (keep `backgroundTrimFraction` of its bytes); on
/// macOS, the system's memory-pressure events (a warning keeps half the bytes, critical none).
/// Elsewhere nothing: Linux servers start a `MemoryPressureMonitor`.
enum PlatformMemoryObservation {
    /// Starts following the platform's events for `cache`; the returned value stops it when released.
    static func start(for cache: MemoryCache) -> (any Sendable)? {
        #if canImport(UIKit) && !os(watchOS)
        return ApplicationMemoryObserver(cache: cache)
        #elseif os(macOS)
        return DispatchMemoryPressureObserver(cache: cache)
        #else
        return nil
        #endif
    }
}

#if canImport(UIKit) && !os(watchOS)
/// Trims a cache on `UIApplication`'s memory warning and background notifications.
final class ApplicationMemoryObserver: Sendable {
    // The core imports no UI framework, and UIKit's constants for these names are main-actor
    // isolated while a cache may be created on any thread: the names' values are these strings.
    static let memoryWarning = Notification.Name("UIApplicationDidReceiveMemoryWarningNotification")
    static let didEnterBackground = Notification.Name("UIApplicationDidEnterBackgroundNotification")

    private let tokens = Locked<[any NSObjectProtocol]>([])

    init(cache: MemoryCache) {
        let center = NotificationCenter.default
        let warning = center.addObserver(forName: Self.memoryWarning, object: nil, queue: nil) { @Sendable [weak cache] _ in
            cache?.trim(.all, reason: .memoryWarning)
        }
        let background = center.addObserver(forName: Self.didEnterBackground, object: nil, queue: nil) { @Sendable [weak cache] _ in
            guard let cache else { return }
            cache.trim(.fraction(cache.backgroundTrimFraction), reason: .background)
        }
        tokens.withLock { $0 = [warning, background] }
    }

    deinit {
        tokens.withLock { tokens in
            for token in tokens { NotificationCenter.default.removeObserver(token) }
        }
    }
}
#endif

#if os(macOS)
/// Trims a cache on `DispatchSource` memory-pressure events.
final class DispatchMemoryPressureObserver: Sendable {
    private let source = Locked<(any DispatchSourceMemoryPressure)?>(nil)

    init(cache: MemoryCache) {
        let source = DispatchSource.makeMemoryPressureSource(eventMask: [.warning, .critical],
                                                             queue: .global(qos: .utility))
        // `@Sendable`: the handler runs on a global queue and must not inherit an actor's isolation.
        source.setEventHandler { @Sendable [weak self, weak cache] in
            guard let cache, let event = self?.source.withLock({ $0?.data }) else { return }
            cache.trim(event.contains(.critical) ? .all : .fraction(0.5), reason: .pressure)
        }
        self.source.withLock { $0 = source }
        source.activate()
    }

    deinit { source.withLock { $0?.cancel() } }
}
#endif
