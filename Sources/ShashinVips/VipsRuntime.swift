import CVips

/// libvips' process-wide set-up, done once before the first decode or encode.
enum VipsRuntime {
    /// `nil` once libvips is ready, else why it could not start. A `static let` initialiser runs
    /// exactly once even when several threads reach it together, which is what `vips_init` needs.
    private static let startFailure: String? = {
        if vips_init("shashin") != 0 {
            return VipsError.takeMessage()
        }
        // One vips worker per image: parallelism comes from decoding several images at once
        // from Swift, which measured faster on small machines than threads inside each image.
        vips_concurrency_set(1)
        // The operation cache would keep decoded images alive between calls; a pipeline that
        // has its own memory cache wants vips' memory to stay flat instead.
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        VipsErrorBuffer.installWarningHandler()
        return nil
    }()

    /// Whether this libvips reads HEIC and AVIF: its libheif module is installed and loaded
    /// (Debian's `libvips42` depends on `libheif1`; a libvips built without libheif lacks it).
    static let canLoadHEIF = hasOperation("heifload_buffer")
    /// Whether this libvips writes HEIC and AVIF (the same module; AVIF also needs an AV1 encoder
    /// in libheif, which Debian's has).
    static let canSaveHEIF = hasOperation("heifsave_buffer")

    private static func hasOperation(_ nickname: String) -> Bool {
        guard (try? start()) != nil else { return false }
        return shashin_has_operation(nickname) != 0
    }

    /// What a user reads when HEIC or AVIF is asked of a libvips without libheif.
    static let missingHEIFReason = "this libvips has no HEIF support (heifload); install libvips with libheif "
        + "(Debian/Ubuntu: libheif1, which libvips42 depends on; Homebrew: vips)"

    /// Starts libvips on first use; throws when it cannot start.
    static func start() throws(VipsError) {
        if let startFailure {
            throw VipsError(message: "libvips failed to start: \(startFailure)")
        }
    }
}
