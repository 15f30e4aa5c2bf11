import Foundation
import ShashinCore
import Shashin

/// A request as the connection handler hands it over: everything ``ScriptedHandler`` needs,
/// free of the transport's types.
struct IncomingRequest: Sendable {
    var method: String
    /// The request target as sent: path and query, percent-encoded.
    var uri: String
    var headers: [(name: String, value: String)]
    var httpVersion: String
    var isSecure: Bool
}

/// Answers every request an ``ImageServer`` receives: scripted routes first, then `/gen/`,
/// `/files/` and `/`. It decides each response in full (a ``ResponsePlan``); putting it on the
/// wire is ``ResponseWriter``'s job.
final class ScriptedHandler: Sendable {
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
        /// Drops a seeded fraction of the requests on every route; a route's own fault wins.
        var drops: ConnectionDrops?
    }

    let ledger = TrafficLedger()
    let generator: ImageGenerator
    let fileRoot: FileRoot?
    let responseTimeout: Duration
    let authenticator = Authenticator()
    let routes = Locked<[String: Route]>([:])
    let conditions = Locked(Conditions())

    init(generator: ImageGenerator, filesDirectory: URL?, responseTimeout: Duration) {
        self.generator = generator
        self.fileRoot = filesDirectory.map(FileRoot.init(directory:))
        self.responseTimeout = responseTimeout
    }

    /// Records `request`, then decides its response. The ticket it returns is the response's stay
    /// in flight. Cancelling the calling task (the client left, the server stops) ends a latency
    /// wait at once.
    func handle(_ request: IncomingRequest) async -> (ResponsePlan, ResponseTicket) {
        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        let components = URLComponents(string: request.uri)
        let path = components?.path ?? String(request.uri.prefix { $0 != "?" })
        let (recorded, ticket) = ledger.begin(RecordedRequest(
            method: request.method,
            path: path.isEmpty ? "/" : path,
            query: (components?.queryItems ?? []).map { .init(name: $0.name, value: $0.value ?? "") },
            headers: headers,
            httpVersion: request.httpVersion,
            isSecure: request.isSecure
        ))
        let script = script(for: recorded)
        do {
            var plan = try await respond(to: recorded, uri: request.uri, with: script)
            if script.fault == nil, let drop = conditions.current.drops?.drop(path: recorded.path, ordinal: recorded.ordinal) {
                plan.drop(at: drop)
                ledger.addDrop()
            }
            return (plan, ticket)
        } catch {
            // Only the latency wait and image generation throw; the first only when the client
            // leaves or the server stops, and then the writer finds the connection closed.
            return (.text(500, "error: \(error)\n"), ticket)
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
            script.servesRanges = true
        } else if request.path.hasPrefix(Self.filesPrefix) {
            script = fileScript(relativePath: String(request.path.dropFirst(Self.filesPrefix.count)))
            script.servesRanges = script.status == 200
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

    private func respond(to request: RecordedRequest, uri: String, with script: RouteScript) async throws -> ResponsePlan {
        if script.latency >= responseTimeout {
            try await Task.sleep(for: responseTimeout)
            return .text(500, "response timed out\n")
        }
        if script.latency > .zero {
            try await Task.sleep(for: script.latency)
        }
        if let requirement = script.authentication {
            let outcome = authenticator.check(request.header("Authorization"), requirement: requirement,
                                              method: request.method, uri: uri)
            ledger.addAuthentication(outcome, path: request.path)
            if case .challenge(let stale) = outcome {
                let challenges = authenticator.challenges(for: requirement, stale: stale)
                return .text(401, "unauthorized\n", headers: challenges.map { ("WWW-Authenticate", $0) })
            }
        }
        if script.fault == .status500 {
            return .text(500, "scripted failure\n")
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

        var headers: [(name: String, value: String)] = []
        if script.header("Date") == nil { headers.append(("Date", HTTPDate.format(Date()))) }
        for (name, value) in script.headers.sorted(by: { $0.key < $1.key })
        where name.caseInsensitiveCompare("Content-Length") != .orderedSame
            && name.caseInsensitiveCompare("Content-Type") != .orderedSame {
            headers.append((name, value))
        }
        if let given = script.header("Content-Type") { contentType = given }
        headers.append(("Content-Type", contentType))
        if script.servesRanges, script.header("Accept-Ranges") == nil { headers.append(("Accept-Ranges", "bytes")) }

        var status = script.status
        let isRead = request.method == "GET" || request.method == "HEAD"
        if isRead, status == 200, script.answersConditionalRequests, Self.isNotModified(request, script) {
            status = 304
        }

        // HEAD, 1xx, 204 and 304 carry no body; their Content-Length tells the representation's size.
        let hasBody = request.method != "HEAD" && !(100..<200).contains(status) && status != 204 && status != 304
        var representation = bytes
        if script.servesRanges, request.method == "GET", status == 200 {
            switch ByteRange.evaluate(range: request.header("Range"), ifRange: request.header("If-Range"),
                                      length: bytes.count, etag: script.header("ETag"),
                                      lastModified: script.header("Last-Modified")) {
            case .full:
                break
            case .partial(let range):
                status = 206
                representation = bytes.subdata(in: (bytes.startIndex + range.lowerBound)..<(bytes.startIndex + range.upperBound))
                headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(bytes.count)"))
            case .unsatisfiable:
                headers.removeAll { $0.name == "Content-Type" }
                return .text(416, "range not satisfiable\n", headers: headers + [("Content-Range", "bytes */\(bytes.count)")])
            }
        }
        var sent = hasBody ? representation : Data()
        var declared = representation.count
        var ending = ResponsePlan.Ending.complete
        switch script.fault {
        case .dropConnectionMidBody:
            sent = sent.prefix(sent.count / 2)
            ending = .close
        case .shortBody:
            declared = representation.count + max(1, representation.count / 8)
            ending = .close
        case .stall:
            sent = Data()
            ending = .stall(limit: conditions.current.stallLimit)
        case .status500, nil:
            break
        }
        return ResponsePlan(status: status, headers: headers, body: sent,
                            declaredLength: script.sendsContentLength ? declared : nil,
                            ending: ending, bytesPerSecond: script.bytesPerSecond, gate: script.bodyGate)
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
        case 416: "Range Not Satisfiable"
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
