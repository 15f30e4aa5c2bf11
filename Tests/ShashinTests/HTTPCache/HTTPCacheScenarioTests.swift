import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
@testable import ShashinCore
import Shashin
import Testing

/// RFC 9111 over real HTTP: `HTTPCache` with each loader and a `DiskCache` against
/// `ImageServer` on loopback, each scenario on its own server and folder, with a clock the test
/// moves (no sleeping).
@Suite("HTTP caching scenarios over real HTTP")
struct HTTPCacheScenarioTests {
    @Test("scenario", arguments: HTTPScenarios.all, LoaderFactory.all)
    func scenario(_ scenario: HTTPScenario, kind: LoaderFactory) async throws {
        let server = ImageServer()
        try await server.start()
        let start = Date()
        let clock = Locked(start)
        let path = "/resource"
        server.setRoute(path) { request in
            var headers = scenario.headers(request.ordinal, start, clock.current)
            if !headers.keys.contains(where: { $0.caseInsensitiveCompare("Date") == .orderedSame }) {
                headers["Date"] = httpDate(clock.current)
            }
            return RouteScript(status: scenario.status, body: .data(HTTPScenario.body(request.ordinal)), headers: headers)
        }
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let loader = kind.make()
        let cache = HTTPCache(loader: loader, storage: try DiskCache(configuration: .init(directory: folder)), now: { clock.current })
        let hasBody = scenario.status != 204
        var storedBody = Data()

        for (index, step) in scenario.steps.enumerated() {
            clock.withLock { $0 += step.after }
            var request = URLRequest(url: server.url(path))
            for (name, value) in step.headers { request.setValue(value, forHTTPHeaderField: name) }
            let before = server.requestCount(for: path)
            let answer: HTTPCachedResponse
            do {
                answer = try await cache.response(for: request)
            } catch {
                #expect(step.expect == .cacheMiss && error as? ImagePipelineError == .cacheMiss, "step \(index): \(error)")
                #expect(server.requestCount(for: path) == before, "step \(index): the server was asked")
                continue
            }
            let sent = server.requestCount(for: path) - before
            let last = server.lastRequest(for: path)
            let sentValidator = sent == 1 && (last?.header("If-None-Match") != nil || last?.header("If-Modified-Since") != nil)
            let observed: HTTPScenario.Expect = switch (answer.source, sent, sentValidator) {
            case (.cache, 0, _): .cache
            case (.revalidated, 1, true): .revalidated
            case (.network, 1, true): .replaced
            case (.network, 1, false): .network
            default: .cacheMiss // nothing a step can expect: fails below
            }
            #expect(observed == step.expect, "step \(index): source \(answer.source), \(sent) sent, validator \(sentValidator)")
            #expect(answer.statusCode == scenario.status, "step \(index)")
            if answer.source == .network {
                let sentBody = hasBody ? HTTPScenario.body(server.requestCount(for: path)) : Data()
                #expect(answer.data == sentBody, "step \(index): body")
                let noStore = [answer.response.value(forHTTPHeaderField: "Cache-Control"), step.headers["Cache-Control"]]
                    .contains { $0?.contains("no-store") == true }
                if !noStore { storedBody = sentBody }
            } else {
                #expect(answer.data == storedBody, "step \(index): stored body")
            }
            if let check = step.check { #expect(check(answer), "step \(index): check") }
        }
        await server.stop()
        try await shutDown(loader)
    }
}
