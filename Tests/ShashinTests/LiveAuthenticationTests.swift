import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// Counts the questions a credential provider is asked, and answers them.
final class CredentialDesk: Sendable {
    private let asked = Locked<[ProtectionSpace]>([])
    let answer: Credential?

    init(_ answer: Credential?) { self.answer = answer }

    var questions: [ProtectionSpace] { asked.current }

    var provider: AuthenticatingDataLoader.CredentialProvider {
        { [self] space in
            asked.withLock { $0.append(space) }
            return answer
        }
    }
}

/// Challenges answered through the pipeline, against the ImageServer's Basic and Digest routes,
/// on both loaders.
@Suite("Over HTTP: authentication challenges")
struct LiveAuthenticationTests {
    static let ann = Credential(user: "ann", password: "secret")

    static func protectedImage(_ authentication: Authentication, seed: UInt64 = 1, headers: [String: String] = [:]) -> RouteScript {
        var script = RouteScript.image(ImageSpec(format: .jpeg, width: 32, height: 24, seed: seed), headers: headers)
        script.authentication = authentication
        return script
    }

    @Test(arguments: LoaderFactory.all) func basicIsAnsweredWithTheProvidersCredential(loader: LoaderFactory) async throws {
        let desk = CredentialDesk(Self.ann)
        let fixture = try await LiveFixture.start(loader) { $0.credentialProvider = desk.provider }
        fixture.server.setRoute("/b.jpg", Self.protectedImage(.basic(user: "ann", password: "secret", realm: "photos")))
        let image = try await fixture.pipeline.image(for: fixture.server.url("/b.jpg"))
        #expect(image.pixelWidth == 32)
        #expect(fixture.server.challengesSent(for: "/b.jpg") == 1)
        #expect(fixture.server.authenticatedRequests(for: "/b.jpg") == 1)
        #expect(fixture.server.requestCount(for: "/b.jpg") == 2)
        let space = try #require(desk.questions.first)
        #expect(desk.questions.count == 1)
        #expect(space.realm == "photos" && space.authenticationScheme == .basic)
        #expect(space.host == fixture.server.url("/").host && space.port == fixture.server.port && space.scheme == "http")
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all, [Authentication.DigestAlgorithm.md5, .sha256])
    func digestIsAnswered(loader: LoaderFactory, algorithm: Authentication.DigestAlgorithm) async throws {
        let fixture = try await LiveFixture.start(loader) { $0.credentials = ["127.0.0.1": Self.ann, "localhost": Self.ann] }
        fixture.server.setRoute("/d.jpg", Self.protectedImage(.digest(user: "ann", password: "secret", algorithms: [algorithm])))
        let image = try await fixture.pipeline.image(for: fixture.server.url("/d.jpg?size=2"))
        #expect(image.pixelWidth == 32)
        #expect(fixture.server.challengesSent(for: "/d.jpg") == 1)
        #expect(fixture.server.authenticatedRequests(for: "/d.jpg") == 1)
        let sent = try #require(fixture.server.lastRequest(for: "/d.jpg")?.header("Authorization"))
        #expect(sent.hasPrefix("Digest ") && sent.contains("algorithm=\(algorithm.rawValue)") && sent.contains("nc=00000001"))
        #expect(!sent.contains("secret"))
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func digestSHA256IsPreferredOverMD5AndBasic(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader) { $0.credentials = ["127.0.0.1": Self.ann, "localhost": Self.ann] }
        // The server offers MD5 first; the client still answers SHA-256.
        fixture.server.setRoute("/d.jpg", Self.protectedImage(.digest(user: "ann", password: "secret", algorithms: [.md5, .sha256])))
        _ = try await fixture.pipeline.image(for: fixture.server.url("/d.jpg"))
        #expect(fixture.server.lastRequest(for: "/d.jpg")?.header("Authorization")?.contains("algorithm=SHA-256") == true)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all, ["basic", "digest"])
    func aWrongPasswordFailsWith401AfterOneRetry(loader: LoaderFactory, scheme: String) async throws {
        let desk = CredentialDesk(Credential(user: "ann", password: "guess"))
        let fixture = try await LiveFixture.start(loader) { $0.credentialProvider = desk.provider }
        let authentication: Authentication = scheme == "basic" ? .basic(user: "ann", password: "secret")
            : .digest(user: "ann", password: "secret")
        fixture.server.setRoute("/w.jpg", Self.protectedImage(authentication))
        let task = fixture.task(ImageRequest(url: fixture.server.url("/w.jpg")))
        #expect(await fixture.error(of: task) as? ImagePipelineError == .httpStatus(401))
        #expect(fixture.server.requestCount(for: "/w.jpg") == 2)
        #expect(fixture.server.challengesSent(for: "/w.jpg") == 2)
        #expect(fixture.server.authenticatedRequests(for: "/w.jpg") == 0)
        #expect(desk.questions.count == 1)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func aProviderAnsweringNilFailsWith401AndIsAskedOnce(loader: LoaderFactory) async throws {
        let desk = CredentialDesk(nil)
        let fixture = try await LiveFixture.start(loader) { $0.credentialProvider = desk.provider }
        for index in 0..<3 {
            fixture.server.setRoute("/n\(index).jpg", Self.protectedImage(.digest(user: "ann", password: "secret")))
            let task = fixture.task(ImageRequest(url: fixture.server.url("/n\(index).jpg")))
            #expect(await fixture.error(of: task) as? ImagePipelineError == .httpStatus(401))
            #expect(fixture.server.requestCount(for: "/n\(index).jpg") == 1)
        }
        #expect(desk.questions.count == 1)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func aStaleNonceIsRetriedWithTheNewOne(loader: LoaderFactory) async throws {
        let desk = CredentialDesk(Self.ann)
        let fixture = try await LiveFixture.start(loader) { $0.credentialProvider = desk.provider }
        for index in 0..<2 {
            fixture.server.setRoute("/s\(index).jpg", Self.protectedImage(.digest(user: "ann", password: "secret"), seed: UInt64(index)))
        }
        _ = try await fixture.pipeline.image(for: fixture.server.url("/s0.jpg"))
        fixture.server.expireNonces()
        _ = try await fixture.pipeline.image(for: fixture.server.url("/s1.jpg"))
        // Sent up front with the expired nonce, challenged as stale, answered with the new nonce.
        #expect(fixture.server.requestCount(for: "/s1.jpg") == 2)
        #expect(fixture.server.challengesSent(for: "/s1.jpg") == 1)
        #expect(fixture.server.authenticatedRequests(for: "/s1.jpg") == 1)
        #expect(desk.questions.count == 1)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all, ["basic", "digest"])
    func aHundredProtectedImagesMeetOneChallenge(loader: LoaderFactory, scheme: String) async throws {
        let desk = CredentialDesk(Self.ann)
        let fixture = try await LiveFixture.start(loader) { $0.credentialProvider = desk.provider }
        let authentication: Authentication = scheme == "basic" ? .basic(user: "ann", password: "secret")
            : .digest(user: "ann", password: "secret")
        let paths = (0..<100).map { "/feed/\($0).jpg" }
        for (index, path) in paths.enumerated() {
            fixture.server.setRoute(path, Self.protectedImage(authentication, seed: UInt64(index)))
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for path in paths {
                group.addTask { try await fixture.pipeline.image(for: fixture.server.url(path)).pixelWidth }
            }
            for try await width in group { #expect(width == 32) }
        }
        #expect(paths.map { fixture.server.challengesSent(for: $0) }.reduce(0, +) == 1)
        #expect(paths.map { fixture.server.authenticatedRequests(for: $0) }.reduce(0, +) == 100)
        #expect(fixture.server.totalRequests == 101)
        #expect(desk.questions.count == 1)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func credentialsDoNotFollowARedirectToAnotherOrigin(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader) { $0.credentialProvider = CredentialDesk(Self.ann).provider }
        let other = ImageServer()
        try await other.start()
        fixture.server.setRoute("/p.jpg", Self.protectedImage(.basic(user: "ann", password: "secret")))
        other.setRoute("/elsewhere.jpg", RouteScript.image(ImageSpec(format: .jpeg, width: 32, height: 24, seed: 9)))
        var redirect = RouteScript.status(302)
        redirect.headers["Location"] = other.url("/elsewhere.jpg").absoluteString
        fixture.server.setRoute("/moved.jpg", redirect)

        _ = try await fixture.pipeline.image(for: fixture.server.url("/p.jpg"))
        _ = try await fixture.pipeline.image(for: fixture.server.url("/moved.jpg"))
        // Sent up front to the origin that challenged, and not carried to the other one.
        #expect(fixture.server.lastRequest(for: "/moved.jpg")?.header("Authorization")?.hasPrefix("Basic ") == true)
        let arrived = try #require(other.lastRequest(for: "/elsewhere.jpg"))
        #expect(arrived.header("Authorization") == nil)
        await other.stop()
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func aChallengeFromAnotherPortIsAskedForAfresh(loader: LoaderFactory) async throws {
        let desk = CredentialDesk(Self.ann)
        let fixture = try await LiveFixture.start(loader) { $0.credentialProvider = desk.provider }
        let other = ImageServer()
        try await other.start()
        fixture.server.setRoute("/p.jpg", Self.protectedImage(.basic(user: "ann", password: "secret")))
        other.setRoute("/q.jpg", Self.protectedImage(.basic(user: "ann", password: "secret")))
        _ = try await fixture.pipeline.image(for: fixture.server.url("/p.jpg"))
        _ = try await fixture.pipeline.image(for: other.url("/q.jpg"))
        #expect(other.challengesSent(for: "/q.jpg") == 1)
        #expect(Set(desk.questions.map(\.port)) == [fixture.server.port, other.port])
        await other.stop()
        try await fixture.finish()
    }
}
