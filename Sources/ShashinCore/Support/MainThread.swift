import Foundation

/// Whether the calling thread is the process's main thread.
enum MainThread {
    /// On Apple platforms `Thread.isMainThread` (a cheap `pthread_main_np`). On Linux
    /// swift-corelibs-foundation answers through a `Thread` object for the calling thread, which
    /// cost 1.4 % of a `data(for:)` benchmark's samples when asked once per download; a thread never
    /// stops or starts being the main one, so the answer is asked once per thread and kept in a
    /// thread-specific value.
    static var isCurrent: Bool {
#if canImport(Darwin)
        Thread.isMainThread
#else
        if let kept = pthread_getspecific(key) { return Int(bitPattern: kept) == isMain }
        let answer = Thread.isMainThread
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: answer ? isMain : isOther))
        return answer
#endif
    }

#if !canImport(Darwin)
    /// The kept answer: `isMain` or `isOther` as a pointer's bits (never dereferenced); nil until asked.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()
    private static let isMain = 2
    private static let isOther = 1
#endif
}
