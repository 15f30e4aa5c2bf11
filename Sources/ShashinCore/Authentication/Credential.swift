import Foundation

/// A user name and password answering an HTTP authentication challenge (Basic or Digest).
///
/// Its `description` hides the password, so logging a credential does not leak it.
public struct Credential: Sendable, Hashable, CustomStringConvertible {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// A credential for `user` with `password`.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `user:password` as curl's `-u` takes it (the password may contain `:`); `nil` without a colon.
    public init?(userColonPassword text: String) {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        self.init(user: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    }

    public var description: String { "Credential(user: \(user), password: <hidden>)" }
}
