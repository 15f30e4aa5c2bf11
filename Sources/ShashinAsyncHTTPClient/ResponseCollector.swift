import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ShashinCore

/// Collects one response as AsyncHTTPClient reads it, on the event loop of its connection.
///
/// Each body part is kept the moment it arrives and every future the collector returns is
/// already complete, so the client asks the socket for more at once and holds no part back for
/// the caller. When the server closes the connection mid-body, NIO drains what is left in the
/// socket through the connection's handler, then the request fails: on the connection's own event
/// loop every drained part reaches the collector first, and `outcome.body` holds every byte read,
/// for a download that resumes. (Parts the client still holds for a consumer's demand — through
/// `HTTPClientResponse.body`, or when the request's loop is not its connection's — are dropped
/// when the request fails.)
///
/// The body is a ``CollectedBody``: NIO's buffers, joined into one `Data` by `outcome` on the
/// caller's thread, as bare AsyncHTTPClient's `collect` does.
///
/// The head is judged as it arrives, before any of the body is read: a redirect or a status the
/// caller refuses ends the request with ``StoppedAfterHead``; a body announced larger than
/// `maxBytes` with `dataTooLarge`; an unreadable `Content-Length` with its framing error.
final class ResponseCollector: HTTPClientResponseDelegate {
    typealias Response = Void

    /// Why the request ended once its head had arrived; the caller reads the head and decides.
    struct StoppedAfterHead: Error {}

    private struct State {
        var head: HTTPResponseHead?
        var body = CollectedBody()
        /// The body's length from `Content-Length`; -1 when unknown.
        var expected: Int64 = -1
        /// The error the head or a part ended the request with, when it was the collector's.
        var stop: (any Error)?
        var reported = 0
        /// Whether body parts go to the observer: only a 2xx response's.
        var observed = false
    }

    private let state = Locked(State())
    private let maxBytes: Int
    private let stopsAfterHead: @Sendable (HTTPResponseHead) -> Bool
    private let hasNoBody: Bool
    private let progress: @Sendable (Int64, Int64) -> Void
    private let observer: (@Sendable (Data) -> Void)?

    /// - Parameters:
    ///   - stopsAfterHead: whether a head ends the request (a redirect to follow, a refused status).
    ///   - hasNoBody: the request is a HEAD, whose response has no body whatever it announces.
    ///   - observer: receives each body part of a 2xx response (progressive previews).
    init(maxBytes: Int, hasNoBody: Bool, stopsAfterHead: @escaping @Sendable (HTTPResponseHead) -> Bool,
         observer: (@Sendable (Data) -> Void)?, progress: @escaping @Sendable (Int64, Int64) -> Void) {
        self.maxBytes = maxBytes
        self.hasNoBody = hasNoBody
        self.stopsAfterHead = stopsAfterHead
        self.observer = observer
        self.progress = progress
    }

    /// The head (nil before it arrived), the body read so far, its announced length (-1 unknown)
    /// and the collector's own reason for ending the request, if it ended it. Joins the parts into
    /// one `Data` on the calling thread.
    var outcome: (head: HTTPResponseHead?, body: Data, expected: Int64, stop: (any Error)?) {
        let (head, body, expected, stop) = state.withLock { ($0.head, $0.body, $0.expected, $0.stop) }
        return (head, body.data(), expected, stop)
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let status = head.status.code
        // HEAD, 204 and 304 have no body, whatever their Content-Length says (RFC 9110 §6.4.1).
        let noBody = hasNoBody || status == 204 || status == 304
        let verdict: Result<Int64, any Error> = Result {
            if stopsAfterHead(head) { throw StoppedAfterHead() }
            let announced = try ResponseFraming.contentLength(of: head.headers)
            let expected = noBody ? 0 : announced ?? -1
            if expected > maxBytes { throw ImagePipelineError.dataTooLarge(limit: maxBytes) }
            return expected
        }
        return state.withLock { state in
            state.head = head
            switch verdict {
            case .success(let expected):
                state.expected = expected
                state.observed = observer != nil && (200..<300).contains(status)
                return task.eventLoop.makeSucceededVoidFuture()
            case .failure(let error):
                state.stop = error
                return task.eventLoop.makeFailedFuture(error)
            }
        }
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let added = buffer.readableBytes
        // nil: over the limit; otherwise whether to observe the part and the progress to report.
        let step: (observed: Bool, report: (Int64, Int64)?)? = state.withLock { state in
            guard state.body.count + added <= maxBytes else {
                state.stop = ImagePipelineError.dataTooLarge(limit: maxBytes)
                return nil
            }
            state.body.append(buffer)
            // Progress at most every 16 KB (as URLSession's callbacks come) and at the end: NIO
            // hands over many small reads, and each report costs the pipeline a queue hop.
            guard state.body.count - state.reported >= AsyncHTTPClientDataLoader.progressStep
                    || Int64(state.body.count) == state.expected else { return (state.observed, nil) }
            state.reported = state.body.count
            return (state.observed, (Int64(state.body.count), max(0, state.expected)))
        }
        guard let step else { return task.eventLoop.makeFailedFuture(ImagePipelineError.dataTooLarge(limit: maxBytes)) }
        if step.observed { observer?(Data(buffer.readableBytesView)) }
        if let report = step.report { progress(report.0, report.1) }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        let last: (Int64, Int64)? = state.withLock { state in
            guard state.reported != state.body.count else { return nil }
            state.reported = state.body.count
            return (Int64(state.body.count), max(0, state.expected))
        }
        if let last { progress(last.0, last.1) }
    }
}
