import Foundation

/// The directives of a `Cache-Control` field (RFC 9111 §5.2), request or response side.
///
/// Parsing is tolerant: names are case-insensitive, whitespace is ignored, values may be quoted,
/// unknown directives are kept in `extensions`, and nothing a server sends can make it crash.
/// When a directive with a value repeats, the first occurrence wins (RFC 9111 §4.2.1); a
/// malformed `max-age` is read as 0, the most restrictive reading (RFC 9111 §4.2.1, §1.2.2).
package struct CacheControl: Sendable, Equatable {
    /// How stale a response the client accepts (request `max-stale`, §5.2.1.2).
    package enum MaxStale: Sendable, Equatable {
        /// `max-stale` with no value: any staleness.
        case unlimited
        case seconds(Int)
    }

    // Both sides.
    package var maxAge: Int?
    var noCache = false
    var noStore = false
    var noTransform = false

    // Response side.
    package var sharedMaxAge: Int?          // parsed, ignored by a private cache (§5.2.2.10)
    var mustRevalidate = false
    var proxyRevalidate = false
    var mustUnderstand = false
    var isPrivate = false
    var isPublic = false
    var immutable = false
    package var staleWhileRevalidate: Int?  // RFC 5861
    package var staleIfError: Int?          // RFC 5861

    // Request side.
    package var maxStale: MaxStale?
    package var minFresh: Int?
    var onlyIfCached = false

    /// Directives this type does not know, lowercased name → unquoted value (first occurrence).
    var extensions: [String: String?] = [:]

    /// The largest delta-seconds value a cache must handle (RFC 9111 §1.2.2); larger ones are capped.
    package static let maxDeltaSeconds = 2_147_483_648

    init() {}

    /// Parses one field value, or several field lines already joined with commas.
    package init(_ value: String?) {
        guard let value else { return }
        for (name, argument) in Self.directives(in: value) {
            apply(name: name, argument: argument)
        }
    }

    /// Parses every `Cache-Control` field line of `headers`.
    init(headers: HTTPHeaderFields) {
        self.init(headers["Cache-Control"])
    }

    private mutating func apply(name: String, argument: String?) {
        switch name {
        case "max-age": if maxAge == nil { maxAge = Self.deltaSeconds(argument) ?? 0 }
        case "s-maxage": if sharedMaxAge == nil { sharedMaxAge = Self.deltaSeconds(argument) ?? 0 }
        // With field names (`no-cache="Set-Cookie"`) a private cache may treat it as unqualified.
        case "no-cache": noCache = true
        case "no-store": noStore = true
        case "no-transform": noTransform = true
        case "must-revalidate": mustRevalidate = true
        case "proxy-revalidate": proxyRevalidate = true
        case "must-understand": mustUnderstand = true
        case "private": isPrivate = true
        case "public": isPublic = true
        case "immutable": immutable = true
        case "only-if-cached": onlyIfCached = true
        case "stale-while-revalidate":
            if staleWhileRevalidate == nil { staleWhileRevalidate = Self.deltaSeconds(argument) }
        case "stale-if-error":
            if staleIfError == nil { staleIfError = Self.deltaSeconds(argument) }
        case "max-stale":
            guard maxStale == nil else { return }
            if argument == nil {
                maxStale = .unlimited
            } else if let seconds = Self.deltaSeconds(argument) {
                maxStale = .seconds(seconds)
            } // a malformed value accepts no staleness: the restrictive reading
        case "min-fresh":
            if minFresh == nil { minFresh = Self.deltaSeconds(argument) }
        default:
            if !name.isEmpty, extensions[name] == nil { extensions[name] = .some(argument) }
        }
    }

    /// delta-seconds (§1.2.2): digits only; an overflow is capped at 2^31.
    static func deltaSeconds(_ text: String?) -> Int? {
        guard let text, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let digits = text.drop { $0 == "0" }
        if digits.count > 10 { return maxDeltaSeconds }
        return min(Int(digits) ?? 0, maxDeltaSeconds)
    }

    /// Splits a field value into (lowercased name, unquoted argument) pairs. Commas inside a
    /// quoted string do not split; a missing closing quote runs to the end.
    static func directives(in value: String) -> [(String, String?)] {
        var result: [(String, String?)] = []
        var name = ""
        var argument: String?
        var inQuotes = false
        var escaped = false
        var sawEquals = false

        func finish() {
            let trimmedName = name.trimmingCharacters(in: .whitespaces).lowercased()
            if !trimmedName.isEmpty {
                let trimmedArgument = argument.map { $0.trimmingCharacters(in: .whitespaces) }
                result.append((trimmedName, sawEquals ? Self.unquoted(trimmedArgument ?? "") : nil))
            }
            name = ""; argument = nil; sawEquals = false; inQuotes = false; escaped = false
        }

        for character in value {
            if sawEquals {
                if inQuotes {
                    if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inQuotes = false }
                    argument!.append(character)
                    continue
                }
                if character == "," { finish(); continue }
                if character == "\"" { inQuotes = true }
                argument!.append(character)
            } else if character == "=" {
                sawEquals = true
                argument = ""
            } else if character == "," {
                finish()
            } else {
                name.append(character)
            }
        }
        finish()
        return result
    }

    private static func unquoted(_ text: String) -> String {
        guard text.hasPrefix("\"") else { return text }
        var result = ""
        var escaped = false
        for character in text.dropFirst() {
            if escaped { result.append(character); escaped = false; continue }
            if character == "\\" { escaped = true; continue }
            if character == "\"" { break }
            result.append(character)
        }
        return result.trimmingCharacters(in: .whitespaces)
    }
}
