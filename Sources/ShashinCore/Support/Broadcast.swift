/// Fans values out to any number of `AsyncStream`s, one per `stream()` call; a stream stops
/// receiving once its consumer ends the iteration (or drops the stream).
final class Broadcast<Element: Sendable>: Sendable {
    private let continuations = Locked<(next: Int, all: [Int: AsyncStream<Element>.Continuation])>((0, [:]))
    private let bufferSize: Int

    /// - Parameter bufferSize: values kept for a consumer that has not read them yet; older
    ///   ones are dropped first.
    init(bufferSize: Int = 16) { self.bufferSize = bufferSize }

    /// A new stream of every value yielded from now on.
    func stream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self,
                                                            bufferingPolicy: .bufferingNewest(bufferSize))
        let id = continuations.withLock { state in
            let id = state.next
            state.next += 1
            state.all[id] = continuation
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.continuations.withLock { _ = $0.all.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sends `value` to every live stream.
    func yield(_ value: Element) {
        // Yield outside the lock: a termination handler run by `yield` takes it again.
        let targets = continuations.withLock { Array($0.all.values) }
        for continuation in targets { continuation.yield(value) }
    }

    /// Finishes every stream.
    func finish() {
        let targets = continuations.withLock { state in
            defer { state.all.removeAll() }
            return Array(state.all.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
