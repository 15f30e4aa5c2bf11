import ArgumentParser
import Foundation
import Shashin

/// `--user NAME:PASSWORD` (`-u`, as curl's): credentials for the URL's host, answering its Basic
/// or Digest challenge.
struct UserOption: ParsableArguments {
    @Option(name: [.customShort("u"), .customLong("user")],
            help: "Answer the host's authentication challenge (Basic or Digest) with NAME:PASSWORD, as curl's -u.")
    var user: String?

    func validate() throws {
        if let user, Credential(userColonPassword: user) == nil {
            throw ValidationError("--user takes NAME:PASSWORD")
        }
    }

    /// `base` answering challenges from `url`'s host with the credential, or `base` as is without `--user`.
    func wrap(_ base: any DataLoading, for url: URL) -> any DataLoading {
        guard let user, let credential = Credential(userColonPassword: user), let host = url.host else { return base }
        return AuthenticatingDataLoader(wrapping: base, credentials: [host: credential])
    }

    /// One line per challenge `loader` answered, for the command's report.
    static func report(_ loader: any DataLoading) {
        guard let authenticating = loader as? AuthenticatingDataLoader else { return }
        for space in authenticating.answeredChallenges { print("authentication: answered \(space)") }
    }
}
