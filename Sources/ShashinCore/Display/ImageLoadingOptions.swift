/// How the view layer shows what it loads: the pipeline, a placeholder and a failure image, the
/// transition, the view's content mode and the load's priority. Every view entry point
/// (`imageView.shashin.setImage`, buttons, `RemoteImage`, an ``ImageBinding``) takes one.
///
/// **Configure once, override per call.** Every property is optional: `nil` means "not said
/// here". A load uses the call's options, then ``shared`` (the app's defaults) for what the call
/// leaves `nil`, then the built-in defaults each property documents. Set ``shared`` at launch:
///
/// ```swift
/// ImageLoadingOptions.shared.placeholder = placeholder
/// ImageLoadingOptions.shared.failureImage = brokenImage
/// ImageLoadingOptions.shared.transition = .fade(duration: 0.3)
/// // one call changes one thing; the placeholder and the failure image still apply:
/// let noFade = ImageLoadingOptions(transition: .immediate)
/// ```
///
/// Not `Sendable` (an image and a custom transition are not): options live on the main actor,
/// where views are.
public struct ImageLoadingOptions {
    /// The pipeline images load through; `nil`: `ImagePipeline.shared`, read when the load starts.
    public var pipeline: ImagePipeline?
    /// Shown while an image loads; `nil`: none.
    public var placeholder: PlatformImage?
    /// Shown when a load fails; `nil`: none.
    public var failureImage: PlatformImage?
    /// How a loaded image appears; `nil`: a 0.25 s fade (``ImageTransition/defaultFade``).
    /// Memory-cache hits appear at once unless ``forcesTransition`` is on.
    public var transition: ImageTransition?
    /// Applies ``transition`` to memory-cache hits too; `nil`: `false`, since an image that is
    /// already there should simply be there (a fade on every scroll back looks like a reload).
    public var forcesTransition: Bool?
    /// How the view fits the image (the view's own display mode, set when the image is shown);
    /// `nil`: the view's mode is left as it is.
    public var contentMode: ViewContentMode?
    /// Keeps showing the current image, not the placeholder, while the next one loads: for a
    /// view that moves from one image of the same thing to another (a larger size, a new
    /// avatar). `nil`: `false`, right for reused cells, where the current image belongs to another row.
    public var keepsCurrentImageWhileLoading: Bool?
    /// The priority every request loads at; `nil`: the request's own.
    public var priority: ImageRequest.Priority?

    /// Options that say what is given and leave the rest to ``shared`` and the built-in defaults.
    public init(pipeline: ImagePipeline? = nil, placeholder: PlatformImage? = nil, failureImage: PlatformImage? = nil,
                transition: ImageTransition? = nil, forcesTransition: Bool? = nil, contentMode: ViewContentMode? = nil,
                keepsCurrentImageWhileLoading: Bool? = nil, priority: ImageRequest.Priority? = nil) {
        self.pipeline = pipeline
        self.placeholder = placeholder
        self.failureImage = failureImage
        self.transition = transition
        self.forcesTransition = forcesTransition
        self.contentMode = contentMode
        self.keepsCurrentImageWhileLoading = keepsCurrentImageWhileLoading
        self.priority = priority
    }

    /// The app's defaults, under every call's options; empty at first (the built-in defaults).
    /// Main-actor state: set it at launch, before the first view loads, or at any time after.
    @MainActor public static var shared = ImageLoadingOptions()

    /// These options, with each property left `nil` taken from `defaults`.
    ///
    /// ```swift
    /// let call = ImageLoadingOptions(priority: .high)
    /// let used = call.merging(over: ImageLoadingOptions(placeholder: grey))  // grey, at .high
    /// ```
    public func merging(over defaults: ImageLoadingOptions) -> ImageLoadingOptions {
        ImageLoadingOptions(pipeline: pipeline ?? defaults.pipeline,
                            placeholder: placeholder ?? defaults.placeholder,
                            failureImage: failureImage ?? defaults.failureImage,
                            transition: transition ?? defaults.transition,
                            forcesTransition: forcesTransition ?? defaults.forcesTransition,
                            contentMode: contentMode ?? defaults.contentMode,
                            keepsCurrentImageWhileLoading: keepsCurrentImageWhileLoading ?? defaults.keepsCurrentImageWhileLoading,
                            priority: priority ?? defaults.priority)
    }

    /// The transition an image from `cacheType` appears with under these options: the transition
    /// (a 0.25 s fade when none is said), except `.immediate` for a memory-cache hit unless forced.
    ///
    /// ```swift
    /// ImageLoadingOptions().transition(for: .memory)   // .immediate
    /// ImageLoadingOptions().transition(for: .none)     // .fade(duration: 0.25)
    /// ```
    public func transition(for cacheType: ImageResponse.CacheType) -> ImageTransition {
        cacheType == .memory && !(forcesTransition ?? false) ? .immediate : (transition ?? .defaultFade)
    }

    /// The pipeline a load uses: these options', else `ImagePipeline.shared`.
    package var resolvedPipeline: ImagePipeline { pipeline ?? .shared }
}
