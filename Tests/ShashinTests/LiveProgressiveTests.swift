// Progressive previews are decoded by libvips' direct JPEG path here; ImageIO's (Apple) needs a Mac.
#if canImport(ShashinVips) && !SHASHIN_APPLE_SHAPE
import Foundation
import ImageServer
import Shashin
@testable import ShashinCore
import ShashinVips
import Testing

/// Collects the previews a task delivers, from another task.
final class PreviewCollector: Sendable {
    private let list = Locked<[ImageResponse]>([])
    private let reader: Task<Void, Never>

    init(_ task: ImageTask) {
        let list = self.list
        reader = Task { for await preview in task.previews { list.withLock { $0.append(preview) } } }
    }

    var previews: [ImageResponse] { list.current }
    var count: Int { list.withLock { $0.count } }
    /// Returns once the task has ended and every preview it sent is here.
    func drained() async { await reader.value }
}

/// A real decoder (libvips) that counts what it is asked to do.
final class CountingDecoder: ProgressiveImageDecoding {
    private let base = VipsImageDecoder()
    let finals = Locked(0)
    let previews = Locked(0)

    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        finals.withLock { $0 += 1 }
        return try base.decode(data, context: context)
    }

    func decodePreview(_ data: Data, context: ImageDecodingContext) -> PlatformImage? {
        previews.withLock { $0 += 1 }
        return base.decodePreview(data, context: context)
    }
}

/// libvips' decoder, whose sessions it records: what each was asked, and whether it was closed.
final class SessionRecordingDecoder: ProgressiveImageDecoding {
    private let base = VipsImageDecoder()
    let finals = Locked(0)
    let sessions = Locked<[RecordedSession]>([])

    func decode(_ data: Data, context: ImageDecodingContext) throws -> PlatformImage {
        finals.withLock { $0 += 1 }
        return try base.decode(data, context: context)
    }

    func decodePreview(_ data: Data, context: ImageDecodingContext) -> PlatformImage? {
        base.decodePreview(data, context: context)
    }

    func makeProgressiveSession(for data: Data, context: ImageDecodingContext) -> (any ProgressiveDecodingSession)? {
        guard let session = base.makeProgressiveSession(for: data, context: context) else { return nil }
        let recorded = RecordedSession(session)
        sessions.withLock { $0.append(recorded) }
        return recorded
    }

    final class RecordedSession: ProgressiveDecodingSession {
        let base: any ProgressiveDecodingSession
        let previews = Locked(0)
        let finishedWithImage = Locked(false)
        let closed = Locked(false)
        init(_ base: any ProgressiveDecodingSession) { self.base = base }

        func preview(_ data: Data, scanEnd: Int) -> PlatformImage? {
            let image = base.preview(data, scanEnd: scanEnd)
            if image != nil { previews.withLock { $0 += 1 } }
            return image
        }

        func finish(_ data: Data) -> PlatformImage? {
            let image = base.finish(data)
            finishedWithImage.withLock { $0 = image != nil }
            return image
        }

        func close() {
            closed.withLock { $0 = true }
            base.close()
        }
    }
}

@Suite("Over HTTP: progressive JPEG previews")
struct LiveProgressiveTests {
    /// A live fixture with previews on, no interval between them and no budget (unless given).
    static func start(_ loader: LoaderFactory, interval: TimeInterval = 0, budget: Double = .infinity,
                      _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) async throws -> LiveFixture {
        try await LiveFixture.start(loader) { configuration in
            configuration.isProgressiveDecodingEnabled = true
            configuration.progressiveDecodingInterval = interval
            configuration.progressiveDecodingBudget = budget
            configure(&configuration)
        }
    }

    /// Serves `data` on `path`, stopping after each scan until the test releases it.
    static func serveGated(_ fixture: LiveFixture, _ path: String, _ data: Data, fault: RouteScript.Fault? = nil) -> (URL, BodyGate) {
        let gate = ProgressiveFiles.gatePerScan(data)
        var script = RouteScript.data(data, contentType: "image/jpeg")
        script.bodyGate = gate
        script.fault = fault
        fixture.server.setRoute(path, script)
        return (fixture.server.url(path), gate)
    }

    /// Lets the body through one scan at a time, each time waiting for the preview of the scans
    /// so far (`previews(stop)` is how many previews that is at stop `stop`).
    static func releaseScanByScan(_ gate: BodyGate, _ collector: PreviewCollector, from first: Int = 0,
                                  previews: (Int) -> Int = { $0 + 1 }) async throws {
        for stop in first..<gate.stops.count {
            try await waitFor { gate.reachedStops > stop }
            try await waitFor { collector.count >= previews(stop) }
            gate.release()
        }
    }

    @Test(arguments: LoaderFactory.all) func eachCompletedScanGivesAPreviewCloserToTheFinalImage(loader: LoaderFactory) async throws {
        let fixture = try await Self.start(loader)
        let data = try ProgressiveFiles.jpeg()
        let (url, gate) = Self.serveGated(fixture, "/progressive.jpg", data)
        #expect(gate.stops.count >= 3)
        let request = ImageRequest(url: url, thumbnail: .init(maxPixelSize: 600))
        let task = fixture.task(request)
        let collector = PreviewCollector(task)

        try await Self.releaseScanByScan(gate, collector)
        let final = try await task.response
        await collector.drained()

        let previews = collector.previews
        #expect(previews.count == gate.stops.count) // one a scan; the last scan's is the final image
        #expect(!final.isPreview && !previews.contains { !$0.isPreview })
        let finalBitmap = final.image.testBitmap
        #expect(finalBitmap.width == 600 && finalBitmap.height == 450)
        let differences = previews.map { preview -> Double in
            let bitmap = preview.image.testBitmap
            guard bitmap.width == finalBitmap.width, bitmap.height == finalBitmap.height else { return .infinity }
            return ProgressiveFiles.meanDifference(bitmap, finalBitmap)
        }
        #expect(!differences.contains(.infinity), "every preview has the final image's size")
        #expect(zip(differences, differences.dropFirst()).allSatisfy { $0 > $1 }, "differences: \(differences)")
        #expect(differences.last.map { $0 > 0 } == true)
        // The memory cache holds the final image, never a preview.
        #expect(fixture.pipeline.cachedImage(for: request)?.testBitmap == finalBitmap)
        try await fixture.finish()
    }

    @Test func thePipelineCachesNoPreviewAndSubscribersThatJoinLateGetTheLatestAtOnce() async throws {
        let fixture = try await Self.start(.asyncHTTPClient)
        let data = try ProgressiveFiles.jpeg()
        let (url, gate) = Self.serveGated(fixture, "/shared.jpg", data)
        let request = ImageRequest(url: url, thumbnail: .init(maxPixelSize: 600), processors: [.roundedCorners(radius: 80)])
        let first = fixture.task(request)
        let firstPreviews = PreviewCollector(first)
        try await waitFor { gate.reachedStops > 0 }
        try await waitFor { firstPreviews.count == 1 }
        #expect(fixture.pipeline.cachedImage(for: request) == nil)

        // Joins the same work after the first preview: it gets that preview at once.
        let second = fixture.task(request)
        let secondPreviews = PreviewCollector(second)
        try await waitFor { secondPreviews.count == 1 }
        #expect(secondPreviews.previews[0].image.testBitmap == firstPreviews.previews[0].image.testBitmap)
        gate.release()
        try await Self.releaseScanByScan(gate, firstPreviews, from: 1)
        let (a, b) = (try await first.response, try await second.response)
        await firstPreviews.drained()
        await secondPreviews.drained()

        #expect(fixture.server.requestCount(for: "/shared.jpg") == 1)
        #expect(secondPreviews.count == firstPreviews.count && firstPreviews.count == gate.stops.count)
        for preview in firstPreviews.previews + secondPreviews.previews {
            let bitmap = preview.image.testBitmap
            // Through the processor: the corners are cut away.
            #expect(bitmap.width == 600 && bitmap.pixels[3] == 0)
        }
        #expect(a.image.testBitmap == b.image.testBitmap)
        #expect(fixture.pipeline.cachedImage(for: request)?.testBitmap == a.image.testBitmap)
        try await fixture.finish()
    }

    @Test func theIntervalAllowsOnePreviewWithinIt() async throws {
        let fixture = try await Self.start(.asyncHTTPClient, interval: 3600)
        let data = try ProgressiveFiles.jpeg()
        let (url, gate) = Self.serveGated(fixture, "/throttled.jpg", data)
        let task = fixture.task(ImageRequest(url: url, thumbnail: .init(maxPixelSize: 600)))
        let collector = PreviewCollector(task)
        // After the first, every later scan completes within the hour.
        try await Self.releaseScanByScan(gate, collector) { _ in 1 }
        _ = try await task.response
        await collector.drained()
        #expect(collector.count == 1)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func previewsStopWhenTheBytesTheyDecodeWouldPassTheBudget(loader: LoaderFactory) async throws {
        // Decoding each preview from the start of the file: the prefixes that fit in 1.5 × the size.
        let fromScratch = try await Self.start(loader, budget: 1.5) { $0.decoder = CountingDecoder() }
        let data = try ProgressiveFiles.jpeg()
        var decoded = 0
        let expected = ProgressiveFiles.scanEnds(data).dropLast().prefix { end in
            decoded += end
            return Double(decoded) <= 1.5 * Double(data.count)
        }.count
        try await Self.countPreviews(fromScratch, data, expected: expected)
        // libvips' session decodes each byte once: the scans that end within 0.5 × the size.
        let session = try await Self.start(loader, budget: 0.5)
        let within = ProgressiveFiles.scanEnds(data).dropLast().prefix { Double($0) <= 0.5 * Double(data.count) }.count
        try await Self.countPreviews(session, data, expected: within)
    }

    /// Loads `data` scan by scan and expects `expected` previews, fewer than the scans.
    static func countPreviews(_ fixture: LiveFixture, _ data: Data, expected: Int) async throws {
        let (url, gate) = Self.serveGated(fixture, "/budget.jpg", data)
        #expect(expected >= 1 && expected < gate.stops.count)
        let task = fixture.task(ImageRequest(url: url, thumbnail: .init(maxPixelSize: 600)))
        let collector = PreviewCollector(task)
        try await Self.releaseScanByScan(gate, collector) { min($0 + 1, expected) }
        _ = try await task.response
        await collector.drained()
        #expect(collector.count == expected)
        try await fixture.finish()
    }

    /// libvips' session makes the previews and then the final image (the decoder's own decode
    /// is not asked), the same pixels the decoder makes of the whole file, and is closed.
    @Test func theFinalImageComesFromThePreviewsSession() async throws {
        let decoder = SessionRecordingDecoder()
        let fixture = try await Self.start(.asyncHTTPClient) { $0.decoder = decoder }
        let data = try ProgressiveFiles.jpeg()
        let (url, gate) = Self.serveGated(fixture, "/session.jpg", data)
        let task = fixture.task(ImageRequest(url: url, thumbnail: .init(maxPixelSize: 600)))
        let collector = PreviewCollector(task)
        try await Self.releaseScanByScan(gate, collector)
        let final = try await task.response
        await collector.drained()
        let sessions = decoder.sessions.current
        #expect(sessions.count == 1 && decoder.finals.current == 0)
        #expect(sessions.first?.previews.current == gate.stops.count && sessions.first?.finishedWithImage.current == true)
        #expect(sessions.first?.closed.current == true)
        let direct = try VipsImageDecoder().decode(data, context: ImageDecodingContext(format: .jpeg, thumbnail: .init(maxPixelSize: 600)))
        #expect(final.image.testBitmap == direct.testBitmap)
        try await fixture.finish()
    }

    /// Cancelled after the first preview: the session is closed and gives its memory back.
    @Test(arguments: LoaderFactory.all) func cancellingClosesTheSession(loader: LoaderFactory) async throws {
        let decoder = SessionRecordingDecoder()
        let budget = DecodeMemoryBudget(bytes: 256 << 20)
        let fixture = try await Self.start(loader) { configuration in
            configuration.decoder = decoder
            configuration.decodeMemoryBudget = budget
        }
        let (url, gate) = Self.serveGated(fixture, "/cancelled-session.jpg", try ProgressiveFiles.jpeg())
        let task = fixture.task(ImageRequest(url: url, thumbnail: .init(maxPixelSize: 600)))
        let collector = PreviewCollector(task)
        try await waitFor { gate.reachedStops > 0 }
        try await waitFor { collector.count == 1 }
        #expect(budget.reservedBytes > 0, "the session holds the coefficients' memory while the download goes on")
        task.cancel()
        try await waitFor { fixture.pipeline.activeTaskCount == 0 && fixture.pipeline.graph.jobCount == 0 }
        try await waitFor { budget.reservedBytes == 0 }
        gate.releaseAll()
        try await waitFor { fixture.server.inFlight == 0 }
        await collector.drained()
        #expect(decoder.sessions.current.count == 1 && decoder.sessions.current.allSatisfy { $0.closed.current })
        #expect(decoder.finals.current == 0)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func aBaselineJPEGGivesNoPreviews(loader: LoaderFactory) async throws {
        let fixture = try await Self.start(loader)
        let data = try ProgressiveFiles.jpeg(progressive: false)
        let gate = BodyGate(stops: [data.count / 4, data.count / 2, data.count * 3 / 4])
        var script = RouteScript.data(data, contentType: "image/jpeg")
        script.bodyGate = gate
        fixture.server.setRoute("/baseline.jpg", script)
        let task = fixture.task(ImageRequest(url: fixture.server.url("/baseline.jpg"), thumbnail: .init(maxPixelSize: 600)))
        let collector = PreviewCollector(task)
        for stop in 0..<gate.stops.count {
            try await waitFor { gate.reachedStops > stop }
            gate.release()
        }
        let final = try await task.response
        await collector.drained()
        #expect(collector.count == 0 && !final.isPreview)
        try await fixture.finish()
    }

    @Test func aRequestThatTurnsPreviewsOffGetsNoneFromAPipelineWithThemOn() async throws {
        let decoder = CountingDecoder()
        let fixture = try await Self.start(.asyncHTTPClient) { $0.decoder = decoder }
        let data = try ProgressiveFiles.jpeg()
        let (url, gate) = Self.serveGated(fixture, "/off.jpg", data)
        var request = ImageRequest(url: url, thumbnail: .init(maxPixelSize: 600))
        request.isProgressiveDecodingEnabled = false
        let task = fixture.task(request)
        let collector = PreviewCollector(task)
        for stop in 0..<gate.stops.count {
            try await waitFor { gate.reachedStops > stop }
            gate.release()
        }
        _ = try await task.response
        await collector.drained()
        #expect(collector.count == 0 && decoder.previews.current == 0)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func cancellingMidwayStopsAllDecoding(loader: LoaderFactory) async throws {
        let decoder = CountingDecoder()
        let fixture = try await Self.start(loader) { $0.decoder = decoder }
        let data = try ProgressiveFiles.jpeg()
        let (url, gate) = Self.serveGated(fixture, "/cancelled.jpg", data)
        let task = fixture.task(ImageRequest(url: url, thumbnail: .init(maxPixelSize: 600)))
        let collector = PreviewCollector(task)
        try await waitFor { gate.reachedStops > 0 }
        try await waitFor { collector.count == 1 }
        task.cancel()
        try await waitFor { fixture.pipeline.activeTaskCount == 0 && fixture.pipeline.graph.jobCount == 0 }
        gate.releaseAll()
        try await waitFor { fixture.server.inFlight == 0 }
        await collector.drained()
        #expect(decoder.previews.current == 1 && decoder.finals.current == 0 && collector.count == 1)
        try await fixture.finish()
    }

    @Test(arguments: LoaderFactory.all) func aBodyCutShortGivesPreviewsAndTheFinalDecidesTheError(loader: LoaderFactory) async throws {
        let fixture = try await Self.start(loader)
        let data = try ProgressiveFiles.jpeg()
        // Half the body, then the connection closes: the stops past the half are never reached.
        let (url, gate) = Self.serveGated(fixture, "/cut.jpg", data, fault: .dropConnectionMidBody)
        let reachable = gate.stops.filter { $0 <= data.count / 2 }.count
        #expect(reachable >= 1)
        let task = fixture.task(ImageRequest(url: url, thumbnail: .init(maxPixelSize: 600)))
        let collector = PreviewCollector(task)
        for stop in 0..<reachable {
            try await waitFor { gate.reachedStops > stop }
            try await waitFor { collector.count >= stop + 1 }
            gate.release()
        }
        let error = await fixture.error(of: task)
        await collector.drained()
        #expect(error as? ImagePipelineError == .truncatedData(expected: data.count, received: data.count / 2))
        #expect(collector.count >= reachable)
        try await fixture.finish()
    }

    @Test func previewsOfDataCutAnywhereAreImagesOrNothingNeverACrash() throws {
        let data = try ProgressiveFiles.jpeg(width: 320, height: 240)
        let decoder = VipsImageDecoder()
        let context = ImageDecodingContext(format: .jpeg, thumbnail: .init(maxPixelSize: 100))
        var images = 0
        for length in stride(from: 0, through: data.count, by: 61) {
            if let image = decoder.decodePreview(data.prefix(length), context: context) {
                #expect(image.testBitmap.width == 100 && image.testBitmap.height == 75)
                images += 1
            }
        }
        // Damaged scans: every 50th byte of the scan data flipped.
        var damaged = data
        for index in stride(from: ProgressiveFiles.scanEnds(data)[0], to: data.count - 2, by: 50) { damaged[index] ^= 0x5A }
        for end in ProgressiveFiles.scanEnds(damaged) { _ = decoder.decodePreview(damaged.prefix(end), context: context) }
        _ = decoder.decodePreview(Data(repeating: 0xFF, count: 4096), context: context)
        #expect(images > 0)
        // A baseline JPEG has no earlier scans: no preview, even whole.
        let baseline = try ProgressiveFiles.jpeg(width: 320, height: 240, progressive: false)
        #expect(decoder.decodePreview(baseline, context: context) == nil)
    }
}
#endif

#if canImport(ShashinVips) && !SHASHIN_APPLE_SHAPE
/// Records what a binding shows, in order: `placeholder`, `preview WxH` (no transition) or
/// `image WxH <transition>`.
final class ShowRecordingTarget: ImageDisplaying {
    private(set) var shown: [String] = []
    func display(_ image: PlatformImage, transition: ImageTransition, contentMode: ViewContentMode?) {
        let size = "\(image.pixelWidth)x\(image.pixelHeight)"
        shown.append(transition.isImmediate ? "none \(size)" : "fade \(size)")
    }
    func displayPlaceholder(_ placeholder: PlatformImage?) { shown.append("placeholder") }
    func displayFailure(_ image: PlatformImage?, error: any Error) { shown.append("failure") }
}

@MainActor
@Suite("Over HTTP: the binding shows progressive previews")
struct LiveProgressiveBindingTests {
    @Test func previewsAppearWithoutTransitionThenTheFinalImageWithNoPlaceholderBetween() async throws {
        let fixture = try await LiveProgressiveTests.start(.asyncHTTPClient)
        let (url, gate) = LiveProgressiveTests.serveGated(fixture, "/bound.jpg", try ProgressiveFiles.jpeg())
        let target = ShowRecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline, transition: .fade(duration: 0.2)))
        binding.setRequest(ImageRequest(url: url, thumbnail: .init(maxPixelSize: 600)))
        for stop in 0..<gate.stops.count {
            try await waitOnActor { gate.reachedStops > stop }
            try await waitOnActor { target.shown.count == stop + 2 } // the placeholder, then one preview a scan
            gate.release()
        }
        try await waitOnActor { binding.state == .success(.none) }
        let previews = Array(repeating: "none 600x450", count: gate.stops.count)
        #expect(target.shown == ["placeholder"] + previews + ["fade 600x450"])
        try await fixture.finish()
    }

    @Test func aReusedViewNeverShowsThePreviewsOfItsFormerRequest() async throws {
        let fixture = try await LiveProgressiveTests.start(.asyncHTTPClient)
        let (former, formerGate) = LiveProgressiveTests.serveGated(fixture, "/former.jpg", try ProgressiveFiles.jpeg())
        let (current, currentGate) = LiveProgressiveTests.serveGated(fixture, "/current.jpg",
                                                                     try ProgressiveFiles.jpeg(width: 400, height: 300))
        let target = ShowRecordingTarget()
        let binding = ImageBinding(target: target, options: .init(pipeline: fixture.pipeline))
        binding.setRequest(ImageRequest(url: former, thumbnail: .init(maxPixelSize: 800)))
        try await waitOnActor { formerGate.reachedStops > 0 && target.shown.count == 2 }
        // Another row now: the former load keeps sending previews that no one must see.
        let formerTask = PreviewCollector(fixture.task(ImageRequest(url: former, thumbnail: .init(maxPixelSize: 800))))
        let currentRequest = ImageRequest(url: current, thumbnail: .init(maxPixelSize: 800))
        binding.setRequest(currentRequest)
        let currentTask = PreviewCollector(fixture.task(currentRequest)) // shares the binding's load
        try await LiveProgressiveTests.releaseScanByScan(formerGate, formerTask)
        try await LiveProgressiveTests.releaseScanByScan(currentGate, currentTask)
        try await waitOnActor { binding.state == .success(.none) }
        #expect(target.shown.first == "placeholder" && target.shown[1] == "none 800x600")
        #expect(Array(target.shown.dropFirst(2)).allSatisfy { !$0.contains("800x600") }, "\(target.shown)")
        #expect(target.shown[2] == "placeholder" && target.shown.last?.hasSuffix("400x300") == true)
        try await fixture.finish()
    }
}
#endif

#if canImport(ShashinVips) && !SHASHIN_APPLE_SHAPE
@Suite("JPEG scan tracking as bytes arrive")
struct JPEGScanTrackerTests {
    /// Feeds `data` in chunks of `size` bytes; returns the tracker and each completed prefix length.
    static func track(_ data: Data, chunk size: Int) -> (JPEGScanTracker, [Int]) {
        var tracker = JPEGScanTracker()
        var prefixes: [Int] = []
        var received = Data()
        var offset = 0
        while offset < data.count {
            received.append(data[offset..<min(data.count, offset + size)])
            offset += size
            if tracker.advance(through: received) { prefixes.append(tracker.completePrefixLength) }
        }
        return (tracker, prefixes)
    }

    @Test(arguments: [1, 7, 500, 4096, 1 << 30]) func everyScanIsFoundHoweverTheBytesAreSplit(chunk: Int) throws {
        let data = try ProgressiveFiles.jpeg(width: 320, height: 240)
        let ends = ProgressiveFiles.scanEnds(data)
        let (tracker, prefixes) = Self.track(data, chunk: chunk)
        #expect(tracker.frame == .progressive && tracker.reachedEnd && !tracker.isBroken)
        #expect(tracker.completedScans == ends.count)
        // One hand-over a chunk: with small chunks, one a scan, ending where the scan ends.
        if chunk <= 7 { #expect(prefixes == ends) } else { #expect(Set(prefixes).isSubset(of: Set(ends))) }
    }

    @Test func aBaselineFrameStopsTrackingAtItsHeader() throws {
        let data = try ProgressiveFiles.jpeg(width: 320, height: 240, progressive: false)
        let (tracker, prefixes) = Self.track(data, chunk: 100)
        #expect(tracker.frame == .sequential && !tracker.isTracking && prefixes.isEmpty && tracker.completedScans == 0)
    }

    @Test func dataThatIsNoJPEGStopsTracking() {
        var tracker = JPEGScanTracker()
        let completed = tracker.advance(through: Data("GIF89a, not a JPEG".utf8))
        #expect(!completed && tracker.isBroken && !tracker.isTracking)
    }
}
#endif
