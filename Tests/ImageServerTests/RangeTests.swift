import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ImageServer

@Suite("Byte ranges")
struct RangeTests {
    static let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    func rangedScript(headers: [String: String] = ["ETag": "\"v1\""]) -> RouteScript {
        var script = RouteScript.data(Self.body, headers: headers)
        script.servesRanges = true
        return script
    }

    @Test func servesTheRequestedBytesWith206() async throws {
        try await withServer { server in
            server.setRoute("/r", rangedScript())
            let (data, response) = try await fetch(server.url("/r"), headers: ["Range": "bytes=1000-1999"])
            #expect(response.statusCode == 206)
            #expect(data == Self.body.subdata(in: 1000..<2000))
            #expect(response.value(forHTTPHeaderField: "Content-Range") == "bytes 1000-1999/100000")
            #expect(response.value(forHTTPHeaderField: "Content-Length") == "1000")
            #expect(response.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")
            #expect(await eventually { server.bytesSent(for: "/r") == 1000 })
            #expect(server.responseCount(for: "/r", status: 206) == 1)
        }
    }

    @Test func servesOpenEndedAndSuffixRanges() async throws {
        try await withServer { server in
            server.setRoute("/r", rangedScript())
            let (tail, open) = try await fetch(server.url("/r"), headers: ["Range": "bytes=99000-"])
            #expect(open.statusCode == 206)
            #expect(tail == Self.body.suffix(1000))
            #expect(open.value(forHTTPHeaderField: "Content-Range") == "bytes 99000-99999/100000")
            let (last, suffix) = try await fetch(server.url("/r"), headers: ["Range": "bytes=-10"])
            #expect(suffix.statusCode == 206)
            #expect(last == Self.body.suffix(10))
            // A last position past the end is cut to the end.
            let (clipped, past) = try await fetch(server.url("/r"), headers: ["Range": "bytes=99990-200000"])
            #expect(past.statusCode == 206)
            #expect(clipped == Self.body.suffix(10))
        }
    }

    @Test func answers416WhenNoByteOfTheRangeExists() async throws {
        try await withServer { server in
            server.setRoute("/r", rangedScript())
            let (_, response) = try await fetch(server.url("/r"), headers: ["Range": "bytes=100000-"])
            #expect(response.statusCode == 416)
            #expect(response.value(forHTTPHeaderField: "Content-Range") == "bytes */100000")
            #expect(server.responseCount(for: "/r", status: 416) == 1)
        }
    }

    @Test func ifRangeWithTheCurrentStrongETagGetsThePart() async throws {
        try await withServer { server in
            server.setRoute("/r", rangedScript())
            let (part, matching) = try await fetch(server.url("/r"), headers: ["Range": "bytes=50000-", "If-Range": "\"v1\""])
            #expect(matching.statusCode == 206)
            #expect(part == Self.body.suffix(50000))
            let (whole, changed) = try await fetch(server.url("/r"), headers: ["Range": "bytes=50000-", "If-Range": "\"v0\""])
            #expect(changed.statusCode == 200)
            #expect(whole == Self.body)
        }
    }

    @Test func ifRangeNeverMatchesAWeakETag() async throws {
        try await withServer { server in
            server.setRoute("/weak", rangedScript(headers: ["ETag": "W/\"v1\""]))
            let (whole, response) = try await fetch(server.url("/weak"), headers: ["Range": "bytes=10-", "If-Range": "W/\"v1\""])
            #expect(response.statusCode == 200)
            #expect(whole == Self.body)
        }
    }

    @Test func ifRangeWithTheLastModifiedDateGetsThePart() async throws {
        try await withServer { server in
            let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
            server.setRoute("/r", rangedScript(headers: ["Last-Modified": modified]))
            let (part, same) = try await fetch(server.url("/r"), headers: ["Range": "bytes=0-9", "If-Range": modified])
            #expect(same.statusCode == 206)
            #expect(part == Self.body.prefix(10))
            let (_, other) = try await fetch(server.url("/r"), headers: ["Range": "bytes=0-9", "If-Range": "Mon, 07 Nov 1994 08:49:37 GMT"])
            #expect(other.statusCode == 200)
        }
    }

    @Test func aRouteWithoutRangesIgnoresRange() async throws {
        try await withServer { server in
            server.setRoute("/plain", .data(Self.body))
            let (data, response) = try await fetch(server.url("/plain"), headers: ["Range": "bytes=0-9"])
            #expect(response.statusCode == 200)
            #expect(data == Self.body)
            #expect(response.value(forHTTPHeaderField: "Accept-Ranges") == nil)
        }
    }

    @Test func aDroppedDownloadResumesWithTheRestOfTheBody() async throws {
        try await withServer { server in
            var script = rangedScript()
            script.fault = .dropConnectionMidBody
            server.setRoute("/big", script)
            await #expect(throws: (any Error).self) { try await fetch(server.url("/big")) }
            #expect(await eventually { server.inFlight == 0 })
            let received = server.bytesSent(for: "/big")
            #expect(received == Self.body.count / 2)
            server.updateRoute("/big") { $0.fault = nil }
            let (rest, response) = try await fetch(server.url("/big"), headers: ["Range": "bytes=\(received)-", "If-Range": "\"v1\""])
            #expect(response.statusCode == 206)
            #expect(Self.body.prefix(received) + rest == Self.body)
            #expect(await eventually { server.bytesSent(for: "/big") == Self.body.count })
        }
    }

    @Test func generatedImagesServeRanges() async throws {
        try await withServer { server in
            let spec = ImageSpec(format: .png, width: 64, height: 64, seed: 2)
            let whole = try await server.generator.data(for: spec)
            let (part, response) = try await fetch(server.url(for: spec), headers: ["Range": "bytes=0-15"])
            #expect(response.statusCode == 206)
            #expect(part == whole.prefix(16))
            #expect(response.value(forHTTPHeaderField: "Content-Range") == "bytes 0-15/\(whole.count)")
        }
    }

    @Test func parsesRangeHeadersAsRFC9110Says() {
        #expect(ByteRange.parse("bytes=0-0", length: 10) == .partial(0..<1))
        #expect(ByteRange.parse("bytes = 2-", length: 10) == .partial(2..<10))
        #expect(ByteRange.parse("bytes=-20", length: 10) == .partial(0..<10))
        #expect(ByteRange.parse("bytes=-0", length: 10) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=10-", length: 10) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=0-", length: 0) == .unsatisfiable)
        #expect(ByteRange.parse("bytes=3-99999999999999999999999", length: 10) == .partial(3..<10))
        #expect(ByteRange.parse("bytes=99999999999999999999999-", length: 10) == .unsatisfiable)
        // Several ranges, other units and malformed values: the whole body.
        for ignored in ["bytes=0-1,3-4", "items=0-1", "bytes=5-2", "bytes=a-b", "bytes=-", "bytes=1-2-3", "bytes", "0-1", "bytes=+1-2"] {
            #expect(ByteRange.parse(ignored, length: 10) == .full, "\(ignored)")
        }
    }
}
