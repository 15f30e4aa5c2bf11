import Foundation

/// `value` rounded to `digits` decimal places, so the JSON lines carry the precision a
/// measurement has rather than every digit of a `Double`. A value that is not finite stays as it
/// is, and `JSONEncoder` refuses it (JSON has no NaN or infinity): a report field that can be
/// undefined is optional instead.
func rounded(_ value: Double, _ digits: Int) -> Double {
    guard value.isFinite else { return value }
    let scale = pow(10, Double(digits))
    return (value * scale).rounded() / scale
}

/// `bytes` in MiB, to a tenth: how the memory reports give sizes.
func megabytes(_ bytes: Int) -> Double { rounded(Double(bytes) / 1_048_576, 1) }
