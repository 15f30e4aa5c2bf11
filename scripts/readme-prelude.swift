// The names README.md's samples take as given, so `scripts/check-readme` can compile them as
// written. Each stands for something an app has: a URL, a view, a post list. Linux only (images
// are `Bitmap`s), like the check.
import Foundation
import Shashin

let url = URL(string: "https://example.com/photo.jpg")!
let pipeline = ImagePipeline()
let token = "secret"
let mirrorURL = URL(string: "https://mirror.example.com/photo.jpg")!
let fileURL = URL(fileURLWithPath: "/tmp/photo.jpg")

/// Bytes an app has that are not at a URL: a bundled image, an encrypted store.
func bundledBanner() async throws -> Data { Data() }
struct Vault { func decrypt(_ name: String) async throws -> Data { Data() } }
let vault = Vault()

/// A 1×1 image of one grey level.
func solid(_ level: UInt8) -> PlatformImage { Bitmap(width: 1, height: 1, pixels: [level, level, level, 255]) }
let image = solid(128)
let testImage = solid(64)
let placeholder = solid(200)
let grey = solid(200)
let broken = solid(0)

@MainActor func show(_ image: PlatformImage) {}
@MainActor func showFailure(_ message: String) {}
@MainActor func log(_ message: String) {}

/// A view: an `ImageDisplaying` that keeps its own binding.
@MainActor final class Cell: ImageDisplaying {
    lazy var binding = ImageBinding(target: self)
    func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ViewContentMode?) {}
    func displayPlaceholder(_ placeholder: PlatformImage?) {}
    func displayFailure(_ image: PlatformImage?, error: any Error) {}
}
@MainActor let cell = Cell()

/// An activity indicator.
final class Spinner { var isHidden = true }
@MainActor let spinner = Spinner()

struct Post { let imageURL: URL }
let posts = (0..<100).map { Post(imageURL: URL(string: "https://example.com/\($0).jpg")!) }
let row = 0
let visibleRows = Array(0..<8)
let upcoming = (8..<14).map { ImageRequest(url: posts[$0].imageURL) }
let gone = [ImageRequest(url: posts[0].imageURL)]

/// Decoders of an app's own: one for a format Shashin does not know, one to replace a built-in.
struct QOIDecoder: ImageDecoding {
    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage { solid(0) }
}
struct MyGIFDecoder: ImageDecoding {
    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage { solid(0) }
}

/// The app's sign-in: a token that `refresh()` replaces.
actor TokenStore {
    var token = "secret"
    func refresh() { token = "refreshed" }
}

/// What the side-by-side article's samples take as given.
let urls = posts.map(\.imageURL)
@MainActor var configuration = ImagePipeline.Configuration()
func load() async throws -> Data { Data() }
let p = placeholder
let f = broken
let smallURL = mirrorURL
