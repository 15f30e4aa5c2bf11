import NIOCore
import NIOHTTP1

/// The last handler of every HTTP/1.1 connection and every HTTP/2 stream: gathers a request,
/// hands it to the ``ScriptedHandler`` and a ``ResponseWriter`` in a task of its own, and cancels
/// that task when the channel goes inactive (the client left, or the server closed it).
///
/// HTTP/1.1 requests come one at a time: NIO's pipelining handler holds the next one back until
/// the response to this one has ended.
final class RequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let handler: ScriptedHandler
    private let tasks: ResponseTasks
    private let isSecure: Bool
    private var head: HTTPRequestHead?
    private var responding: Task<Void, Never>?

    init(handler: ScriptedHandler, tasks: ResponseTasks, isSecure: Bool) {
        self.handler = handler
        self.tasks = tasks
        self.isSecure = isSecure
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break   // request bodies are read and dropped
        case .end:
            guard let head else { return }
            self.head = nil
            let request = IncomingRequest(
                method: head.method.rawValue,
                uri: head.uri,
                headers: head.headers.map { ($0.name, $0.value) },
                httpVersion: head.version.major >= 2 ? "HTTP/2" : "HTTP/\(head.version.major).\(head.version.minor)",
                isSecure: isSecure
            )
            let writer = ResponseWriter(channel: context.channel, version: head.version,
                                        isHEAD: head.method == .HEAD,
                                        keepAlive: head.version.major >= 2 || head.isKeepAlive)
            let handler = self.handler
            responding = tasks.start {
                let (plan, ticket) = await handler.handle(request)
                await writer.write(plan, ticket: ticket)
            }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        responding?.cancel()
        responding = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A malformed request has had its 400 written and flushed by NIO's protocol error handler
        // by now; it, like anything else (a broken connection), ends the connection, never the process.
        context.close(promise: nil)
    }
}
