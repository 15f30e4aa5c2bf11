import Foundation
import Testing
@testable import ShashinCore

@Suite("Authentication: what a session sends where")
struct AuthenticationSessionTests {
    let ann = Credential(user: "ann", password: "secret")
    let digestChallenge = AuthenticationChallenge(scheme: "digest", parameters: [
        "realm": "photos", "nonce": "abc", "qop": "auth", "algorithm": "SHA-256", "opaque": "o",
    ])

    func space(_ url: String, _ scheme: AuthenticationScheme = .digest) -> ProtectionSpace {
        ProtectionSpace(origin: Origin(URL(string: url)!)!, realm: "photos", authenticationScheme: scheme)
    }

    @Test func credentialsGoOnlyToTheOriginThatChallenged() throws {
        let session = AuthenticationSession(provider: nil, credentials: [:])
        let challenged = try #require(URL(string: "https://photos.example.com/a/1.jpg"))
        _ = session.answer(AuthenticationChallenge(scheme: "basic", parameters: ["realm": "photos"]),
                           in: space("https://photos.example.com", .basic), with: ann, method: "GET", url: challenged)
        #expect(session.preemptive(method: "GET", url: URL(string: "https://photos.example.com/b/2.jpg")!)?.field.hasPrefix("Basic ") == true)
        #expect(session.preemptive(method: "GET", url: URL(string: "https://PHOTOS.example.com:443/c.jpg")!) != nil)
        // Plain HTTP, another port, another host: nothing.
        #expect(session.preemptive(method: "GET", url: URL(string: "http://photos.example.com/b/2.jpg")!) == nil)
        #expect(session.preemptive(method: "GET", url: URL(string: "https://photos.example.com:8443/b/2.jpg")!) == nil)
        #expect(session.preemptive(method: "GET", url: URL(string: "https://cdn.example.com/b/2.jpg")!) == nil)
    }

    @Test func digestCountsEachRequestOnTheNonce() throws {
        let session = AuthenticationSession(provider: nil, credentials: [:])
        let url = try #require(URL(string: "http://h:8080/p.jpg?x=1"))
        let first = session.answer(digestChallenge, in: space("http://h:8080"), with: ann, method: "GET", url: url)
        let second = try #require(session.preemptive(method: "GET", url: url)).field
        let third = try #require(session.preemptive(method: "GET", url: URL(string: "http://h:8080/q.jpg")!)).field
        let parsed = [first, second, third].compactMap { AuthenticationChallenge.parse($0).first?.parameters }
        #expect(parsed.map { $0["nc"] } == ["00000001", "00000002", "00000003"])
        #expect(parsed.map { $0["uri"] } == ["/p.jpg?x=1", "/p.jpg?x=1", "/q.jpg"])
        #expect(Set(parsed.compactMap { $0["cnonce"] }).count == 3)
        #expect(parsed.allSatisfy { $0["nonce"] == "abc" && $0["algorithm"] == "SHA-256" && $0["opaque"] == "o" })
        let expected = DigestAuthorization.response(.sha256, user: "ann", realm: "photos", password: "secret", method: "GET",
                                                    uri: "/q.jpg", nonce: "abc", nc: "00000003", cnonce: parsed[2]["cnonce"]!)
        #expect(parsed[2]["response"] == expected)
    }

    @Test func theProviderIsAskedOnceForConcurrentChallenges() async {
        let questions = Locked(0)
        let session = AuthenticationSession(provider: { [ann] _ in
            questions.withLock { $0 += 1 }
            try? await Task.sleep(nanoseconds: 20_000_000)
            return ann
        }, credentials: [:])
        let target = space("http://h:1")
        let answers = await withTaskGroup(of: Credential?.self) { group in
            for _ in 0..<20 { group.addTask { await session.credential(for: target) } }
            return await group.reduce(into: [Credential?]()) { $0.append($1) }
        }
        #expect(answers.count == 20 && answers.allSatisfy { $0 == ann })
        #expect(questions.current == 1)
        _ = await session.credential(for: space("http://h:2"))
        #expect(questions.current == 2)
    }

    @Test func theCacheIdentityNamesTheCredentialWithoutRevealingIt() throws {
        let url = try #require(URL(string: "http://h:8080/p.jpg"))
        let fixed = AuthenticationSession(provider: nil, credentials: ["H": ann])
        let identity = try #require(fixed.cacheIdentity(for: url))
        #expect(!identity.contains("secret") && !identity.contains("ann"))
        #expect(AuthenticationSession(provider: nil, credentials: ["h": Credential(user: "ann", password: "other")])
            .cacheIdentity(for: url) != identity)
        #expect(fixed.cacheIdentity(for: URL(string: "http://h:8081/p.jpg")!) != identity)
        #expect(AuthenticationSession(provider: nil, credentials: [:]).cacheIdentity(for: url) == nil)
        let answered = AuthenticationSession(provider: nil, credentials: [:])
        _ = answered.answer(digestChallenge, in: space("http://h:8080"), with: ann, method: "GET", url: url)
        #expect(answered.cacheIdentity(for: url) == identity)
    }

    @Test func aWaitForTheFirstRequestEndsWhenItDoes() async {
        let session = AuthenticationSession(provider: nil, credentials: [:])
        let origin = Origin(URL(string: "http://h:1")!)!
        #expect(await session.enter(origin))
        let waiter = Task { await session.enter(origin) }
        let cancelled = Task { await session.enter(origin) }
        cancelled.cancel()
        #expect(await cancelled.value == false)
        session.leave(origin)
        #expect(await waiter.value == false)
        #expect(await session.enter(origin) == false)
    }
}
