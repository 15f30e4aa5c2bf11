/// A number as it appears in a processor identifier: whole numbers without a fraction (`12`,
/// not `12.0`), others in Swift's shortest exact form (`2.5`), so the text is the same on every
/// run and platform and equal values give equal text.
struct IdentifierNumber: CustomStringConvertible {
    let value: Double

    init(_ value: Double) {
        self.value = value
    }

    var description: String {
        if value == 0 { return "0" } // and not "-0"
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(describing: value)
    }
}

extension ImageUnit {
    /// `pt` or `px`: the unit in a processor's identifier.
    var suffix: String { self == .points ? "pt" : "px" }
}
