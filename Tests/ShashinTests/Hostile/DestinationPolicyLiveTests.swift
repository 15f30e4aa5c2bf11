import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// The destination policy over real loopback HTTP: every server here is on 127.0.0.1, which the
/// policy refuses unless its endpoint is allowed.
@Suite("Hostile servers: destination policy")
struct DestinationPolicyLiveTests {
    @Test("the first request to a loopback address is refused before connecting", arguments: Loaders.all, PipelinePath.allCases)
    func firstRequest(_ factory: ConfiguredLoader, path: PipelinePath) async throws {
        let fixture = try await HostileFixture.start(factory, path: path, settings: LoaderSettings(destinationPolicy: .publicAddressesOnly))
        #expect(await fixture.pipelineError(.image) as? ImagePipelineError
                == .destinationRefused(host: "127.0.0.1", address: "127.0.0.1"))
        #expect(fixture.origin.requestCount == 0)
        try await fixture.finish()
    }

    @Test("a redirect to another loopback port is refused before it is followed", arguments: Loaders.all, PipelinePath.allCases)
    func redirect(_ factory: ConfiguredLoader, path: PipelinePath) async throws {
        let other = try HostileOrigin(image: try await ImageGenerator.shared.data(for: HostileFixture.image))
        defer { other.stop() }
        // The policy on, with the test's own origin let through by its endpoint.
        let guarded = try await HostileFixture.start(factory, path: path, allowingOwnOrigin: true)
        #expect(await guarded.pipelineError(.redirectToLoopback, query: "to=\(other.port)") as? ImagePipelineError
                == .destinationRefused(host: "127.0.0.1", address: "127.0.0.1"))
        #expect(guarded.origin.requestCount == 1)
        #expect(other.requestCount == 0)
        try await guarded.finish()
    }

    @Test("without the policy the same redirect is followed", arguments: Loaders.all)
    func unrestricted(_ factory: ConfiguredLoader) async throws {
        let other = try HostileOrigin(image: try await ImageGenerator.shared.data(for: HostileFixture.image))
        defer { other.stop() }
        let fixture = try await HostileFixture.start(factory)
        #expect(await fixture.pipelineError(.redirectToLoopback, query: "to=\(other.port)") == nil)
        #expect(other.requestCount == 1)
        try await fixture.finish()
    }
}
