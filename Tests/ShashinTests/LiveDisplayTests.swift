import Foundation
import ImageServer
import Shashin
import Testing

/// Remembers the size of every image shown in it (each test image has its own size).
final class SizeRecordingTarget: ImageDisplaying {
    private(set) var sizes: [String] = []
    private(set) var placeholders = 0
    func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ViewContentMode?) {
        sizes.append("\(image.pixelWidth)x\(image.pixelHeight)")
    }
    func displayPlaceholder(_ placeholder: PlatformImage?) { placeholders += 1 }
    func displayFailure(_ image: PlatformImage?, error: any Error) { sizes.append("failure") }
}

/// Polls `condition` on the caller's actor until it holds; fails after `timeout` seconds (a bound,
/// as `waitFor`'s, never a time the test asserts).
func waitOnActor(timeout: TimeInterval = 60, isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { throw TimedOut() }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
}

@MainActor
@Suite("Over HTTP: the display layer")
struct LiveDisplayTests {
    @Test(arguments: LoaderFactory.all) func aFlingOver200RowsDownloadsOnlyTheRowsAtRestAndThePrefetchWindow(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        let rows = 300
        let urls = (0..<rows).map { fixture.serveImage("/feed/\($0).jpg", width: 40 + $0 % 20, height: 30, seed: UInt64($0)) }
        var policy = VisibleItemsLoader<Int>.Policy()
        policy.prefetchDistance = 4
        let loader = VisibleItemsLoader(pipeline: fixture.pipeline, items: Array(0..<rows), policy: policy) { row in
            ImageRequest(url: urls[row], thumbnail: .init(maxPixelSize: 32))
        }
        var cells: [Int: ImageBinding] = [:]
        var pool: [ImageBinding] = []
        func show(_ visible: ClosedRange<Int>, _ scroll: ScrollState) {
            loader.update(visibleItems: Array(visible), scroll: scroll)
            for row in cells.keys where !visible.contains(row) { pool.append(cells.removeValue(forKey: row)!) }
            for row in visible where cells[row] == nil {
                let binding = pool.popLast() ?? ImageBinding(target: SizeRecordingTarget(), options: .init(pipeline: fixture.pipeline))
                cells[row] = binding
                loader.display(row, in: binding)
            }
        }
        func settled() -> Bool {
            cells.values.allSatisfy { if case .success = $0.state { true } else { false } } && loader.prefetcher.count == 0
        }

        show(0...7, .idle)
        try await waitOnActor(settled)
        // The fling: 40 frames of five rows each, far faster than the policy's fast-scroll speed.
        for top in stride(from: 5, through: 195, by: 5) {
            show(top...(top + 7), ScrollState(phase: .decelerating, velocity: 150))
        }
        // Slowing down: the visible rows load, and the two rows the list would still coast over
        // (3 rows/s · τ ≈ 1.5) are prefetched; nothing is prefetched at rest.
        show(200...207, ScrollState(phase: .decelerating, velocity: 3))
        try await waitOnActor(settled)
        show(200...207, .idle)
        try await fixture.finish()

        let expected = Array(0...7) + Array(200...209)
        #expect(fixture.server.totalRequests == expected.count)
        for row in expected { #expect(fixture.server.requestCount(for: "/feed/\(row).jpg") == 1) }
    }

    @Test(arguments: LoaderFactory.all) func prefetchingThenDisplayingMakesOneDownload(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        // The body stops after its first byte until the binding has joined the prefetch: the
        // download is in flight for as long as the test needs, however late its polls run.
        let gate = BodyGate(stops: [1])
        let url = fixture.serveImage("/ahead.jpg", width: 48, height: 36, gate: gate)
        let request = ImageRequest(url: url, thumbnail: .init(maxPixelSize: 24))
        let prefetcher = ImagePrefetcher(pipeline: fixture.pipeline)
        prefetcher.startPrefetching(with: [request])
        try await waitOnActor { gate.reachedStops == 1 }
        let target = SizeRecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline))
        binding.setRequest(request)
        #expect(binding.state != .success(.none))
        gate.releaseAll()
        try await waitOnActor { binding.state == .success(.none) }
        #expect(target.sizes == ["24x18"])
        #expect(fixture.server.requestCount(for: "/ahead.jpg") == 1)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func aCellReassignedBeforeItsSlowImageArrivesShowsOnlyTheNewOne(loader: LoaderFactory) async throws {
        let fixture = try await LiveFixture.start(loader)
        // The slow image's body stops after its first byte until the cell holds the fast one.
        let gate = BodyGate(stops: [1])
        let slow = fixture.serveImage("/slow.jpg", width: 60, height: 40, gate: gate)
        let fast = fixture.serveImage("/fast.jpg", width: 30, height: 20)
        let target = SizeRecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline))
        binding.setRequest(ImageRequest(url: slow))
        try await waitOnActor { gate.reachedStops == 1 }
        binding.setRequest(ImageRequest(url: fast))
        try await waitOnActor { binding.state == .success(.none) }
        gate.releaseAll()
        // Let the slow image arrive too, if anyone still fetched it: it must not land.
        let other = try await fixture.pipeline.image(for: ImageRequest(url: slow))
        #expect(other.pixelWidth == 60)
        try await fixture.finish()
        #expect(target.sizes == ["30x20"])
        #expect(target.placeholders == 1) // one placeholder for the slow request; the fast one kept it
    }
}
