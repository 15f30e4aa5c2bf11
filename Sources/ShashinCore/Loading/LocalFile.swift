import Foundation

/// Reads the local files of `ImageSource.file(_:)`, off the Swift concurrency pool.
enum LocalFile {
    /// The bytes of the file at `path`. A missing file is `URLError(.fileDoesNotExist)`, a folder
    /// or an unreadable file `URLError(.noPermissionsToReadFile)` or `.cannotOpenFile`, each
    /// with the system's reason underneath.
    static func read(_ path: String) async throws -> Data {
        try await offThePool {
            do {
                return try Data(contentsOf: URL(fileURLWithPath: path), options: .mappedIfSafe)
            } catch {
                throw urlError(for: error, path: path)
            }
        }
    }

    static func urlError(for error: any Error, path: String) -> URLError {
        let nsError = error as NSError
        let code: URLError.Code
        switch (nsError.domain, nsError.code) {
        case (NSCocoaErrorDomain, NSFileReadNoSuchFileError), (NSPOSIXErrorDomain, Int(ENOENT)): code = .fileDoesNotExist
        case (NSCocoaErrorDomain, NSFileReadNoPermissionError), (NSPOSIXErrorDomain, Int(EACCES)): code = .noPermissionsToReadFile
        default: code = .cannotOpenFile
        }
        return .failure(code, "Cannot read the file \(path): \(nsError.localizedDescription)", url: URL(fileURLWithPath: path),
                        underlying: nsError)
    }
}
