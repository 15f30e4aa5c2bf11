import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// Every loader against an origin that breaks HTTP's rules in exact bytes (issue 13), through the
/// pipeline with and without a disk cache (whose HTTP cache calls `loadResponse`).
@Suite("Hostile servers")
struct HostileServerTests {
    static let paths = PipelinePath.allCases

    @Test("a 401 challenge with no credential ends at once as httpStatus(401)", arguments: Loaders.all, paths)
    func challengeIsRefused(_ factory: ConfiguredLoader, path: PipelinePath) async throws {
        // A loader left waiting on the challenge (for a credential nobody gives) ends as `timedOut`
        // at the loader's limits; `httpStatus(401)` says the challenge was answered at once. The
        // limits are far above a loaded machine's delays so that only a hang reaches them.
        let fixture = try await HostileFixture.start(factory, path: path, settings: LoaderSettings(idleTimeout: 20, totalTimeout: 20))
        #expect(await fixture.pipelineError(.authChallenge) as? ImagePipelineError == .httpStatus(401))
        try await fixture.finish()
    }

    @Test("loadResponse gives a refused challenge's 401 response", arguments: Loaders.all)
    func challengeResponse(_ factory: ConfiguredLoader) async throws {
        let fixture = try await HostileFixture.start(factory, settings: LoaderSettings(idleTimeout: 20, totalTimeout: 20))
        let (_, response) = try await fixture.loader.loadResponse(for: URLRequest(url: fixture.origin.url(.authChallenge)),
                                                                  maxBytes: 1 << 20) { _, _ in }
        #expect((response as? HTTPURLResponse)?.statusCode == 401)
        try await fixture.finish()
    }

    @Test("100 Continue and 103 Early Hints are passed over for the final 200",
          arguments: Loaders.all, [HostileBehaviour.continue100, .earlyHints103])
    func interimResponses(_ factory: ConfiguredLoader, behaviour: HostileBehaviour) async throws {
        for path in Self.paths {
            let fixture = try await HostileFixture.start(factory, path: path)
            #expect(await fixture.pipelineError(behaviour) == nil, "\(path)")
            try await fixture.finish()
        }
    }

    @Test("a redirect to file: or data: is refused as unsupportedScheme before it is followed",
          arguments: Loaders.all, [(HostileBehaviour.redirectToFile, "file"), (.redirectToData, "data")])
    func redirectToOtherScheme(_ factory: ConfiguredLoader, redirect: (behaviour: HostileBehaviour, scheme: String)) async throws {
        for path in Self.paths {
            let fixture = try await HostileFixture.start(factory, path: path)
            #expect(await fixture.pipelineError(redirect.behaviour) as? ImagePipelineError == .unsupportedScheme(redirect.scheme))
            #expect(fixture.origin.requestCount == 1, "the redirect was followed (\(path))")
            try await fixture.finish()
        }
    }

    @Test("Name:value with no space loads, or fails saying so where the HTTP stack cannot parse it", arguments: Loaders.all)
    func headerWithoutSpace(_ factory: ConfiguredLoader) async throws {
        let fixture = try await HostileFixture.start(factory)
        let error = await fixture.pipelineError(.headerWithoutSpace)
        if factory.limitations.contains(.headerWithoutSpace) {
            guard case .invalidResponse(let reason)? = error as? ImagePipelineError else {
                Issue.record("expected invalidResponse, got \(String(describing: error))"); return
            }
            #expect(reason.contains("no space after the colon"))
        } else {
            #expect(error == nil)
        }
        try await fixture.finish()
    }

    @Test("two different Content-Length values are an invalid response", arguments: Loaders.all)
    func twoContentLengths(_ factory: ConfiguredLoader) async throws {
        for path in Self.paths {
            let fixture = try await HostileFixture.start(factory, path: path)
            guard case .invalidResponse(let reason)? = await fixture.pipelineError(.twoContentLengths) as? ImagePipelineError else {
                Issue.record("expected invalidResponse (\(path))"); try await fixture.finish(); continue
            }
            #expect(reason.contains("Content-Length"))
            try await fixture.finish()
        }
    }

    @Test("replies that are not HTTP/1.x, a damaged gzip body and a 2 MB header line say what they are",
          arguments: Loaders.all, [(HostileBehaviour.garbageStatusLine, "status line"), (.http09, "status line"),
                                   (.brokenGzip, "Content-Encoding"), (.hugeHeaderLine, "header")])
    func invalidResponses(_ factory: ConfiguredLoader, expected: (behaviour: HostileBehaviour, words: String)) async throws {
        for path in Self.paths {
            let fixture = try await HostileFixture.start(factory, path: path)
            let error = await fixture.pipelineError(expected.behaviour)
            if expected.behaviour == .brokenGzip, factory.limitations.contains(.deliversBodiesAsSent) {
                guard case .decodingFailed(_, let reason)? = error as? ImagePipelineError else {
                    Issue.record("expected decodingFailed, got \(String(describing: error)) (\(path))"); try await fixture.finish(); continue
                }
                #expect(reason.contains("Content-Encoding 'gzip'"), "\(reason)")
                try await fixture.finish()
                continue
            }
            guard case .invalidResponse(let reason)? = error as? ImagePipelineError else {
                Issue.record("expected invalidResponse, got \(String(describing: error)) (\(path))"); try await fixture.finish(); continue
            }
            #expect(reason.contains(expected.words), "\(reason)")
            try await fixture.finish()
        }
    }

    @Test("a server that stops sending times out, saying it timed out", arguments: Loaders.all)
    func stall(_ factory: ConfiguredLoader) async throws {
        let fixture = try await HostileFixture.start(factory, settings: LoaderSettings(idleTimeout: 1, totalTimeout: 60))
        let error = await fixture.pipelineError(.stall)
        #expect((error as? URLError)?.code == .timedOut)
        #expect(error?.localizedDescription == "Timed out: the server sent nothing for 1 s")
        try await fixture.finish()
    }

    @Test("a Content-Length longer than the body is truncatedData; a shorter one, a decoding failure that says why",
          arguments: Loaders.all)
    func lyingContentLength(_ factory: ConfiguredLoader) async throws {
        let fixture = try await HostileFixture.start(factory)
        let imageSize = fixture.origin.image.count
        #expect(await fixture.pipelineError(.longContentLength) as? ImagePipelineError
                == .truncatedData(expected: imageSize * 2, received: imageSize))
        guard case .decodingFailed(_, let reason)? = await fixture.pipelineError(.shortContentLength) as? ImagePipelineError else {
            Issue.record("expected decodingFailed"); try await fixture.finish(); return
        }
        #expect(reason.contains("truncated"), "\(reason)")
        try await fixture.finish()
    }
}

/// The header flood alone, in a process of its own (the Makefile's PROCESS_SUITES): libcurl parses
/// the flood on the thread every URLSession of the process shares, so other tests' requests would
/// wait behind it.
@Suite("Hostile servers: header flood")
struct HostileHeaderFloodTests {
    @Test("51,000 header lines end within the total limit", arguments: Loaders.all)
    func manyHeaderLines(_ factory: ConfiguredLoader) async throws {
        let fixture = try await HostileFixture.start(factory, settings: LoaderSettings(totalTimeout: 2))
        let error = await fixture.loaderError(.manyHeaders)
        if factory.limitations.contains(.quadraticHeaders) {
            #expect((error as? URLError)?.code == .timedOut)
            #expect(error?.localizedDescription == "Timed out: the request did not finish within 2 s")
        } else if factory.limitations.contains(.headerSectionLimit) {
            guard case .invalidResponse(let reason)? = error as? ImagePipelineError else {
                Issue.record("expected invalidResponse, got \(String(describing: error))"); try await fixture.finish(); return
            }
            #expect(reason.contains("header section"), "\(reason)")
        } else {
            #expect(error == nil)
        }
        try await fixture.finish()
    }
}
