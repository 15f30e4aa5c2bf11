import Foundation

/// The directory served under `/files/`, and the rule that keeps requests inside it.
struct FileRoot: Sendable {
    /// The directory, with symbolic links resolved.
    let directory: URL

    init(directory: URL) {
        self.directory = directory.standardizedFileURL.resolvingSymlinksInPath()
    }

    enum Resolution: Equatable {
        case file(URL)
        case notFound
        /// The path tried to leave the directory (a `..` component, or a symbolic link pointing out).
        case forbidden
    }

    /// Maps a relative path such as `photos/a.jpg` to a regular file inside the directory.
    func resolve(_ relativePath: String) -> Resolution {
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: true)
        guard !components.isEmpty else { return .notFound }
        if components.contains(where: { $0 == ".." || $0 == "." || $0.contains("\0") || $0.contains("\\") }) {
            return .forbidden
        }
        var url = directory
        for component in components { url.appendPathComponent(String(component)) }
        // Symbolic links inside the directory may point anywhere: judge where the file really is.
        let real = url.standardizedFileURL.resolvingSymlinksInPath()
        guard real.path.hasPrefix(directory.path.hasSuffix("/") ? directory.path : directory.path + "/") else {
            return .forbidden
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: real.path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            return .notFound
        }
        return .file(real)
    }

    /// The `Content-Type` for a file, from its extension.
    static func mimeType(for url: URL) -> String {
        switch url.pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "webp": "image/webp"
        case "avif": "image/avif"
        case "heic", "heif": "image/heic"
        case "bmp": "image/bmp"
        case "tif", "tiff": "image/tiff"
        case "svg": "image/svg+xml"
        case "txt": "text/plain; charset=utf-8"
        case "html", "htm": "text/html; charset=utf-8"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }
}
