import Foundation
import Testing
@testable import ImageServer

@Suite("Authentication")
struct AuthenticationTests {
    static let body = Data("protected".utf8)

    func protected(_ authentication: Authentication) -> RouteScript {
        var script = RouteScript.data(Self.body)
        script.authentication = authentication
        return script
    }

    /// The parameters of a `WWW-Authenticate` value.
    func parameters(_ challenge: String?) throws -> [String: String] {
        let value = try #require(challenge)
        return try #require(AuthParameters.parse(value)).parameters
    }

    /// An `Authorization: Digest` value answering `challenge` for GET `uri`.
    func digest(_ challenge: [String: String], user: String = "ann", password: String = "secret",
                uri: String, nc: Int = 1, cnonce: String = "0a4f113b") -> String {
        let algorithm = Authentication.DigestAlgorithm(rawValue: challenge["algorithm"] ?? "MD5")!
        let ncText = String(format: "%08x", nc)
        let response = Authenticator.digestResponse(algorithm, user: user, realm: challenge["realm"]!, password: password,
                                                    method: "GET", uri: uri, nonce: challenge["nonce"]!, nc: ncText, cnonce: cnonce)
        return "Digest username=\"\(user)\", realm=\"\(challenge["realm"]!)\", uri=\"\(uri)\", algorithm=\(algorithm.rawValue), "
            + "nonce=\"\(challenge["nonce"]!)\", nc=\(ncText), cnonce=\"\(cnonce)\", qop=auth, response=\"\(response)\", "
            + "opaque=\"\(challenge["opaque"]!)\""
    }

    @Test func computesDigestResponsesAsRFC7616Example() {
        // RFC 7616 §3.9.1.
        func response(_ algorithm: Authentication.DigestAlgorithm) -> String {
            Authenticator.digestResponse(algorithm, user: "Mufasa", realm: "http-auth@example.org", password: "Circle of Life",
                                         method: "GET", uri: "/dir/index.html",
                                         nonce: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", nc: "00000001",
                                         cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
        }
        #expect(response(.md5) == "8ca523f5e9506fed4657c9700eebdbec")
        #expect(response(.sha256) == "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")
    }

    @Test func basicChallengesThenAcceptsTheRightPassword() async throws {
        try await withServer { server in
            server.setRoute("/b", protected(.basic(user: "ann", password: "secret", realm: "photos")))
            let bare = try await RawExchange.get("/b", port: server.port)
            #expect(bare.status == 401)
            #expect(bare.header("WWW-Authenticate") == "Basic realm=\"photos\", charset=\"UTF-8\"")
            let wrong = "Basic " + Data("ann:guess".utf8).base64EncodedString()
            let refused = try await RawExchange.get("/b", headers: ["Authorization": wrong], port: server.port)
            #expect(refused.status == 401)
            let right = "Basic " + Data("ann:secret".utf8).base64EncodedString()
            let accepted = try await RawExchange.get("/b", headers: ["Authorization": right], port: server.port)
            #expect(accepted.status == 200)
            #expect(accepted.body == Self.body)
            #expect(server.challengesSent(for: "/b") == 2)
            #expect(server.authenticatedRequests(for: "/b") == 1)
            #expect(server.responseCount(for: "/b", status: 401) == 2)
        }
    }

    @Test func basicRefusesMalformedCredentials() async throws {
        try await withServer { server in
            server.setRoute("/b", protected(.basic(user: "ann", password: "secret")))
            for value in ["Basic", "Basic !!!", "Basic " + Data("annsecret".utf8).base64EncodedString(), "Bearer x",
                          "Digest username=\"ann\""] {
                let response = try await RawExchange.get("/b", headers: ["Authorization": value], port: server.port)
                #expect(response.status == 401, "\(value)")
            }
            #expect(server.authenticatedRequests(for: "/b") == 0)
        }
    }

    @Test(arguments: [Authentication.DigestAlgorithm.sha256, .md5])
    func digestAcceptsAnAnswerToItsChallenge(algorithm: Authentication.DigestAlgorithm) async throws {
        try await withServer { server in
            server.setRoute("/d.jpg", protected(.digest(user: "ann", password: "secret", realm: "photos", algorithms: [algorithm])))
            let challenged = try await RawExchange.get("/d.jpg?size=2", port: server.port)
            #expect(challenged.status == 401)
            let challenge = try parameters(challenged.header("WWW-Authenticate"))
            #expect(challenge["qop"] == "auth")
            #expect(challenge["algorithm"] == algorithm.rawValue)
            #expect(challenge["realm"] == "photos")
            #expect(challenge["stale"] == nil)
            let accepted = try await RawExchange.get("/d.jpg?size=2", headers: ["Authorization": digest(challenge, uri: "/d.jpg?size=2")], port: server.port)
            #expect(accepted.status == 200)
            #expect(accepted.body == Self.body)
            // The same nonce with the next count is accepted too: one challenge serves many requests.
            let again = try await RawExchange.get("/d.jpg?size=2", headers: ["Authorization": digest(challenge, uri: "/d.jpg?size=2", nc: 2)], port: server.port)
            #expect(again.status == 200)
            #expect(server.challengesSent(for: "/d.jpg") == 1)
            #expect(server.authenticatedRequests(for: "/d.jpg") == 2)
        }
    }

    @Test func digestRefusesAReplayAWrongPasswordAndAnotherURI() async throws {
        try await withServer { server in
            server.setRoute("/d", protected(.digest(user: "ann", password: "secret", algorithms: [.sha256])))
            let challenged = try await RawExchange.get("/d", port: server.port)
            let challenge = try parameters(challenged.header("WWW-Authenticate"))
            let first = digest(challenge, uri: "/d")
            let accepted = try await RawExchange.get("/d", headers: ["Authorization": first], port: server.port)
            #expect(accepted.status == 200)
            let replayed = try await RawExchange.get("/d", headers: ["Authorization": first], port: server.port)
            #expect(replayed.status == 401)
            #expect(try parameters(replayed.header("WWW-Authenticate"))["stale"] == nil)
            let wrong = try await RawExchange.get("/d", headers: ["Authorization": digest(challenge, password: "guess", uri: "/d", nc: 2)], port: server.port)
            #expect(wrong.status == 401)
            let elsewhere = try await RawExchange.get("/d", headers: ["Authorization": digest(challenge, uri: "/other", nc: 3)], port: server.port)
            #expect(elsewhere.status == 401)
            let unknownNonce = try await RawExchange.get("/d", headers: [
                "Authorization": digest(challenge.merging(["nonce": "00ff"]) { $1 }, uri: "/d", nc: 4)], port: server.port)
            #expect(unknownNonce.status == 401)
            #expect(server.authenticatedRequests(for: "/d") == 1)
            #expect(server.challengesSent(for: "/d") == 5)
        }
    }

    @Test func anExpiredNonceGetsAStaleChallengeThenANewNonceWorks() async throws {
        try await withServer { server in
            server.setRoute("/d", protected(.digest(user: "ann", password: "secret", algorithms: [.md5])))
            let challenged = try await RawExchange.get("/d", port: server.port)
            let challenge = try parameters(challenged.header("WWW-Authenticate"))
            let accepted = try await RawExchange.get("/d", headers: ["Authorization": digest(challenge, uri: "/d")], port: server.port)
            #expect(accepted.status == 200)
            server.expireNonces()
            let stale = try await RawExchange.get("/d", headers: ["Authorization": digest(challenge, uri: "/d", nc: 2)], port: server.port)
            #expect(stale.status == 401)
            let renewed = try parameters(stale.header("WWW-Authenticate"))
            #expect(renewed["stale"] == "true")
            #expect(renewed["nonce"] != challenge["nonce"])
            let retried = try await RawExchange.get("/d", headers: ["Authorization": digest(renewed, uri: "/d")], port: server.port)
            #expect(retried.status == 200)
            // A stale nonce with a wrong password is not "stale": the credentials are wrong.
            server.expireNonces()
            let wrong = try await RawExchange.get("/d", headers: ["Authorization": digest(renewed, password: "x", uri: "/d", nc: 2)], port: server.port)
            #expect(try parameters(wrong.header("WWW-Authenticate"))["stale"] == nil)
        }
    }

    @Test func aNonceOutlivingItsLifetimeIsStale() async throws {
        try await withServer { server in
            server.setRoute("/d", protected(.digest(user: "ann", password: "secret", algorithms: [.sha256], nonceLifetime: .zero)))
            let challenged = try await RawExchange.get("/d", port: server.port)
            let challenge = try parameters(challenged.header("WWW-Authenticate"))
            let stale = try await RawExchange.get("/d", headers: ["Authorization": digest(challenge, uri: "/d")], port: server.port)
            #expect(stale.status == 401)
            #expect(try parameters(stale.header("WWW-Authenticate"))["stale"] == "true")
        }
    }

    @Test func parsesAuthParameters() throws {
        let parsed = try #require(AuthParameters.parse(#"Digest realm="a \"b\", c", qop=auth,nc=00000001 , empty="""#))
        #expect(parsed.scheme == "digest")
        #expect(parsed.parameters == ["realm": "a \"b\", c", "qop": "auth", "nc": "00000001", "empty": ""])
        #expect(AuthParameters.parse(#"Digest realm="unterminated"#) == nil)
        #expect(AuthParameters.parse("Digest =x") == nil)
        #expect(AuthParameters.parse("") == nil)
    }
}
