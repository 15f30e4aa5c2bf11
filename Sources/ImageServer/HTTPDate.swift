import Foundation
import ShashinCore

/// HTTP dates for the server's headers: written as IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`),
/// the only form RFC 9110 lets a sender generate; read in all three forms a recipient must accept.
/// The core's parser does both, so the server and the cache agree on every date. Public so tests
/// can write `Date`, `Expires` and `Last-Modified` headers for scripted routes.
public enum HTTPDate {
    /// `date` as an IMF-fixdate, in GMT.
    public static func format(_ date: Date) -> String {
        HTTPDateParser.format(date)
    }

    /// Parses an HTTP date (IMF-fixdate, RFC 850 or asctime); `nil` for anything else.
    public static func parse(_ text: String) -> Date? {
        HTTPDateParser.parse(text, now: Date())
    }
}
