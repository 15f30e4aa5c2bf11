import Foundation
import Testing
@testable import ShashinCore

@Suite("Authentication: Digest and MD5")
struct DigestAuthorizationTests {
    /// RFC 1321 appendix A.5.
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
    ])
    func md5MatchesRFC1321(input: String, digest: String) {
        #expect(DigestAlgorithm.md5.hash(input) == digest)
    }

    /// RFC 7616 §3.9.1: the same vector the ImageServer's own Digest check is tested with.
    @Test func computesTheRFC7616ExampleResponses() {
        func response(_ algorithm: DigestAlgorithm) -> String {
            DigestAuthorization.response(algorithm, user: "Mufasa", realm: "http-auth@example.org", password: "Circle of Life",
                                         method: "GET", uri: "/dir/index.html",
                                         nonce: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", nc: "00000001",
                                         cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
        }
        #expect(response(.md5) == "8ca523f5e9506fed4657c9700eebdbec")
        #expect(response(.sha256) == "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")
    }

    @Test func theFieldCarriesEveryParameterTheServerChecks() throws {
        let digest = DigestAuthorization(algorithm: .sha256, realm: "http-auth@example.org",
                                         nonce: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
                                         opaque: "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", usesQop: true)
        let field = digest.field(Credential(user: "Mufasa", password: "Circle of Life"), method: "GET", uri: "/dir/index.html",
                                 count: 1, cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ")
        let parsed = try #require(AuthenticationChallenge.parse(field).first)
        #expect(parsed.scheme == "digest")
        #expect(parsed.parameters["response"] == "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")
        #expect(parsed.parameters["nc"] == "00000001")
        #expect(parsed.parameters["qop"] == "auth")
        #expect(parsed.parameters["username"] == "Mufasa")
        #expect(parsed.parameters["uri"] == "/dir/index.html")
        #expect(parsed.parameters["opaque"] == "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS")
        #expect(!field.contains("Circle of Life"))
    }

    @Test func theRequestTargetKeepsThePercentEncodedPathAndQuery() throws {
        let url = try #require(URL(string: "http://h:8080/a%20b/c.jpg?size=2&x=%2F#frag"))
        #expect(DigestAuthorization.requestTarget(of: url) == "/a%20b/c.jpg?size=2&x=%2F")
        #expect(DigestAuthorization.requestTarget(of: try #require(URL(string: "http://h"))) == "/")
    }

    @Test func aCredentialDoesNotPrintItsPassword() {
        let credential = Credential(user: "ann", password: "s3cret")
        #expect(!"\(credential)".contains("s3cret"))
        #expect(Credential(userColonPassword: "ann:a:b") == Credential(user: "ann", password: "a:b"))
        #expect(Credential(userColonPassword: "ann") == nil)
    }
}
