import Foundation

extension HTTPCache {
    /// Which responses the cache stores and how long it serves them without asking the server.
    ///
    /// Keep HTTP's rules (`followHeaders`, the default) when the server's headers are right: they
    /// say when an image changes, and revalidation picks the change up. Override them
    /// (`keepSuccessfulResponses(for:)`) when the server sends `no-cache`, `max-age=0` or
    /// `no-store` for images that never change and the app cannot fix the headers: every
    /// successful response is then kept and served for the given time, offline too, and a
    /// changed image shows only once that time has passed (or after `removeCachedImage(for:)`).
    ///
    /// ```swift
    /// configuration.httpCacheOptions.storagePolicy = .keepSuccessfulResponses(for: 7 * 86_400)
    /// ```
    public enum StoragePolicy: Sendable, Hashable {
        /// RFC 9111 decides what is stored and when it must be revalidated.
        case followHeaders
        /// Every 2xx response to a GET is stored, and served as fresh for `lifetime` seconds after
        /// it was stored or last revalidated, whatever `Cache-Control`, `Expires` or `Pragma` say
        /// (`no-store` included); past that, HTTP's rules apply to it again. A request's own
        /// `no-cache` still revalidates. Responses to requests with credentials (their own
        /// `Authorization`, or the pipeline's) are not stored at all unless `includingAuthorized`:
        /// the override never keeps what a server marked private to one user by accident.
        case keepSuccessfulResponses(for: TimeInterval, includingAuthorized: Bool = false)

        /// The lifetime of a kept response, when this policy keeps responses like `stored`'s.
        func keptLifetime(status: Int, authenticated: Bool) -> TimeInterval? {
            guard case .keepSuccessfulResponses(let lifetime, let includingAuthorized) = self,
                  (200..<300).contains(status), includingAuthorized || !authenticated else { return nil }
            return lifetime
        }
    }
}
