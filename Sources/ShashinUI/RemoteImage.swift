// Apple platforms only; compiles to nothing elsewhere. Not compiled on this project's Linux CI.
#if canImport(SwiftUI) && canImport(Combine)
import Shashin
import SwiftUI

/// A SwiftUI view that loads an image through the pipeline and draws each phase with your
/// content closure. A memory hit shows in the first frame: until its loader has taken the
/// request, the phase drawn comes from a synchronous memory-cache lookup
/// (``RemoteImageLoader/phase(for:pipeline:)``). The load starts when the view appears and again
/// when the request's cache key (or the pipeline) changes, and stops when the view disappears.
/// An animated GIF, WebP or APNG plays: the closure gets each frame in turn as `.success`, while
/// the view is on screen.
///
/// ```swift
/// RemoteImage(request: ImageRequest(url: url, thumbnail: .init(maxPixelSize: 300))) { phase in
///     switch phase {
///     case .success(let image): image.resizable().scaledToFill()
///     case .failure: Image(systemName: "exclamationmark.triangle")
///     case .empty, .loading: Color.gray.opacity(0.2)
///     }
/// }
/// ```
public struct RemoteImage<Content: View>: View {
    private let request: ImageRequest?
    private let pipeline: ImagePipeline
    private let content: (RemoteImagePhase) -> Content
    @StateObject private var loader = RemoteImageLoader()

    /// Loads `request` (nothing when `nil`) through `pipeline`.
    public init(request: ImageRequest?, pipeline: ImagePipeline = .shared,
                @ViewBuilder content: @escaping (RemoteImagePhase) -> Content) {
        self.request = request
        self.pipeline = pipeline
        self.content = content
    }

    /// Loads the image at `url`.
    public init(url: URL?, pipeline: ImagePipeline = .shared,
                @ViewBuilder content: @escaping (RemoteImagePhase) -> Content) {
        self.init(request: url.map { ImageRequest(url: $0) }, pipeline: pipeline, content: content)
    }

    public var body: some View {
        // `task(id:)` (iOS 15, macOS 12) runs on appear and whenever the id changes; the load it
        // starts outlives the task, so `onDisappear` stops it.
        content(loader.phase(for: request, pipeline: pipeline))
            .task(id: LoadID(cacheKey: request?.cacheKey, pipeline: pipeline)) { @MainActor [loader, request, pipeline] in
                loader.load(request, pipeline: pipeline)
            }
            .onDisappear { loader.cancel() }
    }
}

/// What a ``RemoteImage`` loads: another cache key or another pipeline starts a new load.
private struct LoadID: Equatable {
    let cacheKey: ImageCacheKey?
    /// Compared by identity; held, so no other pipeline can take its address while SwiftUI keeps
    /// this value to compare with the next.
    let pipeline: ImagePipeline

    static func == (lhs: LoadID, rhs: LoadID) -> Bool {
        lhs.cacheKey == rhs.cacheKey && lhs.pipeline === rhs.pipeline
    }
}
#endif
