import ArgumentParser
import Foundation

/// `--json`: a command's report as JSON on standard output instead of text.
package struct JSONOutputOption: ParsableArguments {
    @Flag(help: "Print the report as JSON on standard output.")
    package var json = false

    package init() {}
}

/// `value` as one JSON object on one line of standard output, keys sorted: an encoder's key order
/// is not fixed, and the scripts read the fields by name.
package func printJSONLine(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
