import Foundation

/// HTTP header fields with case-insensitive names, in the order they arrived.
///
/// Repeated names are kept as separate field lines; `self[name]` combines them with ", " as
/// RFC 9110 §5.3 allows for list-based fields. Value: no lock, no shared state.
package struct HTTPHeaderFields: Sendable, Equatable, Codable {
    /// One field line.
    package struct Field: Sendable, Equatable, Codable {
        package var name: String
        package var value: String
    }

    package private(set) var fields: [Field]

    package init(_ pairs: [(String, String)] = []) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    init(_ dictionary: [String: String]) {
        // Sorted so that two headers built from the same dictionary compare equal.
        self.init(dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Every value of `name`, one per field line.
    package func values(for name: String) -> [String] {
        fields.filter { Self.same($0.name, name) }.map(\.value)
    }

    /// All field lines of `name` combined with ", "; nil when absent.
    package subscript(name: String) -> String? {
        get {
            let values = values(for: name)
            return values.isEmpty ? nil : values.joined(separator: ", ")
        }
        set {
            if let newValue { set(newValue, for: name) } else { remove(name) }
        }
    }

    package func contains(_ name: String) -> Bool {
        fields.contains { Self.same($0.name, name) }
    }

    /// Replaces every field line of `name` with one line holding `value`, keeping its position.
    mutating func set(_ value: String, for name: String) {
        if let index = fields.firstIndex(where: { Self.same($0.name, name) }) {
            fields[index].value = value
            var i = fields.count - 1
            while i > index {
                if Self.same(fields[i].name, name) { fields.remove(at: i) }
                i -= 1
            }
        } else {
            fields.append(Field(name: name, value: value))
        }
    }

    mutating func add(_ value: String, for name: String) {
        fields.append(Field(name: name, value: value))
    }

    mutating func remove(_ name: String) {
        fields.removeAll { Self.same($0.name, name) }
    }

    /// The distinct names present, lowercased.
    package var lowercasedNames: [String] {
        var seen = Set<String>()
        return fields.compactMap { seen.insert($0.name.lowercased()).inserted ? $0.name.lowercased() : nil }
    }

    static func same(_ a: String, _ b: String) -> Bool {
        a.caseInsensitiveCompare(b) == .orderedSame
    }
}
