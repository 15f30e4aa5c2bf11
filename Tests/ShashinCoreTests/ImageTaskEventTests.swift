import Foundation
import Testing
@testable import ShashinCore

@Suite("Task events and progress")
struct ImageTaskEventTests {
    let url = PipelineFixture.url("a")

    @Test func eventsReportStartProgressAndTheFinishWithSourceAndTimings() async throws {
        let fixture = PipelineFixture()
        let task = fixture.task(ImageRequest(url: url))
        let collector = Task { () -> [ImageTask.Event] in
            var events: [ImageTask.Event] = []
            for await event in task.events { events.append(event) }
            return events
        }
        let data = TestImages.encode(width: 2, height: 2, fill: 1)
        try await fixture.loader.respond(to: url, with: data)
        let events = await collector.value
        guard case .started = events.first, case .finished(.success(let response)) = events.last else {
            Issue.record("unexpected events \(events)")
            return
        }
        #expect(response.cacheType == .none)
        #expect(response.timings.total >= response.timings.decode)
        let progress = events.compactMap { if case .progress(let p) = $0 { p } else { nil } }
        #expect(progress.last == ImageTask.Progress(completed: Int64(data.count / 2), total: Int64(data.count)))
        try await fixture.waitUntilIdle()
    }

    /// `data(for:)` asks for no progress, so its download sends none across to the graph's queue;
    /// an image task that joins that download asks for it and gets it.
    @Test func anImageTaskJoiningADataLoadGetsTheDownloadsProgress() async throws {
        let fixture = PipelineFixture()
        let graph = fixture.pipeline.graph
        let request = ImageRequest(url: url)
        let dataLoad = Task { try await fixture.pipeline.data(for: request) }
        try await fixture.loader.waitForPendingCount(1)
        #expect(GraphActor.sync { graph.fetchJob(for: request).wantsProgress } == false)
        let task = fixture.task(request)
        await fixture.flushGraph()
        #expect(GraphActor.sync { graph.fetchJob(for: request).wantsProgress } == true)
        let collector = Task { () -> [ImageTask.Progress] in
            var progress: [ImageTask.Progress] = []
            for await value in task.progress { progress.append(value) }
            return progress
        }
        let data = TestImages.encode(width: 2, height: 2, fill: 1)
        try await fixture.loader.respond(to: url, with: data)
        #expect(try await dataLoad.value.0 == data)
        _ = try await task.response
        #expect(await collector.value == [ImageTask.Progress(completed: Int64(data.count / 2), total: Int64(data.count))])
        #expect(fixture.loader.startCount == 1)
        try await fixture.waitUntilIdle()
    }

    @Test func aStreamOpenedAfterTheEndReplaysTheEnd() async throws {
        let fixture = PipelineFixture()
        let task = fixture.task(ImageRequest(url: url))
        try await fixture.loader.respond(to: url, with: TestImages.encode(width: 1, height: 1, fill: 1))
        _ = try await task.response
        var last: ImageTask.Event?
        for await event in task.events { last = event }
        guard case .finished(.success)? = last else { Issue.record("no finish replayed"); return }
        var progressCount = 0
        for await _ in task.progress { progressCount += 1 }
        #expect(progressCount == 1)
    }

    /// A stream opened on one thread while the graph reports progress and the end on another sees
    /// the same story as any other: `started` first, progress never going back, `finished` last.
    @Test func aStreamOpenedWhileTheTaskMovesOnStillSeesItsEventsInOrder() async throws {
        let fixture = PipelineFixture()
        let graph = fixture.pipeline.graph
        var misordered: [[String]] = []
        for _ in 0..<20_000 {
            graph.taskDidStart() // balanced by the task's finish
            let task = ImageTask(id: 0, request: ImageRequest(url: url), graph: graph)
            task.didStart()
            task.didProgress(ImageTask.Progress(completed: 1, total: 3))
            let opened = Locked<AsyncStream<ImageTask.Event>?>(nil)
            DispatchQueue.concurrentPerform(iterations: 2) { side in
                if side == 0 {
                    let events = task.events
                    opened.withLock { $0 = events }
                } else {
                    task.didProgress(ImageTask.Progress(completed: 2, total: 3))
                    task.finish(.failure(CancellationError()))
                }
            }
            var story: [String] = []
            for await event in opened.current! {
                switch event {
                case .started: story.append("started")
                case .progress(let progress): story.append("progress \(progress.completed)")
                case .diskCacheFailed: story.append("diskCacheFailed")
                case .retrying: story.append("retrying")
                case .preview: story.append("preview")
                case .finished: story.append("finished")
                }
            }
            let progress = story.filter { $0.hasPrefix("progress") }
            if story.first != "started" || story.last != "finished" || progress != progress.sorted() {
                misordered.append(story)
            }
        }
        #expect(misordered.isEmpty)
        #expect(fixture.pipeline.activeTaskCount == 0)
    }

    @Test func aCancelledTaskFinishesItsEventsWithCancellation() async throws {
        let fixture = PipelineFixture()
        let task = fixture.task(ImageRequest(url: url))
        try await fixture.loader.waitForPendingCount(1)
        task.cancel()
        var last: ImageTask.Event?
        for await event in task.events { last = event }
        guard case .finished(.failure(let error))? = last else { Issue.record("no finish"); return }
        #expect(error is CancellationError)
        try await fixture.waitUntilIdle()
    }
}
