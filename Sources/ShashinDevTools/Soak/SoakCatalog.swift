import Foundation
import ImageServer
import Shashin
import ShashinToolSupport

/// The soak's URLs: a few thousand paths on the embedded server, each with a route kind (healthy
/// or one fault type) and the generated image it serves, plus what the server injected.
///
/// Many URLs share one of a few hundred generated images, so the server encodes little while the
/// pipeline sees thousands of distinct URLs (distinct cache keys, distinct disk entries).
final class SoakCatalog: Sendable {
    struct Entry: Sendable {
        let index: Int
        let kind: SoakRouteKind
        let spec: ImageSpec
        let path: String
        let url: URL
    }

    let entries: [Entry]
    /// The distinct generated images behind the URLs.
    let specs: [ImageSpec]
    /// Requests the server received, and faults it injected, by kind; behind the lock.
    private let ledger = Locked(Ledger())

    struct Ledger: Sendable {
        var requests: [SoakRouteKind: Int] = [:]
        var faults: [SoakFault: Int] = [:]
    }

    /// The pace of a trickled body: a few hundred milliseconds for these images, where loopback
    /// would take microseconds; far under the loader's timeout, since bytes keep coming.
    static let trickleBytesPerSecond = 64_000

    /// Out of every 100 URLs, how many have each kind (in this order).
    static let shares: [(SoakRouteKind, Int)] = [
        (.healthy, 62), (.status500, 7), (.dropMidBody, 7), (.shortBody, 7), (.stall, 1),
        (.trickle, 4), (.invalidBytes, 6), (.notModified, 6),
    ]

    init(urlCount: Int, imageCount: Int, server: ImageServer) {
        let formats: [ImageFormat] = [.jpeg, .png, .webp, .jpeg, .gif]
        let sizes = [(96, 96), (128, 96), (160, 120), (120, 160), (200, 150), (256, 192)]
        specs = (0..<max(1, imageCount)).map { index in
            let size = sizes[index % sizes.count]
            return ImageSpec(format: formats[index % formats.count], width: size.0, height: size.1, seed: UInt64(index + 1))
        }
        var kindOfBucket: [SoakRouteKind] = []
        for (kind, share) in Self.shares { kindOfBucket += Array(repeating: kind, count: share) }
        // Spread the kinds over the indices, so the first (hot) URLs hold every kind.
        let stride = 37 // coprime with 100
        entries = (0..<max(1, urlCount)).map { [specs] index in
            let kind = kindOfBucket[(index * stride) % 100]
            let spec = specs[index % specs.count]
            let path = "/soak/\(index)-\(kind.rawValue).\(spec.fileExtension)"
            return Entry(index: index, kind: kind, spec: spec, path: path, url: server.url(path))
        }
    }

    /// Scripts every URL's route on `server`.
    func install(on server: ImageServer) {
        for entry in entries {
            let script = Self.script(for: entry)
            server.setRoute(entry.path) { [ledger] request in
                let fault = entry.kind.fault(forOrdinal: request.ordinal)
                ledger.withLock { ledger in
                    ledger.requests[entry.kind, default: 0] += 1
                    if let fault { ledger.faults[fault, default: 0] += 1 }
                }
                var script = script
                switch fault {
                case .status500: script.fault = .status500
                case .dropMidBody: script.fault = .dropConnectionMidBody
                case .shortBody: script.fault = .shortBody
                case .stall: script.fault = .stall
                case .trickle, .invalidBytes, .notModified, nil: break // part of the script itself
                }
                return script
            }
        }
    }

    /// The script of a URL when no fault is injected into the response.
    static func script(for entry: Entry) -> RouteScript {
        let validators = ["ETag": "\"\(entry.index)-v1\"", "Last-Modified": "Mon, 06 Jan 2025 10:00:00 GMT"]
        switch entry.kind {
        case .healthy:
            let control = ["max-age=3600", "no-cache", "max-age=1"][entry.index % 3]
            return .image(entry.spec, headers: validators.merging(["Cache-Control": control]) { $1 })
        case .status500:
            return .image(entry.spec, headers: validators.merging(["Cache-Control": "no-cache"]) { $1 })
        case .dropMidBody, .shortBody, .stall:
            // No validators: every download is a full body, which the fault can cut.
            return .image(entry.spec, headers: ["Cache-Control": "no-cache"])
        case .trickle:
            var script = RouteScript.image(entry.spec, headers: ["Cache-Control": "no-cache"])
            script.bytesPerSecond = trickleBytesPerSecond
            return script
        case .invalidBytes:
            return .data(invalidBytes(for: entry.index), contentType: "image/jpeg", headers: ["Cache-Control": "max-age=3600"])
        case .notModified:
            return RouteScript(status: 304, headers: validators)
        }
    }

    /// A JPEG signature and header, then noise: sniffed as JPEG, never decodable.
    static func invalidBytes(for index: Int) -> Data {
        Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + SplitMix64.bytes(count: 2048 + (index % 7) * 512, seed: UInt64(index))
    }

    /// The bytes the server sends for `path` when it answers well; `nil` for paths that never
    /// send a body to store (the 304 route) and for paths not in the catalog.
    func expectedBytes(forPath path: String, generator: ImageGenerator) async throws -> Data? {
        guard let entry = entry(forPath: path) else { return nil }
        switch entry.kind {
        case .notModified: return nil
        case .invalidBytes: return Self.invalidBytes(for: entry.index)
        default: return try await generator.data(for: entry.spec)
        }
    }

    /// The catalog entry of a path such as `/soak/12-healthy.jpg`.
    func entry(forPath path: String) -> Entry? {
        guard path.hasPrefix("/soak/"),
              let dash = path.firstIndex(of: "-"),
              let index = Int(path[path.index(path.startIndex, offsetBy: 6)..<dash]),
              entries.indices.contains(index), entries[index].path == path else { return nil }
        return entries[index]
    }

    var requestsByKind: [SoakRouteKind: Int] { ledger.current.requests }
    var faultsInjected: [SoakFault: Int] { ledger.current.faults }
}
