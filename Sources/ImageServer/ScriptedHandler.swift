import FlyingFox
import Foundation
import ShashinCore
import Shashin

/// Answers every request an ``ImageServer`` receives: scripted routes first, then `/gen/`,
/// `/files/` and `/`. Lives apart from the server so the FlyingFox server it is given to never
/// holds the `ImageServer` itself.
final class ScriptedHandler: HTTPHandler, Sendable {
    /// What a path answers: a fixed script or one computed per request.
    enum Route: Sendable {
        case script(RouteScript)
        case responder(@Sendable (RecordedRequest) -> RouteScript)
    }

    /// Conditions for the routes no script covers (`/gen/`, `/files/`).
    struct Conditions: Sendable {
        var latency: Duration = .zero
        var bytesPerSecond: Int?
        var stallLimit: Duration = .seconds(60)
    }

    let ledger = TrafficLedger()
    let generator: ImageGenerator
    let fileRoot: FileRoot?
    let routes = Locked<[String: Route]>([:])
    let conditions = Locked(Conditions())
    /// Set while the server stops, so stalled responses let go at once.
    let isStopping = Locked(false)

    init(generator: ImageGenerator, filesDirectory: URL?) {
        self.generator = generator
        self.fileRoot = filesDirectory.map(FileRoot.init(directory:))
    }

    func handleRequest(_ request: HTTPRequest) async throws -> HTTPResponse {
        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            headers[name.rawValue] = headers[name.rawValue].map { "\($0), \(value)" } ?? value
        }
        let (recorded, ticket) = ledger.begin(RecordedRequest(
            method: request.method.rawValue,
            path: request.path,
            query: request.query.map { .init(name: $0.name, value: $0.value) },
            headers: headers
        ))
        let script = script(for: recorded)
        do {
            return try await respond(to: recorded, with: script, ticket: ticket)
        } catch {
            // Only the latency wait and image generation throw; the first only when the server stops.
            let text = Data("error: \(error)\n".utf8)
            return Self.response(status: 500, headers: HTTPHeaders(), bytes: text,
                                 declaredLength: text.count, ending: .complete, bytesPerSecond: nil, ticket: ticket)
        }
    }

    // MARK: - Choosing a script

    private func script(for request: RecordedRequest) -> RouteScript {
        switch routes.withLock({ $0[request.path] }) {
        case .script(let script):
            return script
        case .responder(let responder):
            return responder(request)
        case nil:
            break
        }
        let conditions = self.conditions.current
        var script: RouteScript
        if request.path.hasPrefix(ImageSpec.routePrefix) {
            guard let spec = ImageSpec(path: request.path) else {
                return .status(404, text: "not a generated image: expected /gen/<seed>-<width>x<height>.<jpg|png|webp|gif>\n")
            }
            script = .image(spec, headers: [
                "Cache-Control": "public, max-age=86400",
                "ETag": "\"\(spec.seed)-\(spec.width)x\(spec.height)-\(spec.format)\"",
            ])
        } else if request.path.hasPrefix(Self.filesPrefix) {
            script = fileScript(relativePath: String(request.path.dropFirst(Self.filesPrefix.count)))
        } else if request.path == "/" {
            script = .data(Data(Self.index.utf8), contentType: "text/plain; charset=utf-8")
        } else {
            script = .status(404, text: "not found\n")
        }
        script.latency = conditions.latency
        script.bytesPerSecond = conditions.bytesPerSecond
        return script
    }

    static let filesPrefix = "/files/"

    private func fileScript(relativePath: String) -> RouteScript {
        guard let fileRoot else { return .status(404, text: "no directory is served\n") }
        switch fileRoot.resolve(relativePath) {
        case .forbidden:
            return .status(403, text: "forbidden\n")
        case .notFound:
            return .status(404, text: "not found\n")
        case .file(let url):
            guard let data = try? Data(contentsOf: url) else { return .status(404, text: "not found\n") }
            var headers = ["Content-Type": FileRoot.mimeType(for: url)]
            if let modified = try? url.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate {
                headers["Last-Modified"] = HTTPDate.format(modified)
                headers["ETag"] = "\"\(data.count)-\(Int(modified.timeIntervalSince1970))\""
            }
            return .data(data, headers: headers)
        }
    }

    private static let index = """
        Shashin image server
        GET /gen/<seed>-<width>x<height>.<jpg|png|webp|gif>   a generated image, e.g. /gen/7-640x480.jpg
        GET /files/<path>                                     a file of the served directory
        Scripted routes answer whatever their script says.

        """

    // MARK: - Answering

    private func respond(to request: RecordedRequest, with script: RouteScript, ticket: ResponseTicket) async throws -> HTTPResponse {
        if script.latency > .zero {
            try await Task.sleep(for: script.latency)
        }
        if script.fault == .status500 {
            let text = Data("scripted failure\n".utf8)
            return Self.response(status: 500, headers: HTTPHeaders(), bytes: text,
                                 declaredLength: text.count, ending: .complete, bytesPerSecond: nil, ticket: ticket)
        }

        let bytes: Data
        var contentType: String
        switch script.body {
        case .data(let data):
            bytes = data
            contentType = ImageFormat(sniffing: data).map(ImageSpec.mimeType(for:)) ?? "application/octet-stream"
        case .image(let spec):
            bytes = try await generator.data(for: spec)
            contentType = spec.mimeType
        }

        var headers = HTTPHeaders()
        headers[.date] = HTTPDate.format(Date())
        for (name, value) in script.headers where name.caseInsensitiveCompare("Content-Length") != .orderedSame {
            headers[HTTPHeader(name)] = value
        }
        if let given = headers[.contentType] { contentType = given }
        headers[.contentType] = contentType

        var status = script.status
        let isRead = request.method == "GET" || request.method == "HEAD"
        if isRead, status == 200, script.answersConditionalRequests, Self.isNotModified(request, script) {
            status = 304
        }

        // HEAD, 1xx, 204 and 304 carry no body; their Content-Length tells the representation's size.
        let hasBody = request.method != "HEAD" && !(100..<200).contains(status) && status != 204 && status != 304
        var sent = hasBody ? bytes : Data()
        var declared = bytes.count
        var ending = ResponseBody.Ending.complete
        switch script.fault {
        case .dropConnectionMidBody:
            sent = sent.prefix(sent.count / 2)
            ending = .close
        case .shortBody:
            declared = bytes.count + max(1, bytes.count / 8)
            ending = .close
        case .stall:
            sent = Data()
            let isStopping = self.isStopping
            ending = .stall(limit: conditions.current.stallLimit, isStopping: { isStopping.current })
        case .status500, nil:
            break
        }
        return Self.response(status: status, headers: headers, bytes: sent,
                             declaredLength: script.sendsContentLength ? declared : nil,
                             ending: ending, bytesPerSecond: script.bytesPerSecond, ticket: ticket)
    }

    private static func response(status: Int, headers: HTTPHeaders, bytes: Data, declaredLength: Int?,
                                 ending: ResponseBody.Ending, bytesPerSecond: Int?, ticket: ResponseTicket) -> HTTPResponse {
        var headers = headers
        if headers[.date] == nil { headers[.date] = HTTPDate.format(Date()) }
        // Set explicitly, so FlyingFox writes it as is rather than counting the bytes we send;
        // without a declared length the body goes out chunked.
        if let declaredLength { headers[.contentLength] = String(declaredLength) }
        if headers[.contentType] == nil, !bytes.isEmpty {
            headers[.contentType] = "text/plain; charset=utf-8"
        }
        let body = ResponseBody(bytes: bytes, ending: ending, bytesPerSecond: bytesPerSecond, ticket: ticket)
        return HTTPResponse(
            statusCode: HTTPStatusCode(status, phrase: reasonPhrase(for: status)),
            headers: headers,
            body: declaredLength == nil
                ? HTTPBodySequence(from: body, suggestedBufferSize: ResponseBody.unthrottledChunkSize)
                : HTTPBodySequence(from: body, count: bytes.count, suggestedBufferSize: ResponseBody.unthrottledChunkSize)
        )
    }

    // MARK: - Validators

    /// RFC 9110 §13.1: `If-None-Match` (weak comparison) decides when present; otherwise
    /// `If-Modified-Since` against `Last-Modified`.
    static func isNotModified(_ request: RecordedRequest, _ script: RouteScript) -> Bool {
        if let condition = request.header("If-None-Match") {
            guard let etag = script.header("ETag") else { return false }
            let current = opaqueTag(etag)
            return condition.split(separator: ",").contains { candidate in
                let candidate = candidate.trimmingCharacters(in: .whitespaces)
                return candidate == "*" || opaqueTag(candidate) == current
            }
        }
        if let since = request.header("If-Modified-Since").flatMap(HTTPDate.parse),
           let modified = script.header("Last-Modified").flatMap(HTTPDate.parse) {
            return since >= modified
        }
        return false
    }

    private static func opaqueTag(_ tag: String) -> Substring {
        let tag = Substring(tag.trimmingCharacters(in: .whitespaces))
        return tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }

    static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 410: "Gone"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}
