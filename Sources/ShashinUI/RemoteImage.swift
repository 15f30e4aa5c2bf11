// Apple platforms only; compiles to nothing elsewhere. Not compiled on this project's Linux CI.
#if canImport(SwiftUI) && canImport(Combine)
import Shashin
import SwiftUI

/// A SwiftUI view that loads an image through the pipeline and draws each phase with your
/// content closure; a memory hit shows in the first frame. An animated GIF, WebP or APNG plays:
/// the closure gets each frame in turn as `.success`, while the view is on screen.
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
        content(loader.phase)
            .onAppear { loader.load(request, pipeline: pipeline) }
            .onDisappear { loader.cancel() }
            .onChange(of: request?.cacheKey) { _ in loader.load(request, pipeline: pipeline) }
    }
}
#endif
