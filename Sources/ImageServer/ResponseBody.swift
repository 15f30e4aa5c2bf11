import FlyingFox
import FlyingSocks
import Foundation

/// The bytes of one response body as FlyingFox pulls them: paced to a bandwidth limit, ended
/// early or never started on purpose, and counted as they go.
///
/// FlyingFox writes each chunk to the socket before it asks for the next one, so asking for the
/// next chunk (or for the end) proves the previous one was written: that is when bytes are
/// counted and when the response leaves flight. Throwing from here makes FlyingFox close the
/// connection, which is how the faults cut a body short.
struct ResponseBody: AsyncBufferedSequence {
    typealias Element = UInt8

    /// What happens once ``bytes`` are all sent.
    enum Ending: Sendable {
        /// The response is complete; the connection stays open for the next request.
        case complete
        /// The connection is closed.
        case close
        /// Nothing more is sent until the server stops or `limit` passes; then the connection closes.
        case stall(limit: Duration, isStopping: @Sendable () -> Bool)
    }

    /// Thrown to make FlyingFox close the connection.
    struct ConnectionClosedOnPurpose: Error {}

    let bytes: Data
    let ending: Ending
    /// `nil` sends as fast as the socket takes the bytes.
    let bytesPerSecond: Int?
    let ticket: ResponseTicket

    /// Large enough for few syscalls on big images, small enough to keep memory flat.
    static let unthrottledChunkSize = 64 * 1024

    func makeAsyncIterator() -> Iterator {
        Iterator(body: self)
    }

    struct Iterator: AsyncBufferedIteratorProtocol {
        typealias Element = UInt8
        typealias Buffer = Data

        private let body: ResponseBody
        private var offset = 0
        private var handedOut = 0
        private var start: ContinuousClock.Instant?
        private var isFinished = false

        init(body: ResponseBody) {
            self.body = body
        }

        mutating func next() async throws -> UInt8? {
            try await nextBuffer(suggested: 1)?.first
        }

        mutating func nextBuffer(suggested count: Int) async throws -> Data? {
            guard !isFinished else { return nil }
            // Being asked again means the chunk handed out last time is on the wire.
            body.ticket.delivered(handedOut)
            handedOut = 0
            do {
                if offset == body.bytes.count {
                    isFinished = true
                    try await end()
                    return nil
                }
                let chunk = try await nextChunk()
                handedOut = chunk.count
                return chunk
            } catch {
                isFinished = true
                body.ticket.finish()
                throw error
            }
        }

        private mutating func nextChunk() async throws -> Data {
            let clock = ContinuousClock()
            var size = ResponseBody.unthrottledChunkSize
            if let rate = body.bytesPerSecond, rate > 0 {
                // Bytes [offset, ...) may leave once `offset / rate` seconds have passed: the body
                // as a whole then takes (count - lastChunk) / rate, whatever the chunk size.
                let start = self.start ?? clock.now
                self.start = start
                let due = start + .seconds(Double(offset) / Double(rate))
                if due > clock.now { try await Task.sleep(until: due, clock: clock) }
                size = Swift.min(size, Swift.max(1, rate / 20))
            }
            let end = Swift.min(body.bytes.count, offset + size)
            let base = body.bytes.startIndex
            let chunk = body.bytes[(base + offset)..<(base + end)]
            offset = end
            return chunk
        }

        private func end() async throws {
            switch body.ending {
            case .complete:
                body.ticket.finish()
            case .close:
                throw ConnectionClosedOnPurpose()
            case .stall(let limit, let isStopping):
                let clock = ContinuousClock()
                let deadline = clock.now + limit
                // Polling keeps this independent of how FlyingFox cancels connections on stop.
                while !isStopping() && clock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                throw ConnectionClosedOnPurpose()
            }
        }
    }
}
