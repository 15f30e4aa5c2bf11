// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation

/// The files under `Resources/`, copied into the test bundle as one folder.
enum Fixtures {
    /// The bundled `Resources` folder. Foundation on Linux already takes a bundle's
    /// `Resources` folder as its `resourceURL`; on Apple platforms the copy sits inside it.
    static let root: URL = {
        let bundle = Bundle.module
        let candidates = [bundle.resourceURL?.appendingPathComponent("Resources"), bundle.resourceURL,
                          bundle.bundleURL.appendingPathComponent("Resources")].compactMap { $0 }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("pngsuite").path) }
            ?? candidates[0]
    }()

    /// The bytes of `Resources/<path>`.
    static func data(_ path: String) throws -> Data {
        try Data(contentsOf: root.appendingPathComponent(path))
    }

    /// The names of the files in `Resources/<folder>` ending in `.<ext>`, sorted.
    static func names(in folder: String, ext: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
            .filter { $0.hasSuffix(".\(ext)") }
            .sorted()
    }
}
#endif
