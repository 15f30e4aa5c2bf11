extension ImageBinding {
    /// How a binding shows what it loads.
    public struct Options {
        /// Shown while an image loads; `nil` (default) shows nothing.
        public var placeholder: PlatformImage?
        /// Shown when a load fails; `nil` (default) shows nothing.
        public var failureImage: PlatformImage?
        /// How a loaded image appears; default a 0.25 s fade. Memory-cache hits appear with
        /// `.none` unless ``forcesTransition`` is on.
        public var transition: ImageTransition
        /// Apply ``transition`` to memory-cache hits too; default `false`, since an image that is
        /// already there should simply be there (a fade on every scroll back looks like a reload).
        public var forcesTransition: Bool
        /// How the view should fit the image; `nil` (default) leaves the view's own mode.
        public var contentMode: ImageContentMode?
        /// Keep showing the current image, not the placeholder, while the next one loads; for a
        /// view that moves from one image of the same thing to another (a larger size, a new
        /// avatar). Leave it `false` (default) on reused cells, where the current image belongs
        /// to another row.
        public var keepsCurrentImageWhileLoading: Bool
        /// The priority every request of this binding loads at; `nil` (default) keeps the
        /// request's own.
        public var priority: ImageRequest.Priority?

        /// Creates options; every parameter has the default its property documents.
        public init(placeholder: PlatformImage? = nil, failureImage: PlatformImage? = nil,
                    transition: ImageTransition = .fade(duration: 0.25), forcesTransition: Bool = false,
                    contentMode: ImageContentMode? = nil, keepsCurrentImageWhileLoading: Bool = false,
                    priority: ImageRequest.Priority? = nil) {
            self.placeholder = placeholder
            self.failureImage = failureImage
            self.transition = transition
            self.forcesTransition = forcesTransition
            self.contentMode = contentMode
            self.keepsCurrentImageWhileLoading = keepsCurrentImageWhileLoading
            self.priority = priority
        }

        /// The transition for an image from `source`: ``transition``, except `.none` for the
        /// memory cache unless ``forcesTransition``.
        ///
        /// ```swift
        /// ImageBinding.Options().transition(for: .memory)   // .none
        /// ImageBinding.Options().transition(for: .network)  // .fade(duration: 0.25)
        /// ```
        public func transition(for source: ImageResponse.Source) -> ImageTransition {
            source == .memory && !forcesTransition ? .none : transition
        }
    }
}
