import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// Signed URLs over real HTTP: one image behind a new `?Signature=…&Expires=…` every time is one
/// entry in every cache once an identifier names it (the request's `imageID`, or the pipeline's
/// `imageIDRule`), while each request still goes to its own URL.
@Suite("Over HTTP: image identifiers for signed URLs")
struct LiveImageIDTests {
    static let signatureRule = ImageIDRule.droppingQueryItems(["Signature", "Expires"])

    /// The `Signature` a request was sent with.
    static func signature(of request: RecordedRequest) -> String? {
        request.query.first { $0.name == "Signature" }?.value
    }

    /// The image at `path` signed with `n`.
    static func signed(_ server: ImageServer, _ path: String, _ n: Int) -> URL {
        server.url("\(path)?w=64&Signature=sig\(n)&Expires=\(1_700_000_000 + n)")
    }

    @Test("50 loads through 50 signatures: 1 download with the rule, 50 without", arguments: LoaderFactory.all)
    func fiftySignaturesOneDownload(loader: LoaderFactory) async throws {
        for withRule in [true, false] {
            let fixture = try await LiveFixture.start(loader) { if withRule { $0.imageIDRule = Self.signatureRule } }
            _ = fixture.serveImage("/signed.jpg")
            for n in 0..<50 {
                let image = try await fixture.pipeline.image(for: Self.signed(fixture.server, "/signed.jpg", n))
                #expect(image.pixelWidth == 64)
            }
            #expect(fixture.server.requestCount(for: "/signed.jpg") == (withRule ? 1 : 50))
            // The one download went to the first signed URL, as sent.
            #expect(fixture.server.lastRequest(for: "/signed.jpg").flatMap(Self.signature) == (withRule ? "sig0" : "sig49"))
            try await fixture.finish()
        }
    }

    @Test("without memory, 50 signatures read one disk entry: 1 download")
    func fiftySignaturesFromDisk() async throws {
        let (fixture, disk) = try await LiveFixture.startOnDisk()
        fixture.server.setRoute("/disk.jpg", RouteScript.image(ImageSpec(format: .jpeg, width: 40, height: 30, seed: 5),
                                                               headers: ["Cache-Control": "max-age=3600"]))
        for n in 0..<50 {
            let request = { var request = ImageRequest(url: Self.signed(fixture.server, "/disk.jpg", n)); request.imageID = "photo-42"; return request }()
            let response = try await fixture.pipeline.response(for: request)
            #expect(response.cacheType == (n == 0 ? .none : .disk))
        }
        #expect(fixture.server.requestCount(for: "/disk.jpg") == 1)
        #expect(try disk.entries().map(\.key) == ["image-id:photo-42"])
        try await fixture.finish()
    }

    @Test("a download in flight is joined by a request with another signature")
    func inFlightCoalesces() async throws {
        let fixture = try await LiveFixture.start(.asyncHTTPClient) { $0.imageIDRule = Self.signatureRule }
        let gate = BodyGate(stops: [100])
        _ = fixture.serveImage("/flight.jpg", width: 200, height: 150, gate: gate)
        let first = fixture.task(ImageRequest(url: Self.signed(fixture.server, "/flight.jpg", 1)))
        try await waitFor { gate.reachedStops == 1 }
        let second = fixture.task(ImageRequest(url: Self.signed(fixture.server, "/flight.jpg", 2), thumbnail: .init(maxPixelSize: 50)))
        #expect(fixture.pipeline.activeTaskCount == 2)
        gate.releaseAll()
        let (a, b) = try await (first.image, second.image)
        #expect(a.pixelWidth == 200 && b.pixelWidth == 50)
        #expect(fixture.server.requestCount(for: "/flight.jpg") == 1)
        try await fixture.finish()
    }

    @Test("a resume continues across a signature change", arguments: LoaderFactory.all)
    func resumeAcrossSignatures(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader) { $0.imageIDRule = Self.signatureRule }
        let big = try await LiveResumeTests.bigImage()
        var script = RouteScript.data(big, contentType: "image/png", headers: ["ETag": "\"v1\""])
        script.servesRanges = true
        script.fault = .dropConnectionMidBody
        fixture.server.setRoute("/resume.png", script)
        await #expect(throws: (any Error).self) {
            try await fixture.pipeline.data(for: ImageRequest(url: Self.signed(fixture.server, "/resume.png", 1)))
        }
        let store = try #require(fixture.pipeline.configuration.resumableData)
        #expect(store.count == 1)
        try await waitFor { fixture.server.inFlight == 0 }
        fixture.server.updateRoute("/resume.png") { $0.fault = nil }

        let (data, _) = try await fixture.pipeline.data(for: ImageRequest(url: Self.signed(fixture.server, "/resume.png", 2)))
        #expect(data == big)
        let resumed = try #require(fixture.server.lastRequest(for: "/resume.png"))
        #expect(Self.signature(of: resumed) == "sig2", "sent to the new URL")
        #expect(resumed.header("Range")?.hasPrefix("bytes=") == true && resumed.header("If-Range") == "\"v1\"")
        #expect(fixture.server.responseCount(for: "/resume.png", status: 206) == 1)
        #expect(store.count == 0)
        try await fixture.finish()
    }

    @Test("a new signature revalidates the stored entry; a new ETag replaces it")
    func revalidationAcrossSignatures() async throws {
        let (fixture, disk) = try await LiveFixture.startOnDisk() {
            $0.imageIDRule = Self.signatureRule
        }
        let first = ImageSpec(format: .jpeg, width: 40, height: 30, seed: 1)
        fixture.server.setRoute("/etag.jpg", RouteScript.image(first, headers: ["ETag": "\"one\"", "Cache-Control": "no-cache"]))
        #expect(try await fixture.pipeline.response(for: ImageRequest(url: Self.signed(fixture.server, "/etag.jpg", 1))).cacheType == .none)

        let second = try await fixture.pipeline.response(for: ImageRequest(url: Self.signed(fixture.server, "/etag.jpg", 2)))
        #expect(second.cacheType == .revalidated)
        let conditional = try #require(fixture.server.lastRequest(for: "/etag.jpg"))
        #expect(conditional.header("If-None-Match") == "\"one\"" && Self.signature(of: conditional) == "sig2")
        #expect(fixture.server.responseCount(for: "/etag.jpg", status: 304) == 1)

        let changed = ImageSpec(format: .jpeg, width: 50, height: 20, seed: 2)
        fixture.server.setRoute("/etag.jpg", RouteScript.image(changed, headers: ["ETag": "\"two\"", "Cache-Control": "no-cache"]))
        let third = try await fixture.pipeline.response(for: ImageRequest(url: Self.signed(fixture.server, "/etag.jpg", 3)))
        #expect(third.cacheType == .none && third.image.pixelWidth == 50)
        let stored = try #require(try fixture.pipeline.cachedData(for: ImageRequest(url: Self.signed(fixture.server, "/etag.jpg", 4))))
        #expect(stored == (try await ImageGenerator.shared.data(for: changed)))
        #expect(try disk.entries().count == 1)
        try await fixture.finish()
    }

    @Test("one identifier, two credentials: two downloads, two stored responses")
    func credentialsStaySeparate() async throws {
        let (fixture, _) = try await LiveFixture.startOnDisk()
        fixture.server.setRoute("/private.jpg", RouteScript.image(ImageSpec(format: .jpeg, width: 40, height: 30, seed: 8),
                                                                  headers: ["Cache-Control": "private, max-age=3600"]))
        func request(_ user: String, _ n: Int) -> ImageRequest {
            var urlRequest = URLRequest(url: Self.signed(fixture.server, "/private.jpg", n))
            urlRequest.setValue("Bearer \(user)", forHTTPHeaderField: "Authorization")
            var request = ImageRequest(source: .urlRequest(urlRequest))
            request.imageID = "private-photo"
            return request
        }
        #expect(try await fixture.pipeline.response(for: request("ann", 1)).cacheType == .none)
        #expect(try await fixture.pipeline.response(for: request("bob", 2)).cacheType == .none)
        #expect(try await fixture.pipeline.response(for: request("bob", 3)).cacheType == .disk)
        #expect(fixture.server.requestCount(for: "/private.jpg") == 2)
        #expect(try fixture.pipeline.cachedData(for: request("eve", 4)) == nil)
        try await fixture.finish()
    }
}
