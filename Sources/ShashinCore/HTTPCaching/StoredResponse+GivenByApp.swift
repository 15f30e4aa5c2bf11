import Foundation

extension StoredResponse {
    /// The response stored with bytes the app gives (`storeCachedData`, `storeCachedImage`): a
    /// 200 fresh for `lifetime` seconds (`Cache-Control: max-age`, capped as RFC 9111 §1.2.2
    /// allows), then revalidated like any other; filed for `credential` alone when there is one.
    static func givenByApp(format: ImageFormat?, byteCount: Int?, lifetime: TimeInterval, requestHeaders: HTTPHeaderFields,
                           credential: String?, now: Date) -> StoredResponse {
        var headers = HTTPHeaderFields()
        headers.set("max-age=\(Int(max(0, min(lifetime, TimeInterval(CacheControl.maxDeltaSeconds)))))", for: "Cache-Control")
        if let byteCount { headers.set(String(byteCount), for: "Content-Length") }
        if let format { headers.set("image/\(format.rawValue)", for: "Content-Type") }
        var stored = StoredResponse(status: 200, headers: headers, requestHeaders: requestHeaders, requestTime: now, responseTime: now)
        stored.credential = credential
        return stored
    }
}
