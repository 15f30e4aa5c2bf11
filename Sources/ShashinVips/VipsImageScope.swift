import CVips

/// A libvips image, as the C API hands it around.
typealias VipsImagePointer = UnsafeMutablePointer<VipsImage>

/// Owns every image made while working on one piece of data, and releases them all when the
/// work ends, on success and on every error path.
///
/// Images made here may read from memory the caller has pinned (vips loads lazily and does not
/// copy its input buffer): the caller keeps that memory alive for the whole of `with`.
final class VipsImageScope {
    private var images: [VipsImagePointer] = []

    private init() {}

    /// Runs `body` with a fresh scope and releases every image it made once `body` returns.
    static func with<Result>(_ body: (VipsImageScope) throws -> Result) throws -> Result {
        let scope = VipsImageScope()
        defer { scope.releaseAll() }
        return try body(scope)
    }

    /// Runs one vips operation that writes a new image to its `out` argument, and keeps that
    /// image until the scope ends. Throws the operation's lines of the vips error buffer when it fails.
    func make(_ operation: (UnsafeMutablePointer<VipsImagePointer?>) -> Int32) throws(VipsError) -> VipsImagePointer {
        var out: VipsImagePointer?
        let status = operation(&out)
        if let out { images.append(out) }
        guard status == 0, let out else { throw VipsError.fromBuffer() }
        return out
    }

    /// Like `make`, but a failure gives `nil` (its message is dropped from the error buffer).
    func makeIfPossible(_ operation: (UnsafeMutablePointer<VipsImagePointer?>) -> Int32) -> VipsImagePointer? {
        do {
            return try make(operation)
        } catch {
            return nil
        }
    }

    /// Keeps an image made outside `make` (such as one wrapping caller-owned memory).
    func adopt(_ image: VipsImagePointer) -> VipsImagePointer {
        images.append(image)
        return image
    }

    private func releaseAll() {
        for image in images.reversed() {
            g_object_unref(UnsafeMutableRawPointer(image))
        }
        images.removeAll()
    }
}
