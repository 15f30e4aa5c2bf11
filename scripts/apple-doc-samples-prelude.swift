// The names the samples in ShashinUI's doc comments use without declaring them, as an app has
// them: compiled with those samples by `scripts/check-apple-sdk` (against the iOS SDK with UIKit,
// the macOS SDK with AppKit), never built into the package. A sample may use any of these; one
// that needs another name declares it, or a line is added here.
import Foundation
import ShashinUI
import SwiftUI
#if canImport(UIKit)
import UIKit
#else
import AppKit
#endif

// An app's list: its items, a row view, a cell, a model.
struct Post: Identifiable, Sendable {
    let id: Int
    let imageURL: URL
}

struct PostRow: View {
    let post: Post
    var body: some View { RemoteImage(url: post.imageURL) { $0.image?.resizable() } }
}

@MainActor
final class Model: ObservableObject {
    @Published var fraction = 0.0
}

#if canImport(UIKit)
/// A collection view's cell; a sample's `override func prepareForReuse()` is a method of a subclass.
class PhotoCell: UICollectionViewCell {
    let photoView = UIImageView()
    let likeButton = UIButton(type: .custom)
}
#else
/// A table's cell view; a sample's `override func prepareForReuse()` is a method of a subclass.
class PhotoCell: NSTableCellView {
    let photoView = NSImageView()
    let likeButton = NSButton()
}
#endif

@MainActor let url = URL(string: "https://example.com/photos/1.jpg")!
@MainActor let avatarURL = URL(string: "https://example.com/avatars/1.jpg")!
@MainActor let iconURL = URL(string: "https://example.com/icons/follow.png")!
@MainActor let request = ImageRequest(url: url)
@MainActor let placeholder = PlatformImage(named: "placeholder")
@MainActor let galleryPipeline = ImagePipeline(configuration: ImagePipeline.Configuration())
@MainActor let posts = [Post(id: 1, imageURL: url)]
@MainActor let visibleIDs = posts.map(\.id)
@MainActor let loader = VisibleItemsLoader<Post.ID>(items: posts.map(\.id)) { id in
    posts.first { $0.id == id }.map { ImageRequest(url: $0.imageURL) }
}
@MainActor let avatar = RemoteImageLoader()
@MainActor let model = Model()
@MainActor let cell = PhotoCell()
func log(_ result: Result<ImageResponse, any Error>) { print(result) }

// The app's `ScrollLandingPredictor` (a view's `@State`), and the target SwiftUI hands a
// `ScrollTargetBehavior` (which only SwiftUI makes). Nothing here runs: it is only type-checked.
@available(iOS 18, macOS 15, *)
@MainActor var predictor: ScrollLandingPredictor {
    get { ScrollLandingPredictor(itemLength: 120) }
    set { _ = newValue }
}
@available(iOS 17, macOS 14, *)
@MainActor var target: ScrollTarget { fatalError("a ScrollTargetBehavior's parameter") }

#if canImport(UIKit)
@MainActor let imageView = UIImageView()
@MainActor let button = UIButton(type: .custom)
@MainActor let likeButton = UIButton(type: .custom)
@MainActor let retryButton = UIButton(type: .system)
@MainActor let banner = UIButton(type: .custom)
@MainActor let spinner = UIActivityIndicatorView(style: .medium)
@MainActor let heartURL = URL(string: "https://example.com/icons/heart.png")!
@MainActor let artURL = URL(string: "https://example.com/banners/art.jpg")!
@MainActor let collectionView = UICollectionView(frame: .zero, collectionViewLayout: UICollectionViewFlowLayout())
@MainActor let indexPath = IndexPath(item: 0, section: 0)
@MainActor let dataSource = UICollectionViewDiffableDataSource<Int, Post.ID>(collectionView: collectionView) { collectionView, indexPath, _ in
    collectionView.dequeueReusableCell(withReuseIdentifier: "photo", for: indexPath)
}
@MainActor let visibleItems = CollectionViewVisibleItems(collectionView: collectionView, loader: loader) { indexPath in
    dataSource.itemIdentifier(for: indexPath)
}
#else
@MainActor let imageView = NSImageView()
@MainActor let button = NSButton()
@MainActor let retryButton = NSButton()
@MainActor let toggle = NSButton()
@MainActor let spinner = NSProgressIndicator()
@MainActor let pressedURL = URL(string: "https://example.com/icons/follow-pressed.png")!
#endif
