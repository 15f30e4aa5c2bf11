import Foundation

/// Parses HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, the obsolete RFC 850 form and C's asctime;
/// and formats them, as IMF-fixdate only, the one form a sender may generate.
///
/// Hand-written rather than on `DateFormatter`: no locale, no shared mutable formatter, no cost
/// per call. Anything else, including `"0"` in `Expires`, gives nil. Stateless. `package`: the
/// ImageServer writes and reads its dates with it too.
package enum HTTPDateParser {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let shortDays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]

    /// Parses `text`; `now` resolves the two-digit years of RFC 850 dates (a date more than 50
    /// years ahead of `now` means the most recent past year with those digits, §5.6.7).
    package static func parse(_ text: String, now: Date) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count <= 64 else { return nil }
        if let comma = trimmed.firstIndex(of: ",") {
            let weekday = trimmed[..<comma].lowercased()
            let parts = trimmed[trimmed.index(after: comma)...].split(separator: " ", omittingEmptySubsequences: true)
            if parts.count == 5, shortDays.contains(weekday) {
                // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
                guard isGMT(parts[4]), parts[2].count == 4, let year = number(parts[2]) else { return nil }
                return make(year: year, month: month(parts[1]), day: number(parts[0], maxDigits: 2), time: parts[3])
            }
            if parts.count == 3, longDays.contains(weekday) || shortDays.contains(weekday) {
                // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
                guard isGMT(parts[2]) else { return nil }
                let dayMonthYear = parts[0].split(separator: "-", omittingEmptySubsequences: false)
                guard dayMonthYear.count == 3, dayMonthYear[2].count == 2, let yy = number(dayMonthYear[2]) else { return nil }
                return make(year: fullYear(twoDigits: yy, now: now), month: month(dayMonthYear[1]),
                            day: number(dayMonthYear[0], maxDigits: 2), time: parts[1])
            }
            return nil
        }
        // asctime: Sun Nov  6 08:49:37 1994
        let parts = trimmed.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 5, shortDays.contains(parts[0].lowercased()),
              parts[4].count == 4, let year = number(parts[4]) else { return nil }
        return make(year: year, month: month(parts[1]), day: number(parts[2], maxDigits: 2), time: parts[3])
    }

    /// `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), to the second below it.
    package static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = (seconds >= 0 ? seconds : seconds - 86_399) / 86_400
        let (year, month, day) = civil(fromDays: days)
        let secondOfDay = seconds - days * 86_400
        // 1970-01-01 was a Thursday (index 3 of shortDays, which starts on Monday).
        let weekday = shortDays[((days % 7) + 7 + 3) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year4 = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(weekday.prefix(1).uppercased())\(weekday.dropFirst()), \(two(day)) "
            + "\(months[month - 1].prefix(1).uppercased())\(months[month - 1].dropFirst()) \(year4) "
            + "\(two(secondOfDay / 3_600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    private static func isGMT(_ zone: Substring) -> Bool {
        zone == "GMT" || zone == "UTC"
    }

    private static func month(_ text: Substring) -> Int? {
        months.firstIndex(of: text.lowercased()).map { $0 + 1 }
    }

    private static func number(_ text: Substring, maxDigits: Int = 4) -> Int? {
        guard !text.isEmpty, text.count <= maxDigits,
              text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static func fullYear(twoDigits yy: Int, now: Date) -> Int {
        let nowYear = civil(fromDays: Int((now.timeIntervalSince1970 / 86_400).rounded(.down))).year
        var year = nowYear - nowYear % 100 + yy
        if year > nowYear + 50 { year -= 100 }
        return year
    }

    private static func make(year: Int, month: Int?, day: Int?, time: Substring) -> Date? {
        let hms = time.split(separator: ":", omittingEmptySubsequences: false)
        guard let month, let day, hms.count == 3, hms.allSatisfy({ $0.count == 2 }),
              let hour = number(hms[0]), let minute = number(hms[1]), let second = number(hms[2]),
              hour < 24, minute < 60, second <= 60, day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        // A leap second (":60") is read as the last second of the minute.
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + min(second, 59)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's civil-calendar algorithms: days since 1970-01-01, proleptic Gregorian.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
