import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one pipeline (or one `AuthenticatingDataLoader`) knows about the servers that asked it
/// for credentials: the credential for each protection space (the provider is asked once per
/// space, even by concurrent requests), the challenge each origin answers pre-emptively (with
/// the Digest nonce and its count), and which origins have been heard from at all.
final class AuthenticationSession: Sendable {
    /// Gives the credential for a protection space, or `nil` to refuse it.
    typealias Provider = @Sendable (ProtectionSpace) async -> Credential?

    /// The challenge an origin answers pre-emptively.
    private struct Answer {
        var space: ProtectionSpace
        var credential: Credential
        var digest: DigestAuthorization?
        /// The last `nc` sent with `digest`'s nonce.
        var count: UInt32 = 0
    }

    private struct State {
        var answers: [Origin: Answer] = [:]
        var credentials: [ProtectionSpace: Task<Credential?, Never>] = [:]
        /// Origins whose first request is on its way: the others wait for it (see `enter`).
        var probing: [Origin: [Int: CheckedContinuation<Void, Never>]] = [:]
        var cancelledWaiters: Set<Int> = []
        var nextWaiter = 0
        /// Origins that have answered at least once.
        var known: Set<Origin> = []
        var answeredChallenges: [ProtectionSpace] = []
    }

    private let provider: Provider?
    /// By lowercased host.
    private let fixed: [String: Credential]
    private let state = Locked(State())

    init(provider: Provider?, credentials: [String: Credential]) {
        self.provider = provider
        var fixed: [String: Credential] = [:]
        for (host, credential) in credentials { fixed[host.lowercased()] = credential }
        self.fixed = fixed
    }

    /// The protection spaces whose challenges were answered with a credential, in order (one
    /// entry per challenge answered, a `stale` nonce included).
    var answeredChallenges: [ProtectionSpace] { state.withLock { $0.answeredChallenges } }

    // MARK: Credentials

    /// The credential for `space`: the host's fixed one, else the provider's answer, asked once
    /// per space (concurrent callers share the one question).
    func credential(for space: ProtectionSpace) async -> Credential? {
        if let credential = fixed[space.host] { return credential }
        guard let provider else { return nil }
        let task = state.withLock { state -> Task<Credential?, Never> in
            if let task = state.credentials[space] { return task }
            let task = Task { await provider(space) }
            state.credentials[space] = task
            return task
        }
        return await task.value
    }

    /// Records that `challenge`, from `space`, is answered with `credential`, and returns the
    /// `Authorization` value for a request of `method` on `url` (Digest: a new nonce, `nc` 1).
    func answer(_ challenge: AuthenticationChallenge, in space: ProtectionSpace, with credential: Credential,
                method: String, url: URL) -> String {
        var answer = Answer(space: space, credential: credential)
        if space.authenticationScheme == .digest {
            answer.digest = DigestAuthorization(
                algorithm: DigestAlgorithm(challenge.parameters["algorithm"]) ?? .md5, realm: space.realm,
                nonce: challenge.parameters["nonce"] ?? "", opaque: challenge.parameters["opaque"],
                usesQop: challenge.offersQopAuth == true)
        }
        return state.withLock { state in
            state.answeredChallenges.append(space)
            return Self.field(&answer, method: method, url: url, into: &state)
        }
    }

    /// The `Authorization` value to send up front to `url`, when its origin has answered a
    /// challenge (Digest: the known nonce with the next `nc`), with the space it is for.
    func preemptive(method: String, url: URL) -> (field: String, space: ProtectionSpace)? {
        guard let origin = Origin(url) else { return nil }
        return state.withLock { state in
            guard var answer = state.answers[origin] else { return nil }
            return (Self.field(&answer, method: method, url: url, into: &state), answer.space)
        }
    }

    private static func field(_ answer: inout Answer, method: String, url: URL, into state: inout State) -> String {
        defer { state.answers[answer.space.origin] = answer }
        guard let digest = answer.digest else {
            return "Basic " + Data("\(answer.credential.user):\(answer.credential.password)".utf8).base64EncodedString()
        }
        answer.count &+= 1
        return digest.field(answer.credential, method: method, uri: DigestAuthorization.requestTarget(of: url),
                            count: answer.count, cnonce: DigestAuthorization.makeClientNonce())
    }

    /// Who the responses of `url`'s origin are fetched as, for the HTTP cache's key: a digest
    /// of the origin and the credential sent there (the answered one, else the host's fixed
    /// one); `nil` when none is. The password cannot be read back from it.
    func cacheIdentity(for url: URL) -> String? {
        guard let origin = Origin(url) else { return nil }
        let credential = state.withLock { $0.answers[origin]?.credential } ?? fixed[origin.host]
        guard let credential else { return nil }
        let text = "shashin-credential\u{0}\(origin)\u{0}\(credential.user)\u{0}\(credential.password)"
        return "auth-" + DigestAlgorithm.sha256.hash(text).prefix(32)
    }

    // MARK: The first request to an origin

    /// Lets the first request to an origin go alone: until it is answered, later ones wait, so
    /// that when it meets a challenge they answer it pre-emptively instead of each meeting it
    /// too. Returns `true` for that first request, which must call `leave` when done.
    /// Cancellation ends the wait at once.
    func enter(_ origin: Origin) async -> Bool {
        enum Entry { case first, proceed, wait(Int) }
        let entry = state.withLock { state -> Entry in
            if state.known.contains(origin) { return .proceed }
            if state.probing[origin] == nil {
                state.probing[origin] = [:]
                return .first
            }
            state.nextWaiter += 1
            return .wait(state.nextWaiter)
        }
        guard case .wait(let id) = entry else {
            if case .first = entry { return true }
            return false
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.cancelledWaiters.remove(id) != nil || state.probing[origin] == nil { return true }
                    state.probing[origin]?[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let continuation = state.probing[origin]?.removeValue(forKey: id) { return continuation }
                state.cancelledWaiters.insert(id)
                return nil
            }
            continuation?.resume()
        }
        state.withLock { _ = $0.cancelledWaiters.remove(id) }
        return false
    }

    /// Ends the first request to `origin`: the waiting ones go.
    func leave(_ origin: Origin) {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.known.insert(origin)
            return state.probing.removeValue(forKey: origin).map { Array($0.values) } ?? []
        }
        for continuation in waiting { continuation.resume() }
    }
}
