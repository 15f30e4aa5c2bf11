import Foundation
import Testing
@testable import ShashinCore

/// Holds every call of a data source until the test opens it, counting the calls and the
/// cancellations their tasks saw.
final class DataSourceGate: Sendable {
    private struct State {
        var calls = 0
        var cancelled = 0
        var isOpen = false
        var waiting: [CheckedContinuation<Void, any Error>] = []
    }

    private let state = Locked(State())
    let bytes: Data

    init(bytes: Data) { self.bytes = bytes }

    var calls: Int { state.withLock { $0.calls } }
    var cancelled: Int { state.withLock { $0.cancelled } }

    /// The closure of a data source: returns `bytes` once the gate opens; throws
    /// `CancellationError` as soon as its task is cancelled.
    func load() async throws -> Data {
        state.withLock { $0.calls += 1 }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let proceed = state.withLock { state -> Bool? in
                    if Task.isCancelled { return nil }
                    if state.isOpen { return true }
                    state.waiting.append(continuation)
                    return false
                }
                switch proceed {
                case true?: continuation.resume()
                case nil: continuation.resume(throwing: CancellationError())
                case false?: break
                }
            }
        } onCancel: {
            let waiting = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
                state.cancelled += 1
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume(throwing: CancellationError()) }
        }
        return bytes
    }

    func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

/// Images that are not at a URL (`ImageRequest(id:data:)`): one call per identifier however many
/// requests wait, cancellation of the call's task, the memory and disk caches by identifier,
/// the queue's priorities, and a data source as a fallback.
@Suite("Data sources: images from an async closure")
struct ImageDataSourceTests {
    let imageData = TestImages.encode(width: 3, height: 2, fill: 9)

    func request(_ id: String, _ gate: DataSourceGate, priority: ImageRequest.Priority = .normal) -> ImageRequest {
        ImageRequest(source: .data(id: id, { try await gate.load() }), priority: priority)
    }

    @Test func tenIdenticalRequestsShareOneCall() async throws {
        let fixture = PipelineFixture()
        let gate = DataSourceGate(bytes: imageData)
        let tasks = (0..<10).map { _ in fixture.task(request("asset-1", gate)) }
        try await eventually { gate.calls == 1 }
        gate.open()
        for task in tasks {
            let response = try await task.response
            #expect(response.cacheType == .none)
            #expect(response.image.pixelWidth == 3)
            #expect(response.source.dataID == "asset-1")
            #expect(response.timings.attempts == 1)
        }
        #expect(gate.calls == 1)
        #expect(fixture.decoder.calls.current == 1)
        // The memory cache has it under the identifier.
        guard case .cached(let cached) = fixture.pipeline.loadImage(request("asset-1", gate)) else {
            Issue.record("expected a memory hit")
            return
        }
        #expect(cached.cacheType == .memory)
        #expect(gate.calls == 1)
        try await fixture.waitUntilIdle()
    }

    @Test func cancellingAllTenCancelsTheCallsTask() async throws {
        let fixture = PipelineFixture()
        let gate = DataSourceGate(bytes: imageData)
        let tasks = (0..<10).map { _ in fixture.task(request("asset-2", gate)) }
        try await eventually { gate.calls == 1 }
        for task in tasks.dropLast() { task.cancel() }
        await fixture.flushGraph()
        #expect(gate.cancelled == 0) // one request still wants it
        tasks.last!.cancel()
        try await eventually { gate.cancelled == 1 }
        for task in tasks { await #expect(throws: CancellationError.self) { try await task.response } }
        try await fixture.waitUntilIdle()
        // The slot is freed once the cancelled call has returned.
        try await eventually { fixture.pipeline.graph.networkQueue.runningCount == 0 }
    }

    @Test func otherIdentifiersAreOtherCalls() async throws {
        let fixture = PipelineFixture()
        let gate = DataSourceGate(bytes: imageData)
        gate.open()
        _ = try await fixture.pipeline.response(for: request("a", gate))
        let b = try await fixture.pipeline.response(for: request("b", gate))
        #expect(gate.calls == 2)
        #expect(b.cacheType == .none && b.request.cacheKey != request("a", gate).cacheKey)
        try await fixture.waitUntilIdle()
    }

    @Test func theDiskCacheKeepsTheBytesUnderTheIdentifier() async throws {
        let disk = InMemoryDataCache()
        let gate = DataSourceGate(bytes: imageData)
        gate.open()
        let first = PipelineFixture { $0.diskCache = disk }
        #expect(try await first.pipeline.response(for: request("stored", gate)).cacheType == .none)
        try await first.waitUntilIdle()
        // A new pipeline (an empty memory cache) over the same disk.
        let second = PipelineFixture { $0.diskCache = disk }
        let response = try await second.pipeline.response(for: request("stored", gate))
        #expect(response.cacheType == .disk)
        #expect(gate.calls == 1)
        try await second.waitUntilIdle()
    }

    @Test func aQueuedHighPriorityCallRunsBeforeEarlierLowOnes() async throws {
        let fixture = PipelineFixture { $0.maxConcurrentDownloads = 1 }
        let order = Locked<[String]>([])
        func recorded(_ id: String, priority: ImageRequest.Priority) -> ImageRequest {
            ImageRequest(source: .data(id: id, { [imageData] in
                order.withLock { $0.append(id) }
                return imageData
            }), priority: priority)
        }
        // The only slot is busy until "busy"'s gate opens; the others wait in the queue.
        let gate = DataSourceGate(bytes: imageData)
        let busy = fixture.task(request("busy", gate))
        try await eventually { gate.calls == 1 }
        let low = fixture.task(recorded("low", priority: .low))
        let high = fixture.task(recorded("high", priority: .high))
        try await eventually { fixture.pipeline.graph.networkQueue.pendingCount == 2 }
        gate.open()
        _ = try await [busy.response, low.response, high.response]
        #expect(order.current == ["high", "low"])
        try await fixture.waitUntilIdle()
    }

    struct VaultLocked: Error, Equatable {}

    @Test func theClosuresErrorFailsTheRequestAsThrown() async throws {
        let fixture = PipelineFixture()
        let request = ImageRequest(source: .data(id: "locked", { throw VaultLocked() }))
        await #expect(throws: VaultLocked.self) { try await fixture.pipeline.response(for: request) }
        try await fixture.waitUntilIdle()
    }

    @Test func aFailedURLFallsBackToADataSource() async throws {
        let fixture = PipelineFixture()
        let gate = DataSourceGate(bytes: imageData)
        gate.open()
        var request = ImageRequest(url: PipelineFixture.url("gone"))
        request.alternativeSources = [.data(id: "bundled") { try await gate.load() }]
        let task = fixture.task(request)
        try await fixture.loader.waitForPendingCount(1)
        try await fixture.loader.fail(PipelineFixture.url("gone"), with: ImagePipelineError.httpStatus(500))
        let response = try await task.response
        #expect(response.source.dataID == "bundled")
        #expect(response.cacheType == .none)
        // Not kept under the request's own key, where it would stand in for the URL's image.
        #expect(fixture.cache.image(forKey: request.cacheKey) == nil)
        try await fixture.waitUntilIdle()
    }
}
