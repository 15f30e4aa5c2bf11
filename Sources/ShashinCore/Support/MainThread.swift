import Foundation

/// Whether the calling thread is the process's main thread.
enum MainThread {
    /// On Apple platforms `Thread.isMainThread` (`pthread_main_np`, no system call). On Linux
    /// swift-corelibs-foundation compares `gettid()` with `getpid()`, two system calls a question;
    /// whether a thread is the main one never changes (short of a `fork` without `exec`, which
    /// nothing here does), so the answer is asked once per thread and kept.
    static var isCurrent: Bool {
#if canImport(Darwin)
        Thread.isMainThread
#else
        keptAnswer { Thread.isMainThread }
#endif
    }

    /// `ask()`'s answer the first time the calling thread calls this; the kept answer after,
    /// without asking again. Kept in a thread-specific value, as a pointer's bits never dereferenced.
    static func keptAnswer(_ ask: () -> Bool) -> Bool {
        if let kept = pthread_getspecific(key) { return Int(bitPattern: kept) == yes }
        let answer = ask()
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: answer ? yes : no))
        return answer
    }

    /// The thread-specific value: nil until the thread asks, then `yes` or `no`.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()
    private static let yes = 2
    private static let no = 1
}
