import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Answers HTTP authentication challenges (Basic, RFC 7617; Digest with MD5 or SHA-256 and
/// `qop=auth`, RFC 7616) around any other loader. The pipeline puts one around its loader when
/// its configuration has a `credentialProvider` or `credentials`.
///
/// On a 401 with `WWW-Authenticate` it picks the strongest challenge it can answer (Digest
/// SHA-256, then MD5, then Basic), asks for the credential of that protection space (once per
/// space), and sends the request once more with `Authorization`. A second 401 is the answer
/// (`httpStatus(401)` from `loadData`), unless it says the Digest nonce is `stale`, which is
/// retried with the new nonce. Later requests to the same origin carry the credential up front
/// (Digest: the known nonce with the next `nc`), and the first request to an origin goes alone,
/// so a list of protected images meets one challenge, not one per image.
///
/// Credentials go only to the origin (scheme, host, port) that asked for them: never to
/// another origin a redirect leads to (the loaders drop `Authorization` on such a redirect),
/// never over `http` for a challenge that came over `https`. A request that carries its own
/// `Authorization` is passed through untouched.
///
/// It sees statuses through the base loader's `loadResponse`, which must deliver a 401 with its
/// header fields (both built-in loaders do); `loadData` then turns any status outside 2xx into
/// `httpStatus`, after that body was read (within `maxBytes`).
///
/// ```swift
/// let loader = AuthenticatingDataLoader(wrapping: URLSessionDataLoader(),
///                                       credentials: ["photos.example.com": Credential(user: "ann", password: "secret")])
/// ```
public final class AuthenticatingDataLoader: DataLoading, Sendable {
    /// Gives the credential for a protection space, or `nil` to refuse it (the request then
    /// fails with `httpStatus(401)`).
    public typealias CredentialProvider = @Sendable (ProtectionSpace) async -> Credential?

    /// The loader requests go through.
    public let base: any DataLoading
    let session: AuthenticationSession

    /// - Parameters:
    ///   - base: the loader that sends the requests.
    ///   - credentials: a fixed credential per host, answering any challenge from that host.
    ///   - provider: asked once per protection space for a host without a fixed credential.
    public init(wrapping base: any DataLoading, credentials: [String: Credential] = [:],
                provider: CredentialProvider? = nil) {
        self.base = base
        self.session = AuthenticationSession(provider: provider, credentials: credentials)
    }

    /// The protection spaces whose challenges were answered with a credential, one entry per
    /// challenge answered (a `stale` nonce included).
    public var answeredChallenges: [ProtectionSpace] { session.answeredChallenges }

    public func loadData(for request: URLRequest, maxBytes: Int,
                         progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        let (data, response) = try await loadResponse(for: request, maxBytes: maxBytes, progress: progress)
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            RetryPolicy.loaderDidRefuse(http)
            throw ImagePipelineError.httpStatus(http.statusCode)
        }
        return (data, response)
    }

    public func loadResponse(for request: URLRequest, maxBytes: Int,
                             progress: @escaping @Sendable (Int64, Int64) -> Void) async throws -> (Data, URLResponse) {
        guard let url = request.url, let origin = Origin(url), request.value(forHTTPHeaderField: "Authorization") == nil else {
            return try await base.loadResponse(for: request, maxBytes: maxBytes, progress: progress)
        }
        let isFirst = await session.enter(origin)
        defer { if isFirst { session.leave(origin) } }
        let method = request.httpMethod?.uppercased() ?? "GET"
        var attempt = request
        /// The space whose credential `attempt` carries.
        var carried: ProtectionSpace?
        if let (field, space) = session.preemptive(method: method, url: url) {
            attempt.setValue(field, forHTTPHeaderField: "Authorization")
            carried = space
        }
        var retried = false
        var staleRetries = 0
        while true {
            let (data, response) = try await base.loadResponse(for: attempt, maxBytes: maxBytes, progress: progress)
            guard let http = response as? HTTPURLResponse, http.statusCode == 401,
                  let field = http.value(forHTTPHeaderField: "WWW-Authenticate"),
                  let challenge = AuthenticationChallenge.preferred(in: AuthenticationChallenge.parse(field)),
                  let scheme = AuthenticationScheme(challenge.scheme),
                  let challengedURL = http.url ?? attempt.url, let challenged = Origin(challengedURL)
            else { return (data, response) }
            let space = ProtectionSpace(origin: challenged, realm: challenge.realm ?? "", authenticationScheme: scheme)
            if challenge.isStale, scheme == .digest, carried == space {
                // The credential was right; only the nonce expired.
                guard staleRetries < 2 else { return (data, response) }
                staleRetries += 1
            } else {
                guard !retried else { return (data, response) }
                retried = true
            }
            try Task.checkCancellation()
            guard let credential = await session.credential(for: space) else { return (data, response) }
            // The retry goes where the challenge came from (after a redirect, that URL).
            attempt.url = challengedURL
            attempt.setValue(session.answer(challenge, in: space, with: credential, method: method, url: challengedURL),
                             forHTTPHeaderField: "Authorization")
            carried = space
        }
    }
}

extension AuthenticationScheme {
    /// The scheme of a parsed challenge (lowercased name); `nil` for one not answered.
    init?(_ name: String) {
        switch name {
        case "basic": self = .basic
        case "digest": self = .digest
        default: return nil
        }
    }
}
