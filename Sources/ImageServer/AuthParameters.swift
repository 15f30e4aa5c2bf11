/// The `name=value` list after a scheme in `Authorization` or `WWW-Authenticate` (RFC 9110 §11.2):
/// values are tokens or quoted strings with `\` escapes. Names are lower-cased.
enum AuthParameters {
    /// Splits `Digest a=1, b="x, y"` into its scheme and parameters; `nil` when malformed.
    static func parse(_ header: String) -> (scheme: String, parameters: [String: String])? {
        let text = Array(header.trimmingCharacters(in: .whitespaces))
        var index = 0
        while index < text.count, text[index] != " " { index += 1 }
        let scheme = String(text[0..<index]).lowercased()
        guard !scheme.isEmpty else { return nil }
        var parameters: [String: String] = [:]
        func skipSpaceAndCommas() {
            while index < text.count, text[index] == " " || text[index] == "\t" || text[index] == "," { index += 1 }
        }
        skipSpaceAndCommas()
        while index < text.count {
            var name = ""
            while index < text.count, text[index] != "=", text[index] != " " { name.append(text[index]); index += 1 }
            while index < text.count, text[index] == " " { index += 1 }
            guard index < text.count, text[index] == "=", !name.isEmpty else { return nil }
            index += 1
            while index < text.count, text[index] == " " { index += 1 }
            var value = ""
            if index < text.count, text[index] == "\"" {
                index += 1
                var closed = false
                while index < text.count {
                    let character = text[index]
                    index += 1
                    if character == "\\", index < text.count {
                        value.append(text[index]); index += 1
                    } else if character == "\"" {
                        closed = true; break
                    } else {
                        value.append(character)
                    }
                }
                guard closed else { return nil }
            } else {
                while index < text.count, text[index] != ",", text[index] != " " { value.append(text[index]); index += 1 }
            }
            parameters[name.lowercased()] = value
            skipSpaceAndCommas()
        }
        return (scheme, parameters)
    }

    /// `value` as a quoted string.
    static func quoted(_ value: String) -> String {
        "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
