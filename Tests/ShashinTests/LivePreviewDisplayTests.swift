// Progressive JPEGs are written with libvips, which exists only where Shashin decodes with it.
#if canImport(ShashinVips) && !SHASHIN_APPLE_SHAPE
import Foundation
import Shashin
import Testing

/// Records which of the target's calls showed what, in order: `placeholder`,
/// `preview WxH` (``ImageDisplaying/displayPreview(_:contentMode:)``) or `display WxH <transition>`.
final class PreviewRecordingTarget: ImageDisplaying {
    private(set) var shown: [String] = []
    func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ViewContentMode?) {
        shown.append("display \(image.pixelWidth)x\(image.pixelHeight) \(transition.isImmediate ? "none" : "fade")")
    }
    func displayPreview(_ image: PlatformImage, contentMode: ViewContentMode?) {
        shown.append("preview \(image.pixelWidth)x\(image.pixelHeight)")
    }
    func displayPlaceholder(_ placeholder: PlatformImage?) { shown.append("placeholder") }
    func displayFailure(_ image: PlatformImage?, error: any Error) { shown.append("failure") }
}

@MainActor
@Suite("Over HTTP: the binding tells previews from the final image")
struct LivePreviewDisplayTests {
    @Test func previewsArriveThroughDisplayPreviewAndTheFinalImageThroughDisplay() async throws {
        let fixture = try await LiveProgressiveTests.start(.asyncHTTPClient)
        let (url, gate) = LiveProgressiveTests.serveGated(fixture, "/told-apart.jpg", try ProgressiveFiles.jpeg())
        let target = PreviewRecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, transition: .fade(duration: 0.2)))
        binding.setRequest(ImageRequest(url: url, thumbnail: .init(maxPixelSize: 400)))
        for stop in 0..<gate.stops.count {
            try await waitOnActor { gate.reachedStops > stop }
            try await waitOnActor { target.shown.count == stop + 2 } // the placeholder, then one call a scan
            gate.release()
        }
        try await waitOnActor { binding.state == .success(.none) }
        let previews = Array(repeating: "preview 400x300", count: gate.stops.count)
        #expect(target.shown == ["placeholder"] + previews + ["display 400x300 fade"])
        try await fixture.finish()
    }

    @Test func aTargetWithoutDisplayPreviewShowsPreviewsAsImagesWithNoTransition() async throws {
        let fixture = try await LiveProgressiveTests.start(.asyncHTTPClient)
        let (url, gate) = LiveProgressiveTests.serveGated(fixture, "/default.jpg", try ProgressiveFiles.jpeg())
        let target = ShowRecordingTarget() // implements display, not displayPreview
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, transition: .fade(duration: 0.2)))
        binding.setRequest(ImageRequest(url: url, thumbnail: .init(maxPixelSize: 400)))
        try await waitOnActor { gate.reachedStops > 0 }
        try await waitOnActor { target.shown.count == 2 }
        #expect(target.shown == ["placeholder", "none 400x300"])
        gate.releaseAll()
        try await waitOnActor { binding.state == .success(.none) }
        #expect(target.shown.last == "fade 400x300")
        try await fixture.finish()
    }
}
#endif
