import Foundation

/// A flag each thread has its own copy of (a POSIX thread-specific value).
final class ThreadMark: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        self.key = key
    }

    var isSet: Bool { pthread_getspecific(key) != nil }

    func set(_ value: Bool) {
        // Any non-nil pointer marks the thread; the value is never dereferenced.
        _ = pthread_setspecific(key, value ? UnsafeRawPointer(bitPattern: 1) : nil)
    }
}
