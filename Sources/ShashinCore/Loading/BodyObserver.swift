import Foundation

/// Where a `DataLoading` hands over the body's bytes as they arrive, so the pipeline can decode
/// progressive previews before the download ends.
///
/// The pipeline binds an observer around a download only when a request wants previews; a
/// loader calls ``report(_:)`` with each chunk of a successful (2xx) response's body, in order,
/// from inside its `loadData` / `loadResponse` call (or from a callback it set up there, having
/// read ``current`` on the way in). A loader that never reports still works: its requests get no
/// previews. The built-in loaders (URLSession and AsyncHTTPClient) report.
///
/// ```swift
/// for try await chunk in body { data.append(chunk); BodyObserver.report(chunk) }
/// ```
public enum BodyObserver {
    /// The observer bound to a download: a reference, so the task-local value stays one pointer
    /// (an optimized build mis-ordered the task allocator with a closure bound directly).
    final class Sink: Sendable {
        let receive: @Sendable (Data) -> Void
        init(_ receive: @escaping @Sendable (Data) -> Void) { self.receive = receive }
    }

    @TaskLocal static var sink: Sink?

    /// Receives the body's chunks of the calling task's download; `nil` when nobody is watching.
    /// Read it on the way into `loadData` when chunks arrive on other threads.
    public static var current: (@Sendable (Data) -> Void)? { sink?.receive }

    /// Hands `chunk` to the observer of the calling task's download, if there is one.
    public static func report(_ chunk: Data) {
        sink?.receive(chunk)
    }
}
