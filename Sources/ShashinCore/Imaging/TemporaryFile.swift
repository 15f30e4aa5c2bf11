import Foundation

/// Bytes written to a file of their own for the time of one call, for readers that take only a
/// file (AVFoundation reads a video from a URL, never from `Data`). The file is in the temporary
/// folder, readable only by the user, named uniquely with the given extension (by which such
/// readers tell the container), and removed when the call returns or throws.
package enum TemporaryFile {
    /// Runs `body` with the URL of a new file holding `data`; removes the file after. Throws
    /// what writing the file throws (a full disk), or what `body` throws.
    package static func withContents<R>(_ data: Data, fileExtension: String, in folder: URL = FileManager.default.temporaryDirectory,
                                        _ body: (URL) throws -> R) throws -> R {
        let url = folder.appendingPathComponent("shashin-\(UUID().uuidString)").appendingPathExtension(fileExtension)
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        defer { try? FileManager.default.removeItem(at: url) }
        let handle = try FileHandle(forWritingTo: url)
        do {
            try handle.write(contentsOf: data)
            try handle.close()
        } catch {
            try? handle.close()
            throw error
        }
        return try body(url)
    }
}
