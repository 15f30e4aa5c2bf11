import Foundation
import ImageServer
import Shashin
import ShashinCore

/// Reads back every entry of the soak's disk cache and compares it with what the server sent.
///
/// An entry keyed by an original URL must hold exactly the bytes the server sends for that URL
/// when it answers well (compared by SHA-256 digest, and by length); the always-304 URLs must have
/// no entry at all. An entry keyed `processed …` holds an encoded result the pipeline made, which
/// the server never sent: it must decode.
struct SoakDiskAudit: Sendable, Codable {
    /// Entries read back.
    var entries = 0
    /// Original-URL entries whose bytes were compared with the server's.
    var originalsChecked = 0
    /// Processed entries decoded.
    var processedChecked = 0
    /// Bytes read back.
    var bytes = 0
    /// What was wrong, one line each.
    var problems: [String] = []

    static func run(cache: DiskCache, catalog: SoakCatalog, generator: ImageGenerator,
                    decoder: any ImageDecoding) async throws -> SoakDiskAudit {
        cache.flush()
        var audit = SoakDiskAudit()
        var digests: [String: String] = [:]
        for info in try cache.entries() {
            guard let entry = try cache.entry(forKey: info.key) else { continue } // evicted meanwhile: nothing served
            audit.entries += 1
            audit.bytes += entry.data.count
            if info.key.hasPrefix("processed ") {
                audit.processedChecked += 1
                do {
                    let image = try decoder.decode(entry.data, context: ImageDecodingContext(format: ImageFormat(sniffing: entry.data)))
                    if image.pixelWidth == 0 || image.pixelHeight == 0 { audit.problems.append("\(info.key): decodes to an empty image") }
                } catch {
                    audit.problems.append("\(info.key): does not decode (\(error))")
                }
                continue
            }
            guard let url = URL(string: info.key), let entryOfCatalog = catalog.entry(forPath: url.path) else {
                audit.problems.append("\(info.key): a key the soak never requested")
                continue
            }
            guard let expected = try await catalog.expectedBytes(forPath: url.path, generator: generator) else {
                audit.problems.append("\(info.key): stored although the server never sent a body (\(entryOfCatalog.kind.rawValue))")
                continue
            }
            audit.originalsChecked += 1
            let expectedDigest: String
            if let known = digests[url.path] {
                expectedDigest = known
            } else {
                expectedDigest = hexDigest(expected)
                digests[url.path] = expectedDigest
            }
            let storedDigest = hexDigest(entry.data)
            if entry.data.count != expected.count || storedDigest != expectedDigest {
                audit.problems.append("\(info.key): \(entry.data.count) bytes, SHA-256 \(storedDigest.prefix(16))…, "
                    + "but the server sent \(expected.count) bytes, SHA-256 \(expectedDigest.prefix(16))…")
            }
        }
        return audit
    }

    /// SHA-256 of `data`, in hex.
    static func hexDigest(_ data: Data) -> String {
        Hex.lowercase(data.withUnsafeBytes { SHA256.digest($0) })
    }
}
