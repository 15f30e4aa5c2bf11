import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLError {
    /// A transport failure as the platform names it: `code`, a sentence saying what happened, and
    /// the loader's own error underneath (`NSUnderlyingErrorKey`) when there is one, so
    /// `catch let error as URLError where error.code == .timedOut` works on every loader.
    package static func failure(_ code: Code, _ message: String, url: URL? = nil, underlying: (any Error)? = nil) -> URLError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let url { info[NSURLErrorFailingURLErrorKey] = url }
        if let underlying { info[NSUnderlyingErrorKey] = underlying }
        return URLError(code, userInfo: info)
    }

    /// The loader's own deadline passed: no byte for `seconds` when `idle`, else the request did
    /// not finish within `seconds` in all.
    package static func timedOut(seconds: Double, idle: Bool, url: URL? = nil, underlying: (any Error)? = nil) -> URLError {
        let limit = seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
        let message = idle ? "Timed out: the server sent nothing for \(limit)" : "Timed out: the request did not finish within \(limit)"
        return failure(.timedOut, message, url: url, underlying: underlying)
    }

    /// The error under this one that the loader gave (`NSUnderlyingErrorKey`), if any.
    public var underlyingError: (any Error)? {
        userInfo[NSUnderlyingErrorKey] as? any Error
    }
}
