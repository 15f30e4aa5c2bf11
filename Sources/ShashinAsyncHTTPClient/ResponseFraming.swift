import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOHTTP1
import ShashinCore

/// Reading a response's announced length.
enum ResponseFraming {
    /// The `Content-Length`, `nil` without one. Repeats of one value are one value (RFC 9110
    /// §8.6); two different values, or one that is not a number, make the response unreadable:
    /// which length frames the body is unknowable.
    static func contentLength(of headers: HTTPHeaders) throws -> Int64? {
        let fields = headers["Content-Length"]
        // One field of digits alone, as nearly every server sends: no splitting or trimming.
        if fields.count == 1, let only = fields.first, !only.isEmpty, only.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
           let length = Int64(only) {
            return length
        }
        let values = fields.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard !values.isEmpty else { return nil }
        var lengths = Set<Int64>()
        for value in values {
            guard !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let length = Int64(value) else {
                throw URLError.failure(.badServerResponse, "Malformed Content-Length '\(value.prefix(32))'")
            }
            lengths.insert(length)
        }
        guard lengths.count == 1, let length = lengths.first else {
            throw URLError.failure(.badServerResponse,
                                   "Conflicting Content-Length values: \(lengths.sorted().map(String.init).joined(separator: ", "))")
        }
        return length
    }
}
