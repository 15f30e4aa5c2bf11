import Foundation
import NIOCore
import NIOHTTP1

/// Puts a ``ResponsePlan`` on a channel (an HTTP/1.1 connection, or one HTTP/2 stream behind
/// NIO's HTTP/1-style codec): the head, then the body paced to its bandwidth, then the ending the
/// plan asks for.
///
/// Every write is awaited until the connection has taken it, so a body byte is counted only once
/// it was written (the last chunk of a complete body: as it is handed over with the response's
/// end), and a fault's partial body is on the wire before the connection closes.
struct ResponseWriter: Sendable {
    let channel: any Channel
    /// The request's version; an HTTP/2 stream reports 2.0.
    let version: HTTPVersion
    let isHEAD: Bool
    /// Whether the connection stays open after this response (HTTP/1.x keep-alive).
    let keepAlive: Bool

    /// Large enough for few syscalls on big images, small enough to keep memory flat.
    static let unthrottledChunkSize = 64 * 1024

    private var isHTTP2: Bool { version.major >= 2 }

    /// Writes `plan`; returns once it is all written, or the connection failed or closed.
    /// Cancelling the calling task stops a paced body or a stall and closes the connection.
    func write(_ plan: ResponsePlan, ticket: ResponseTicket) async {
        defer { ticket.finish() }
        if plan.ending == .closeBeforeResponse {
            try? await channel.close()
            return
        }
        var headers = HTTPHeaders(plan.headers.map { ($0.name, $0.value) })
        if !headers.contains(name: "Date") { headers.add(name: "Date", value: HTTPDate.format(Date())) }
        let bodyAllowed = !isHEAD && !(100..<200).contains(plan.status) && plan.status != 204 && plan.status != 304
        var closesAfter = !keepAlive
        if let declared = plan.declaredLength {
            headers.replaceOrAdd(name: "Content-Length", value: String(declared))
        } else if bodyAllowed && !isHTTP2 {
            if version.minor >= 1 {
                headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            } else {
                closesAfter = true   // an HTTP/1.0 body without a length ends with the connection
            }
        }
        if !isHTTP2 {
            if closesAfter {
                headers.replaceOrAdd(name: "Connection", value: "close")
            } else if version.minor == 0 {
                headers.replaceOrAdd(name: "Connection", value: "keep-alive")
            }
        }
        let head = HTTPResponseHead(version: isHTTP2 ? .http1_1 : version,
                                    status: HTTPResponseStatus(statusCode: plan.status,
                                                               reasonPhrase: ScriptedHandler.reasonPhrase(for: plan.status)),
                                    headers: headers)
        do {
            try await channel.writeAndFlush(HTTPServerResponsePart.head(head)).get()
            ticket.answered(status: plan.status)
            let body = bodyAllowed ? plan.body : Data()
            switch plan.ending {
            case .complete:
                // The last chunk goes with the end of the response, counted (and the response
                // out of flight) as both are handed over: a client holding the whole body never
                // finds the server still counting it.
                let last = try await writeBody(body, bytesPerSecond: plan.bytesPerSecond, gate: plan.gate, ticket: ticket, holdingLast: true)
                ticket.finish(lastBytes: last?.readableBytes ?? 0)
                if let last {
                    channel.write(HTTPServerResponsePart.body(.byteBuffer(last)), promise: nil)
                }
                try await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
                if closesAfter { try await channel.close() }
            case .close, .closeBeforeResponse: // the second ended before the head, above
                _ = try await writeBody(body, bytesPerSecond: plan.bytesPerSecond, gate: plan.gate, ticket: ticket, holdingLast: false)
                ticket.finish()
                try await channel.close()
            case .stall(let limit):
                _ = try await writeBody(body, bytesPerSecond: plan.bytesPerSecond, gate: plan.gate, ticket: ticket, holdingLast: false)
                // Cancelled by the server's stop or the client's leaving; either way, close.
                try? await Task.sleep(for: limit)
                ticket.finish()
                try await channel.close()
            }
        } catch {
            // The client left, the server stopped, or the task was cancelled: nothing more to send.
            ticket.finish()
            channel.close(promise: nil)
        }
    }

    /// Writes `bytes` in paced chunks, counting each once written. With `holdingLast`, the last
    /// chunk (paced like the others) is returned unwritten, for the caller to send with the end.
    private func writeBody(_ bytes: Data, bytesPerSecond: Int?, gate: BodyGate?, ticket: ResponseTicket,
                           holdingLast: Bool) async throws -> ByteBuffer? {
        let clock = ContinuousClock()
        let start = clock.now
        var offset = 0
        var size = Self.unthrottledChunkSize
        if let rate = bytesPerSecond, rate > 0 { size = min(size, max(1, rate / 20)) }
        var nextStop = 0 // the index in `gate.stops` of the next stop to wait at
        while offset < bytes.count {
            if let gate, nextStop < gate.stops.count, gate.stops[nextStop] <= offset {
                try await gate.pass(stop: nextStop)
                nextStop += 1
                continue
            }
            if let rate = bytesPerSecond, rate > 0 {
                // Bytes [offset, ...) may leave once `offset / rate` seconds have passed: the body
                // as a whole then takes (count - lastChunk) / rate, whatever the chunk size.
                let due = start + .seconds(Double(offset) / Double(rate))
                if due > clock.now { try await Task.sleep(until: due, clock: clock) }
            }
            try Task.checkCancellation()
            var end = min(bytes.count, offset + size)
            if let gate, nextStop < gate.stops.count { end = min(end, gate.stops[nextStop]) }
            let buffer = ByteBuffer(bytes: bytes[(bytes.startIndex + offset)..<(bytes.startIndex + end)])
            if holdingLast && end == bytes.count { return buffer }
            try await channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer))).get()
            ticket.delivered(end - offset)
            offset = end
        }
        return nil
    }
}
