import Foundation

/// How a `GET` with `Range` (and maybe `If-Range`) is answered, per RFC 9110 §14.
///
/// The server honours one byte range; a request for several, a unit other than `bytes`, or a
/// malformed header gets the whole representation (a server may always ignore `Range`).
enum ByteRange: Equatable {
    /// A 200 with the whole body: no `Range`, one that cannot be honoured, or an `If-Range` whose
    /// validator no longer matches.
    case full
    /// A 206 with these bytes.
    case partial(Range<Int>)
    /// A 416: no byte of the range exists.
    case unsatisfiable

    /// Decides the answer for a representation of `length` bytes with the given validators.
    static func evaluate(range: String?, ifRange: String?, length: Int,
                         etag: String?, lastModified: String?) -> ByteRange {
        guard let range else { return .full }
        if let ifRange, !validatorMatches(ifRange, etag: etag, lastModified: lastModified) { return .full }
        return parse(range, length: length)
    }

    /// `If-Range` (RFC 9110 §13.1.5): an entity tag matches by strong comparison only; a date
    /// matches only when it equals `Last-Modified` exactly.
    static func validatorMatches(_ ifRange: String, etag: String?, lastModified: String?) -> Bool {
        let condition = ifRange.trimmingCharacters(in: .whitespaces)
        if condition.hasPrefix("\"") || condition.hasPrefix("W/") {
            guard let etag = etag?.trimmingCharacters(in: .whitespaces) else { return false }
            return !condition.hasPrefix("W/") && !etag.hasPrefix("W/") && condition == etag
        }
        guard let lastModified, let date = HTTPDate.parse(condition),
              let modified = HTTPDate.parse(lastModified) else { return false }
        return date == modified
    }

    /// `bytes=first-last`, `bytes=first-` or `bytes=-suffixLength` against `length` bytes.
    static func parse(_ header: String, length: Int) -> ByteRange {
        let header = header.trimmingCharacters(in: .whitespaces)
        guard let equals = header.firstIndex(of: "="),
              header[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "bytes" else { return .full }
        let specs = header[header.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count == 1 else { return .full }
        let spec = specs[0].trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return .full }
        let firstText = spec[..<dash], lastText = spec[spec.index(after: dash)...]
        if firstText.isEmpty {
            // A suffix: the last N bytes.
            guard let suffix = number(lastText) else { return .full }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - suffix)..<length)
        }
        guard let first = number(firstText) else { return .full }
        var end = length
        if !lastText.isEmpty {
            guard let last = number(lastText), last >= first else { return .full }
            end = last == Int.max ? length : min(length, last + 1)
        }
        guard first < length else { return .unsatisfiable }
        return .partial(first..<end)
    }

    /// A decimal of digits only; one too large for `Int` reads as `Int.max` (past any body).
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text) ?? Int.max
    }
}
