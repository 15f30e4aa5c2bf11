import Foundation
import Testing
@testable import ShashinCore

/// One observer hears every task of a pipeline: made, then each event in the order the task has
/// them, ending with the result.
@Suite("Pipeline observer: every task's events in one place")
struct PipelineObserverTests {
    final class Recorder: ImagePipelineObserver, @unchecked Sendable { // `lines` behind its lock
        let lines = Locked<[String]>([])
        func imageTaskCreated(_ task: ImageTask) { lines.withLock { $0.append("\(task.id) created") } }
        func imageTask(_ task: ImageTask, didReceive event: ImageTask.Event) {
            let name = switch event {
            case .started: "started"
            case .progress(let progress): "progress \(progress.completed)/\(progress.total)"
            case .retrying: "retrying"
            case .preview: "preview"
            case .diskCacheFailed: "disk failed"
            case .finished(.success(let response)): "finished \(response.cacheType)"
            case .finished(.failure(let error)): "failed \(error)"
            }
            lines.withLock { $0.append("\(task.id) \(name)") }
        }
    }

    @Test func everyTaskIsObservedFromItsMakingToItsEnd() async throws {
        let recorder = Recorder()
        let fixture = PipelineFixture { $0.observer = recorder }
        let ok = fixture.task(PipelineFixture.request("ok"))
        let missing = fixture.task(PipelineFixture.request("missing"))
        try await fixture.loader.reportProgress(to: ok.request.url!, completed: 5, total: 10)
        try await fixture.loader.respond(to: ok.request.url!, with: PipelineFixture.imageData(fill: 1))
        try await fixture.loader.respond(to: missing.request.url!, with: Data(), status: 404)
        _ = try await ok.response
        _ = try? await missing.response
        try await eventually { recorder.lines.current.filter { $0.contains("finished") || $0.contains("failed") }.count == 2 }
        func events(of task: ImageTask) -> [String] {
            recorder.lines.current.filter { $0.hasPrefix("\(task.id) ") }.map { String($0.dropFirst("\(task.id) ".count)) }
        }
        let okEvents = events(of: ok), missingEvents = events(of: missing)
        // Progress reports that come close together reach a task as the latest one: at least one.
        #expect(Array(okEvents.prefix(2)) == ["created", "started"] && okEvents.count >= 4)
        #expect(okEvents.last == "finished none" && okEvents.dropFirst(2).dropLast().allSatisfy { $0.hasPrefix("progress") })
        #expect(Array(missingEvents.prefix(2)) == ["created", "started"])
        #expect(missingEvents.last == "failed HTTP status 404 (Not Found)")
        try await fixture.waitUntilIdle()
    }
}
