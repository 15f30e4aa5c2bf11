import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ImageServer

@Suite("Scripted routes")
struct ScriptedRouteTests {
    @Test func sendsScriptedStatusBodyAndHeaders() async throws {
        try await withServer { server in
            server.setRoute("/hello.txt", RouteScript(
                status: 201,
                body: .data(Data("hello".utf8)),
                headers: ["Content-Type": "text/plain", "Cache-Control": "max-age=60", "ETag": "\"v1\"",
                          "Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT", "Expires": "Thu, 01 Dec 2094 16:00:00 GMT",
                          "Vary": "Accept"]
            ))
            let (data, response) = try await fetch(server.url("/hello.txt"))
            #expect(response.statusCode == 201)
            #expect(data == Data("hello".utf8))
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/plain")
            #expect(response.value(forHTTPHeaderField: "Cache-Control") == "max-age=60")
            #expect(response.value(forHTTPHeaderField: "ETag") == "\"v1\"")
            #expect(response.value(forHTTPHeaderField: "Last-Modified") == "Sun, 06 Nov 1994 08:49:37 GMT")
            #expect(response.value(forHTTPHeaderField: "Expires") == "Thu, 01 Dec 2094 16:00:00 GMT")
            #expect(response.value(forHTTPHeaderField: "Vary") == "Accept")
            #expect(response.value(forHTTPHeaderField: "Content-Length") == "5")
            #expect(response.value(forHTTPHeaderField: "Date").flatMap(HTTPDate.parse) != nil)
        }
    }

    @Test func servesAGeneratedImageOnAScriptedPath() async throws {
        try await withServer { server in
            let spec = ImageSpec(format: .png, width: 32, height: 16, seed: 3)
            server.setRoute("/avatar", .image(spec))
            let (data, response) = try await fetch(server.url("/avatar"))
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "image/png")
            #expect(data == (try await server.generator.data(for: spec)))
        }
    }

    @Test func answers304WhenETagMatches() async throws {
        try await withServer { server in
            server.setRoute("/a.jpg", .data(Data([1, 2, 3]), headers: ["ETag": "\"abc\"", "Cache-Control": "max-age=10"]))
            let (data, response) = try await fetch(server.url("/a.jpg"), headers: ["If-None-Match": "\"abc\""])
            #expect(response.statusCode == 304)
            #expect(data.isEmpty)
            #expect(response.value(forHTTPHeaderField: "ETag") == "\"abc\"")
            #expect(response.value(forHTTPHeaderField: "Cache-Control") == "max-age=10")
            #expect(server.bytesSent(for: "/a.jpg") == 0)

            let (_, weak) = try await fetch(server.url("/a.jpg"), headers: ["If-None-Match": "\"x\", W/\"abc\""])
            #expect(weak.statusCode == 304)
        }
    }

    @Test func answers200WhenETagDiffers() async throws {
        try await withServer { server in
            server.setRoute("/a.jpg", .data(Data([1, 2, 3]), headers: ["ETag": "\"abc\""]))
            let (data, response) = try await fetch(server.url("/a.jpg"), headers: ["If-None-Match": "\"old\""])
            #expect(response.statusCode == 200)
            #expect(data == Data([1, 2, 3]))
        }
    }

    @Test func answers304WhenNotModifiedSinceLastModified() async throws {
        try await withServer { server in
            server.setRoute("/a.jpg", .data(Data([1, 2, 3]), headers: ["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"]))
            let (_, same) = try await fetch(server.url("/a.jpg"), headers: ["If-Modified-Since": "Sun, 06 Nov 1994 08:49:37 GMT"])
            #expect(same.statusCode == 304)
            let (_, later) = try await fetch(server.url("/a.jpg"), headers: ["If-Modified-Since": "Mon, 07 Nov 1994 00:00:00 GMT"])
            #expect(later.statusCode == 304)
            let (data, earlier) = try await fetch(server.url("/a.jpg"), headers: ["If-Modified-Since": "Sat, 05 Nov 1994 00:00:00 GMT"])
            #expect(earlier.statusCode == 200)
            #expect(data == Data([1, 2, 3]))
        }
    }

    @Test func ignoresValidatorsWhenToldTo() async throws {
        try await withServer { server in
            var script = RouteScript.data(Data([1]), headers: ["ETag": "\"abc\""])
            script.answersConditionalRequests = false
            server.setRoute("/a", script)
            let (_, response) = try await fetch(server.url("/a"), headers: ["If-None-Match": "\"abc\""])
            #expect(response.statusCode == 200)
        }
    }

    @Test func changesAnswerWhenScriptIsUpdated() async throws {
        try await withServer { server in
            server.setRoute("/flip", .data(Data([9, 9])))
            let (first, response) = try await fetch(server.url("/flip"))
            #expect(response.statusCode == 200)
            #expect(first == Data([9, 9]))

            server.updateRoute("/flip") { $0.status = 304 }
            let (second, flipped) = try await fetch(server.url("/flip"))
            #expect(flipped.statusCode == 304)
            #expect(second.isEmpty)

            server.removeRoute("/flip")
            let (_, removed) = try await fetch(server.url("/flip"))
            #expect(removed.statusCode == 404)
        }
    }

    @Test func responderSeesWhichRequestItIs() async throws {
        try await withServer { server in
            server.setRoute("/flaky") { request in
                request.ordinal == 1 ? .status(503) : .data(Data("ok".utf8))
            }
            let (_, first) = try await fetch(server.url("/flaky"))
            let (data, second) = try await fetch(server.url("/flaky"))
            #expect(first.statusCode == 503)
            #expect(second.statusCode == 200)
            #expect(data == Data("ok".utf8))
        }
    }

    @Test func answersHeadWithLengthButNoBody() async throws {
        try await withServer { server in
            server.setRoute("/a", .data(Data(repeating: 7, count: 1000)))
            let (data, response) = try await fetch(server.url("/a"), method: "HEAD")
            #expect(response.statusCode == 200)
            #expect(data.isEmpty)
            #expect(response.value(forHTTPHeaderField: "Content-Length") == "1000")
            // The connection is still usable: the next request gets the whole body.
            let (body, _) = try await fetch(server.url("/a"))
            #expect(body.count == 1000)
        }
    }

    @Test func appliesLatencyBeforeAnswering() async throws {
        try await withServer { server in
            var script = RouteScript.data(Data([1]))
            script.latency = .milliseconds(200)
            server.setRoute("/slow", script)
            let session = makeSession()
            _ = try await fetch(server.url("/"), session: session)  // connection set up outside the measurement
            let ((_, response), seconds) = try await measure { try await fetch(server.url("/slow"), session: session) }
            #expect(response.statusCode == 200)
            #expect(seconds >= 0.19)
        }
    }

    @Test func appliesLatencyToUnscriptedRoutesWhenSet() async throws {
        try await withServer { server in
            server.latency = .milliseconds(150)
            let ((_, response), seconds) = try await measure { try await fetch(server.url("/")) }
            #expect(response.statusCode == 200)
            #expect(seconds >= 0.14)
        }
    }

    @Test func bandwidthLimitSlowsTheBody() async throws {
        try await withServer { server in
            let body = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0) })
            var script = RouteScript.data(body)
            script.bytesPerSecond = 160_000   // 40 KB in chunks of 8 KB: at least 200 ms
            server.setRoute("/throttled", script)
            let ((data, _), seconds) = try await measure { try await fetch(server.url("/throttled")) }
            #expect(data == body)
            #expect(seconds >= 0.19)
            #expect(server.bytesSent(for: "/throttled") == body.count)
        }
    }
}
