import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOHTTP1
import ShashinCore

/// Which request a redirect leads to: only for 301, 302, 303, 307 and 308 with a `Location`,
/// only to a scheme of `RedirectSchemes.current` (`http` and `https`, or fewer).
enum RedirectRule {
    static let statuses: Set<UInt> = [301, 302, 303, 307, 308]

    /// The request to send next, or `nil` when `response` is no redirect to follow (it is then
    /// delivered, or refused, as any other status). A `Location` naming a scheme outside
    /// `allowed` is refused with `unsupportedScheme` before it is resolved: a `file:` location is
    /// never read, nor turned into a path on the same server.
    static func next(after response: HTTPClientResponse, to request: URLRequest,
                     allowed: Set<String> = RedirectSchemes.web) throws -> URLRequest? {
        guard let location = location(status: response.status.code, headers: response.headers),
              let base = request.url else { return nil }
        if let scheme = scheme(of: location), !allowed.contains(scheme) {
            throw ImagePipelineError.unsupportedScheme(scheme)
        }
        guard let target = URL(string: location, relativeTo: base)?.absoluteURL, target.host != nil else {
            throw ImagePipelineError.invalidURL(String(location.prefix(64)))
        }
        let scheme = target.scheme?.lowercased() ?? ""
        guard allowed.contains(scheme) else { throw ImagePipelineError.unsupportedScheme(scheme) }

        var next = request
        next.url = target
        let method = request.httpMethod?.uppercased() ?? "GET"
        // 303 always, and 301/302 after a POST (as every browser does), turn into a GET without a body.
        if response.status.code == 303 && method != "HEAD" || (response.status.code == 301 || response.status.code == 302) && method == "POST" {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
            next.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        // Credentials meant for one origin do not follow the client to another.
        if origin(of: target) != origin(of: base) {
            for name in ["Authorization", "Cookie", "Proxy-Authorization"] { next.setValue(nil, forHTTPHeaderField: name) }
        }
        return next
    }

    /// Whether `head` is a redirect `next(after:to:)` follows or refuses, rather than a response
    /// delivered as it is.
    static func isRedirect(_ head: HTTPResponseHead) -> Bool {
        location(status: head.status.code, headers: head.headers) != nil
    }

    /// The `Location` of a redirect status; `nil` for another status or without one.
    private static func location(status: UInt, headers: HTTPHeaders) -> String? {
        guard statuses.contains(status),
              let location = headers.first(name: "Location")?.trimmingCharacters(in: .whitespaces),
              !location.isEmpty else { return nil }
        return location
    }

    /// The scheme a reference starts with (RFC 3986 §3.1: a letter, then letters, digits, `+`,
    /// `-` or `.`, then `:`), lowercased; `nil` for a relative reference.
    static func scheme(of reference: String) -> String? {
        guard let colon = reference.firstIndex(of: ":") else { return nil }
        let candidate = reference[..<colon]
        guard let first = candidate.unicodeScalars.first, first.isASCII, CharacterSet.letters.contains(first),
              candidate.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+-.".unicodeScalars.contains($0)) })
        else { return nil }
        return candidate.lowercased()
    }

    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}
