import Foundation
import Testing
@testable import ShashinCore

@Suite("Authentication: WWW-Authenticate parsing")
struct AuthenticationChallengeTests {
    @Test func parsesOneBasicChallenge() {
        let challenges = AuthenticationChallenge.parse(#"Basic realm="photos", charset="UTF-8""#)
        #expect(challenges == [AuthenticationChallenge(scheme: "basic", parameters: ["realm": "photos", "charset": "UTF-8"])])
    }

    @Test func parsesSeveralChallengesInOneField() {
        let field = #"Digest realm="a, b", qop="auth", algorithm=SHA-256, nonce="n1", opaque="o", "#
            + #"Digest realm="a, b", qop="auth", algorithm=MD5, nonce="n1", opaque="o", Basic realm="a, b""#
        let challenges = AuthenticationChallenge.parse(field)
        #expect(challenges.map(\.scheme) == ["digest", "digest", "basic"])
        #expect(challenges.map { $0.parameters["algorithm"] } == ["SHA-256", "MD5", nil])
        #expect(challenges.allSatisfy { $0.realm == "a, b" })
        #expect(challenges[0].parameters["nonce"] == "n1")
    }

    @Test func unescapesQuotedStrings() {
        let challenges = AuthenticationChallenge.parse(#"Basic realm="say \"hi\" \\ there""#)
        #expect(challenges.first?.realm == #"say "hi" \ there"#)
    }

    @Test func namesAreCaseInsensitiveAndSpacingIsLoose() {
        let challenges = AuthenticationChallenge.parse("  DIGEST   Realm = \"r\" ,NONCE=abc ,, qop=\"auth,auth-int\"")
        #expect(challenges == [AuthenticationChallenge(scheme: "digest", parameters: ["realm": "r", "nonce": "abc", "qop": "auth,auth-int"])])
        #expect(challenges.first?.offersQopAuth == true)
    }

    @Test func readsToken68Challenges() {
        let challenges = AuthenticationChallenge.parse(#"Negotiate abc+/d==, Bearer, Basic realm="x""#)
        #expect(challenges.map(\.scheme) == ["negotiate", "bearer", "basic"])
        #expect(challenges[0].token68 == "abc+/d==")
        #expect(challenges[1].token68 == nil && challenges[1].parameters.isEmpty)
        #expect(challenges[2].realm == "x")
    }

    @Test func keepsTheChallengesBeforeAMalformedOne() {
        #expect(AuthenticationChallenge.parse(#"Basic realm="x", Digest realm="unterminated"#).map(\.scheme) == ["basic"])
        #expect(AuthenticationChallenge.parse("realm=\"no scheme\"").isEmpty)
        #expect(AuthenticationChallenge.parse("").isEmpty)
        #expect(AuthenticationChallenge.parse("Basic realm=\"x\", charset=").isEmpty)
    }

    @Test func survivesArbitraryBytes() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("Basic Digest realm=\"\\,= \té".unicodeScalars)
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<40, using: &generator)
            let text = String(String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement(using: &generator)! }))
            _ = AuthenticationChallenge.preferred(in: AuthenticationChallenge.parse(text))
        }
    }

    @Test func prefersDigestSHA256ThenMD5ThenBasic() {
        let basic = AuthenticationChallenge(scheme: "basic", parameters: ["realm": "r"])
        let md5 = AuthenticationChallenge(scheme: "digest", parameters: ["realm": "r", "nonce": "n", "qop": "auth"])
        let sha = AuthenticationChallenge(scheme: "digest", parameters: ["realm": "r", "nonce": "n", "qop": "auth", "algorithm": "SHA-256"])
        let sess = AuthenticationChallenge(scheme: "digest", parameters: ["realm": "r", "nonce": "n", "algorithm": "SHA-256-sess"])
        let authIntOnly = AuthenticationChallenge(scheme: "digest", parameters: ["realm": "r", "nonce": "n", "qop": "auth-int"])
        let bearer = AuthenticationChallenge(scheme: "bearer")
        #expect(AuthenticationChallenge.preferred(in: [basic, md5, sha]) == sha)
        #expect(AuthenticationChallenge.preferred(in: [sha, md5, basic]) == sha)
        #expect(AuthenticationChallenge.preferred(in: [basic, md5]) == md5)
        #expect(AuthenticationChallenge.preferred(in: [sess, authIntOnly, basic]) == basic)
        #expect(AuthenticationChallenge.preferred(in: [bearer, sess]) == nil)
    }
}
