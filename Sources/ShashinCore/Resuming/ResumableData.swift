import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The first bytes of a download that ended early, with what it takes to ask for the rest
/// (RFC 9110 §14): the validator that names the representation and its total length.
///
/// The pipeline keeps one when a response that can be resumed breaks off (a dropped connection, a
/// timeout, the last subscriber cancelling), and the next load of the URL asks only for the
/// missing bytes, with `If-Range` so that a changed image comes whole instead of spliced.
public struct ResumableData: Sendable, Equatable {
    /// The bytes received, from the first byte of the body.
    public let data: Data
    /// A strong `ETag`, or a `Last-Modified` date at least a second older than the response's `Date`.
    public let validator: String
    /// The length of the whole body.
    public let totalLength: Int

    /// Valid only with some bytes, fewer than the whole body, and a validator.
    init?(data: Data, validator: String, totalLength: Int) {
        guard !data.isEmpty, data.count < totalLength, !validator.isEmpty else { return nil }
        self.data = data
        self.validator = validator
        self.totalLength = totalLength
    }

    /// What remains of a body that broke off, when it may be resumed: a 200 announcing
    /// `Accept-Ranges: bytes`, its length and a strong validator, and no content coding; or a
    /// 206 continuing `prefix` at its end. `nil` otherwise.
    init?(interrupted response: HTTPURLResponse, received: Data, continuing prefix: ResumableData?) {
        let headers = HTTPHeaderFields(response: response)
        if let coding = headers["Content-Encoding"], coding.lowercased() != "identity" { return nil }
        switch response.statusCode {
        case 200:
            guard Self.acceptsByteRanges(headers), let validator = Self.strongValidator(headers),
                  let length = headers["Content-Length"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            else { return nil }
            self.init(data: received, validator: validator, totalLength: length)
        case 206:
            guard let prefix, let range = ContentRange(headers["Content-Range"]),
                  range.first == prefix.data.count, range.completeLength == prefix.totalLength else { return nil }
            guard prefix.identifies(headers) else { return nil }
            self.init(data: prefix.data + received, validator: prefix.validator, totalLength: prefix.totalLength)
        default:
            return nil
        }
    }

    /// Whether a 206's validators name the representation the kept bytes came from: the same
    /// entity tag (or `Last-Modified` date) when it sends one.
    func identifies(_ headers: HTTPHeaderFields) -> Bool {
        let isTag = validator.hasPrefix("\"")
        guard let sent = headers[isTag ? "ETag" : "Last-Modified"]?.trimmingCharacters(in: .whitespaces) else { return true }
        return sent == validator
    }

    /// `Accept-Ranges` lists `bytes` (RFC 9110 §14.3).
    static func acceptsByteRanges(_ headers: HTTPHeaderFields) -> Bool {
        guard let value = headers["Accept-Ranges"] else { return false }
        return value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "bytes" }
    }

    /// The validator `If-Range` may carry (RFC 9110 §13.1.5): a strong entity tag, or else a
    /// `Last-Modified` date that is strong because it is at least a second older than `Date`
    /// (§8.8.2.2). A weak tag, or a date too close to the response's, gives `nil`.
    static func strongValidator(_ headers: HTTPHeaderFields) -> String? {
        if let etag = headers["ETag"]?.trimmingCharacters(in: .whitespaces), !etag.isEmpty {
            return etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count >= 2 ? etag : nil
        }
        guard let modifiedText = headers["Last-Modified"], let dateText = headers["Date"],
              let modified = HTTPDateParser.parse(modifiedText, now: Date()),
              let date = HTTPDateParser.parse(dateText, now: Date()),
              date.timeIntervalSince(modified) >= 1 else { return nil }
        return modifiedText.trimmingCharacters(in: .whitespaces)
    }
}

/// A `Content-Range: bytes first-last/complete` value (RFC 9110 §14.4), for a satisfied range
/// with a known complete length; anything else does not parse.
struct ContentRange: Equatable {
    let first: Int
    let last: Int
    let completeLength: Int

    init?(_ value: String?) {
        guard let value = value?.trimmingCharacters(in: .whitespaces), value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2, let complete = Self.number(halves[1]) else { return nil }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]),
              first <= last, last < complete else { return nil }
        self.first = first
        self.last = last
        self.completeLength = complete
    }

    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}
