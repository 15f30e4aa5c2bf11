import Foundation
import Testing
@testable import ShashinCore

@Suite("HTTP dates (RFC 9110 §5.6.7)")
struct HTTPDateParserTests {
    /// 1994-11-06T08:49:37Z, the RFC's own example.
    static let example = Date(timeIntervalSince1970: 784_111_777)
    static let now = HTTPCachingFixture.t0

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",      // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",     // RFC 850
        "Sun Nov  6 08:49:37 1994",           // asctime
        "  sun, 06 nov 1994 08:49:37 GMT ",   // tolerant of case and surrounding space
    ])
    func parsesTheThreeFormats(_ text: String) {
        #expect(HTTPDateParser.parse(text, now: Self.now) == Self.example)
    }

    @Test(arguments: [
        "", "0", "-1", "tomorrow", "Sun, 06 Nov 1994 08:49:37",   // no zone
        "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 29 Feb 2023 00:00:00 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
        "Sun, 06 Nov 94 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun Nov  6 08:49:37",
    ])
    func rejectsInvalidDates(_ text: String) {
        #expect(HTTPDateParser.parse(text, now: Self.now) == nil)
    }

    @Test func leapDayIsValid() {
        #expect(HTTPDateParser.parse("Thu, 29 Feb 2024 00:00:00 GMT", now: Self.now) == Date(timeIntervalSince1970: 1_709_164_800))
    }

    @Test func rfc850YearMoreThanFiftyYearsAheadMeansThePast() {
        // At 2023, "70" would be 2070 (47 years ahead: kept), "80" would be 2080 (57 ahead: 1980).
        let seventy = HTTPDateParser.parse("Tuesday, 01-Jan-70 00:00:00 GMT", now: Self.now)
        let eighty = HTTPDateParser.parse("Tuesday, 01-Jan-80 00:00:00 GMT", now: Self.now)
        #expect(seventy == Date(timeIntervalSince1970: 3_155_760_000))
        #expect(eighty == Date(timeIntervalSince1970: 315_532_800))
    }

    @Test func roundTripsImfFixdate() {
        let date = HTTPCachingFixture.t0 + 12_345
        #expect(HTTPDateParser.parse(HTTPCachingFixture.httpDate(date), now: Self.now) == date)
    }

    @Test func formatsTheRFCsExample() {
        #expect(HTTPDateParser.format(Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDateParser.format(Self.example + 0.999) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    /// Foundation's formatter as the oracle, over dates from 1900 to 2200 (leap days, the
    /// turns of centuries, days before 1970), each formatted and read back.
    @Test func formatsAsFoundationDoesAndReadsItBack() {
        let oracle = DateFormatter()
        oracle.locale = Locale(identifier: "en_US_POSIX")
        oracle.timeZone = TimeZone(identifier: "GMT")
        oracle.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var random = SystemRandomNumberGenerator()
        let fixed: [TimeInterval] = [-2_208_988_800, -1, 0, 951_782_400, 951_868_799, 4_107_542_399, 7_258_118_399]
        let randomDates = (0..<2_000).map { _ in TimeInterval(Int.random(in: -2_208_988_800...7_258_118_399, using: &random)) }
        for seconds in fixed + randomDates {
            let date = Date(timeIntervalSince1970: seconds)
            let text = HTTPDateParser.format(date)
            #expect(text == oracle.string(from: date), "at \(seconds)")
            #expect(HTTPDateParser.parse(text, now: Self.now) == date, "\(text)")
        }
    }
}
