import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
@testable import Shashin
@testable import ShashinAsyncHTTPClient
import NIOCore
import Testing

/// A transport failure reaches the caller as the platform's `URLError`, through the pipeline,
/// on both loaders, so an app matches the codes it knows from URLSession; the AsyncHTTPClient
/// loader's own error stays underneath.
@Suite("Over HTTP: transport failures are URLErrors on both loaders")
struct LivePlatformErrorTests {
    @Test(arguments: LoaderFactory.all) func aRefusedConnectionIsCaughtAsURLError(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let closed = try ClosedPort()
        do {
            _ = try await fixture.pipeline.image(for: closed.url("/gone.jpg"))
            Issue.record("an image came from a closed port")
        } catch let error as URLError where error.code == .cannotConnectToHost {
            if loader == .asyncHTTPClient { #expect(error.underlyingError != nil, "the client's own error stays reachable") }
        } catch {
            Issue.record("expected URLError.cannotConnectToHost, got \(error)")
        }
        withExtendedLifetime(closed) {}
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func aConnectionClosedBeforeTheResponseIsNetworkConnectionLost(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let server = try RawHTTPServer { _ in .init(bytes: Data(), closes: true) }
        defer { server.stop() }
        do {
            _ = try await fixture.pipeline.image(for: server.url("/empty.jpg"))
            Issue.record("an image came from a server that sent nothing")
        } catch let error as URLError {
            #expect(error.code == .networkConnectionLost, "\(error)")
        }
        try await fixture.finish()
    }

    /// What no loopback can stage: a machine without a network. The AsyncHTTPClient loader names
    /// it as URLSession does.
    @Test func noNetworkIsNotConnectedToInternetOnTheAsyncHTTPClientLoader() {
        #expect(ClientErrors.connectionCode(of: IOError(errnoCode: ENETUNREACH, reason: "connect")) == .notConnectedToInternet)
        #expect(ClientErrors.connectionCode(of: IOError(errnoCode: ECONNREFUSED, reason: "connect")) == .cannotConnectToHost)
        let failure = ClientErrors.pipelineError(from: IOError(errnoCode: ENETUNREACH, reason: "connect"), inBody: false,
                                                 idleTimeout: nil, totalTimeout: .seconds(1))
        guard let error = failure as? URLError else { Issue.record("\(failure)"); return }
        #expect(error.code == .notConnectedToInternet && error.underlyingError is IOError)
    }
}
