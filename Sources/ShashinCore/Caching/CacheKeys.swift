import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every key the pipeline files an image under, made in one place: the memory cache's and the
/// image jobs' (`imageKey`), the disk cache's original (`originalKey`, which the kept bytes of a
/// resume share with a prefix of their own) and processed results (which build on `imageKey`), and
/// the download a request joins (`fetchKey`).
///
/// An image is named by the request's `imageID`, else by the pipeline's `ImageIDRule`, else by its
/// URL. A name that is not the URL becomes `image-id:` and the name percent-encoded (only
/// unreserved URL characters, `:` and `/` stay as they are): it holds no space, `[`, `>` or `%` of
/// its own, so a processed key built on it reads back one way only, and it never equals a URL's
/// key (those begin with the scheme), a kept partial body's (`partial `) or a processed result's
/// (`processed `).
struct CacheKeys: Sendable {
    let rule: ImageIDRule?
    /// The configuration's animation delivery: in every image key unless `.automatic` or the
    /// request chose its own, so pipelines that deliver animations differently never share a
    /// result through a shared memory or disk cache.
    var animationDelivery: AnimationDelivery = .automatic

    /// The prefix of every key made from an image identifier.
    static let idPrefix = "image-id:"

    /// Characters an identifier keeps as they are in its key.
    private static let kept: CharacterSet = {
        var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        set.insert(charactersIn: "-._~:/")
        return set
    }()

    /// The key token of an identifier: `image-id:` and the identifier, in Unicode normal form C
    /// (identifiers Swift finds equal, such as `é` composed or not, are one key), percent-encoded.
    static func token(forID id: String) -> String {
        // Percent-encoding a valid Swift string cannot fail; the fallback is never taken.
        idPrefix + (id.precomposedStringWithCanonicalMapping.addingPercentEncoding(withAllowedCharacters: kept) ?? "")
    }

    /// The identifier naming `request`'s image: its own `imageID`, else the rule's for its URL;
    /// `nil` when its URL names it.
    func imageID(of request: ImageRequest) -> String? {
        if let id = request.imageID ?? request.dataSource?.id { return id }
        guard let rule, let url = request.url else { return nil }
        return rule.imageID(for: url)
    }

    /// The key of `request`'s decoded and processed image: the memory cache's, an image job's, and
    /// the base of its processed result's disk key: the request's own `cacheKey`, with the
    /// configuration's animation delivery when the request chose none and the rule's identifier
    /// when the rule names the image.
    func imageKey(for request: ImageRequest) -> ImageCacheKey {
        var key = request.cacheKey
        if key.animationDelivery == nil, animationDelivery != .automatic { key.animationDelivery = animationDelivery }
        if request.imageID == nil, request.dataSource == nil, let rule, let url = request.url, let id = rule.imageID(for: url) {
            key.url = Self.token(forID: id)
        }
        return key
    }

    /// The disk key of `request`'s original bytes when an identifier names it; `nil` when its
    /// URL does, and the HTTP cache keys the response by the URL it was sent to (after the
    /// pipeline's `requestModifier`), as `storedKey(for:)` does without one.
    func originalKey(for request: ImageRequest) -> String? {
        imageID(of: request).map(Self.token(forID:))
    }

    /// The disk key of `request`'s original as stored without a request modifier: `originalKey`,
    /// else the HTTP cache's key of its URL. `nil` for a URL the HTTP cache does not store.
    func storedKey(for request: ImageRequest) -> String? {
        if let key = originalKey(for: request) { return key }
        return request.url.flatMap(HTTPCache.storageKey(for:))
    }

    /// Requests share a download only when they would send the same thing for the same image:
    /// the method, the image's name (its URL, or its identifier), the headers (two users'
    /// `Authorization` must not share one response), and how the request may use the disk cache.
    /// A data source's call is shared by its identifier (`DATA`), never with a URL's download of
    /// an image of the same name; requests with other `alternativeSources` may end with other
    /// bytes, so they share nothing either, and neither do a download the system may refuse on a
    /// constrained network and one it may not.
    func fetchKey(for request: ImageRequest) -> String {
        var key = request.dataSource != nil ? "DATA " : (request.urlRequest.httpMethod ?? "GET") + " "
        key += originalKey(for: request) ?? request.urlRequest.url?.absoluteString ?? ""
        if let headers = request.urlRequest.allHTTPHeaderFields, !headers.isEmpty {
            for (name, value) in headers.sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
                key += "\n\(name.lowercased()): \(value)"
            }
        }
        if request.cachePolicy != .useProtocolCachePolicy { key += "\npolicy: \(request.cachePolicy.rawValue)" }
        let disk = request.options.intersection(.disableDiskCache)
        if !disk.isEmpty { key += "\ndisk: \(disk.rawValue)" }
        if let options = request.httpCacheOptions { key += "\nhttp-cache: \(options)" }
        if request.urlRequest.refusesConstrainedNetwork { key += "\nconstrained: refused" }
        for source in request.alternativeSources { key += "\nor: " + Self.fetchKey(for: source) }
        return key
    }

    /// What loading an alternative `source` sends: the method, URL and headers of its request, or
    /// a data source's identifier.
    static func fetchKey(for source: ImageSource) -> String {
        switch source.kind {
        case .data(let data): return "DATA " + token(forID: data.id)
        case .url(let request):
            var key = (request.httpMethod ?? "GET") + " " + (request.url?.absoluteString ?? "")
            for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }) {
                key += "\n\(name.lowercased()): \(value)"
            }
            if request.refusesConstrainedNetwork { key += "\nconstrained: refused" }
            return key
        }
    }
}
