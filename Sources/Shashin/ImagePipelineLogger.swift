import Foundation
#if canImport(os)
import os
#elseif canImport(Logging)
import Logging
#endif

/// An `ImagePipelineObserver` that writes every task's life to the platform's log: on Apple
/// platforms `os.Logger` messages and a signpost interval per task (Instruments shows each load
/// on a timeline); on Linux swift-log's `Logger`, which a server routes to its own backend.
///
/// Started, finished and retried loads are logged at `debug` (`info` for retries), failures at
/// `warning` (`error` for a disk cache that cannot be written), progress at `trace`; cancellation
/// is not a failure.
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.observer = ImagePipelineLogger()
/// ```
public struct ImagePipelineLogger: ImagePipelineObserver {
    #if canImport(os)
    private let logger: os.Logger
    private let signposter: OSSignposter
    private let intervals = SignpostIntervals()

    /// Logs under `subsystem` and `category` (default `shashin`, `ImagePipeline`).
    public init(subsystem: String = "shashin", category: String = "ImagePipeline") {
        logger = os.Logger(subsystem: subsystem, category: category)
        signposter = OSSignposter(subsystem: subsystem, category: category)
    }

    /// Begins the task's signpost interval.
    public func imageTaskCreated(_ task: ImageTask) {
        let state = signposter.beginInterval("ImageTask", id: signposter.makeSignpostID(), "\(task.request.description, privacy: .public)")
        intervals.begin(task.id, state)
    }

    /// Logs the event; ends the task's signpost interval with its last.
    public func imageTask(_ task: ImageTask, didReceive event: ImageTask.Event) {
        let line = PipelineLogLine(task: task, event: event)
        switch line.level {
        case .trace: logger.trace("\(line.message, privacy: .public)")
        case .debug: logger.debug("\(line.message, privacy: .public)")
        case .info: logger.info("\(line.message, privacy: .public)")
        case .warning: logger.warning("\(line.message, privacy: .public)")
        case .error: logger.error("\(line.message, privacy: .public)")
        }
        if case .finished = event, let state = intervals.end(task.id) {
            signposter.endInterval("ImageTask", state, "\(line.message, privacy: .public)")
        }
    }
    #elseif canImport(Logging)
    /// The logger the lines go to.
    public let logger: Logger

    /// Logs to `logger` (default one labelled `shashin.pipeline`, which follows the process's
    /// `LoggingSystem` bootstrap).
    public init(logger: Logger = Logger(label: "shashin.pipeline")) {
        self.logger = logger
    }

    /// Logs the event at its level, with the task's number as metadata.
    public func imageTask(_ task: ImageTask, didReceive event: ImageTask.Event) {
        let line = PipelineLogLine(task: task, event: event)
        let level: Logger.Level = switch line.level {
        case .trace: .trace
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
        logger.log(level: level, "\(line.message)", metadata: ["task": "\(task.id)"])
    }
    #endif
}

#if canImport(os)
/// The open signpost interval of each task, by task number: begun when the task is made, ended
/// with its last event (on the observer's task for it). An `@unchecked Sendable` class whose one
/// dictionary is only touched holding `lock`.
private final class SignpostIntervals: @unchecked Sendable { // `open` under `lock`
    private let lock = NSLock()
    private var open: [Int: OSSignpostIntervalState] = [:]

    func begin(_ id: Int, _ state: OSSignpostIntervalState) { lock.locked { open[id] = state } }
    func end(_ id: Int) -> OSSignpostIntervalState? { lock.locked { open.removeValue(forKey: id) } }
}
#endif

/// One task event as a log line: its level and words, the same on every platform.
struct PipelineLogLine {
    enum Level { case trace, debug, info, warning, error }

    let level: Level
    let message: String

    init(task: ImageTask, event: ImageTask.Event) {
        let name = "task \(task.id) \(task.request)"
        switch event {
        case .started:
            (level, message) = (.debug, "\(name): started")
        case .progress(let progress):
            (level, message) = (.trace, "\(name): \(progress.completed) of \(progress.total) bytes")
        case .retrying(let retry):
            (level, message) = (.info, "\(name): attempt \(retry.attempt) in \(String(format: "%.2f", retry.delay)) s after \(retry.reason)")
        case .preview:
            (level, message) = (.trace, "\(name): preview")
        case .diskCacheFailed(let error):
            (level, message) = (.error, "\(name): the disk cache failed: \(error)")
        case .finished(.success(let response)):
            let milliseconds = Int((response.timings.total * 1000).rounded())
            (level, message) = (.debug, "\(name): finished from \(response.cacheType.logName) in \(milliseconds) ms")
        case .finished(.failure(let error)) where error is CancellationError:
            (level, message) = (.debug, "\(name): cancelled")
        case .finished(.failure(let error)):
            (level, message) = (.warning, "\(name): failed: \(error)")
        }
    }
}

extension ImageResponse.CacheType {
    /// `its source`, `memory`, `disk`, `disk (revalidated)`.
    var logName: String {
        switch self {
        case .none: "its source"
        case .memory: "memory"
        case .disk: "disk"
        case .revalidated: "disk (revalidated)"
        }
    }
}
