import Foundation
@testable import ShashinCore

/// An `ImageDisplaying` that records everything shown in it, in order.
final class RecordingTarget: ImageDisplaying {
    enum Shown: Equatable {
        /// An image, identified by its fill byte (`TestImages` fills every pixel with one value).
        case image(fill: UInt8, transition: ImageTransition)
        case placeholder(fill: UInt8?)
        case failure(fill: UInt8?)
        case cleared
    }

    private(set) var history: [Shown] = []
    var last: Shown? { history.last }
    /// The fill bytes of every image shown, in order.
    var imagesShown: [UInt8] {
        history.compactMap { if case .image(let fill, _) = $0 { fill } else { nil } }
    }

    func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ViewContentMode?) {
        history.append(.image(fill: image.testBitmap.pixels[0], transition: transition))
    }

    func displayPlaceholder(_ placeholder: PlatformImage?) {
        history.append(.placeholder(fill: placeholder?.testBitmap.pixels[0]))
    }

    func displayFailure(_ image: PlatformImage?, error: any Error) {
        history.append(.failure(fill: image?.testBitmap.pixels[0]))
    }

    func clearImage() {
        history.append(.cleared)
    }
}

extension PipelineFixture {
    /// A request for `name`, whose image (once answered with `imageData(name:)`) is filled with `fill`.
    static func request(_ name: String, priority: ImageRequest.Priority = .normal) -> ImageRequest {
        ImageRequest(url: url(name), priority: priority)
    }

    static func imageData(fill: UInt8) -> Data {
        TestImages.encode(width: 2, height: 2, fill: fill)
    }
}

/// `eventually` for conditions on the caller's actor (bindings and loaders live there): polls
/// `condition` without leaving the actor between checks; fails after `timeout` seconds.
func waitUntil(timeout: TimeInterval = 10, isolation: isolated (any Actor)? = #isolation,
               _ condition: () -> Bool, file: String = #fileID, line: Int = #line) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { throw TimedOut(description: "condition not met at \(file):\(line)") }
        try await Task.sleep(nanoseconds: 1_000_000)
    }
}
