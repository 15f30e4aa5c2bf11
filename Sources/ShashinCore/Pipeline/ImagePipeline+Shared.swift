extension ImagePipeline {
    /// The app's pipeline: what every entry point uses unless told otherwise (image views,
    /// buttons, `RemoteImage`, `ImageBinding`, `ImagePrefetcher`, `VisibleItemsLoader`). Set it
    /// once, at launch, to configure them all; reading and setting are safe from any thread, and
    /// a load reads it when it starts, so a pipeline set later serves the loads after it.
    ///
    /// By default, with `import Shashin`: the default configuration plus a `DiskCache` named
    /// `defaultDiskCacheName` in the user's caches folder, 150 MB, keeping originals under HTTP's
    /// rules and the bytes of cut-short downloads, so a relaunch finds both (memory only if the
    /// folder cannot be opened). It has a disk cache because an app that uses one pipeline wants
    /// its images to survive a relaunch without configuring anything; `ImagePipeline()` has none,
    /// because a library must not write files nobody asked for.
    ///
    /// ```swift
    /// var configuration = ImagePipeline.Configuration()
    /// configuration.diskCache = try DiskCache(name: "images")
    /// configuration.requestModifier = { request in
    ///     var request = request
    ///     request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    ///     return request
    /// }
    /// ImagePipeline.shared = ImagePipeline(configuration: configuration)
    /// ```
    public static var shared: ImagePipeline {
        get {
            SharedPipeline.storage.withLock { stored in
                if let stored { return stored }
                let made = SharedPipeline.makeDefault()
                stored = made
                return made
            }
        }
        set { SharedPipeline.storage.withLock { $0 = newValue } }
    }
}

/// Where `ImagePipeline.shared` is kept, and how its default is made: by the module that wires
/// the platform's codecs and loader (`Shashin`), which conforms `PlatformDefaults` to
/// `PlatformDefaultsProviding`. The core finds that conformance at run time, so it needs no
/// call from the app; without it (the core alone) the default has no decoder.
enum SharedPipeline {
    static let storage = Locked<ImagePipeline?>(nil)

    static func makeDefault() -> ImagePipeline {
        if let provider = PlatformDefaults.self as Any.Type as? any PlatformDefaultsProviding.Type {
            return provider.makeSharedPipeline()
        }
        return ImagePipeline(configuration: ImagePipeline.Configuration(decoder: ImageDecoderRegistry()))
    }
}

/// The name under which the module with the platform's defaults makes the shared pipeline.
package enum PlatformDefaults {}

/// What `PlatformDefaults` conforms to in the module that wires the platform's defaults.
package protocol PlatformDefaultsProviding {
    /// The default `ImagePipeline.shared`.
    static func makeSharedPipeline() -> ImagePipeline
}
