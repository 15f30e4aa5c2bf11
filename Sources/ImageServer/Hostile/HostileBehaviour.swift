import Foundation

/// One way an origin server can misbehave, as exact bytes on the wire. ``HostileOrigin`` serves
/// each on the path `/<rawValue>`; a query `?to=PORT` names the loopback port a redirect goes to,
/// `?count=N` the number of header lines of ``manyHeaders``.
public enum HostileBehaviour: String, CaseIterable, Sendable {
    /// `200` with the origin's image and a correct `Content-Length`: the baseline, and the target
    /// of redirects.
    case image
    /// `401` with `WWW-Authenticate: Basic realm="x"` and a short body.
    case authChallenge = "auth-challenge"
    /// `100 Continue`, then the `200` of ``image``.
    case continue100 = "continue-100"
    /// `103 Early Hints` with a `Link` field, then the `200` of ``image``.
    case earlyHints103 = "early-hints-103"
    /// `302` to `file:///etc/passwd`.
    case redirectToFile = "redirect-to-file"
    /// `302` to a `data:` URL.
    case redirectToData = "redirect-to-data"
    /// `302` to `http://127.0.0.1:PORT/image` (`?to=PORT`, default this origin's own port).
    case redirectToLoopback = "redirect-to-loopback"
    /// The `200` of ``image`` with every field written `Name:value`, no space after the colon.
    case headerWithoutSpace = "header-without-space"
    /// The `200` of ``image`` after `?count=N` (default 51,000) small header lines.
    case manyHeaders = "many-headers"
    /// The `200` of ``image`` with two different `Content-Length` fields (the body matches the second).
    case twoContentLengths = "two-content-lengths"
    /// A status line that is not HTTP, then a body.
    case garbageStatusLine = "garbage-status-line"
    /// An HTTP/0.9 reply: the image's bytes with no status line and no header.
    case http09 = "http-0.9"
    /// `Content-Encoding: gzip` on 1,600 bytes that are a gzip header followed by garbage.
    case brokenGzip = "broken-gzip"
    /// One header field line of 2 MB.
    case hugeHeaderLine = "huge-header-line"
    /// `200` with `Content-Length: 100000`, 100 bytes of body, then nothing until the client leaves.
    case stall
    /// `Content-Length` of half the image, then the whole image (a reader trusting the length gets
    /// a truncated image).
    case shortContentLength = "short-content-length"
    /// `Content-Length` of twice the image, then the image, then the connection closes.
    case longContentLength = "long-content-length"
}
