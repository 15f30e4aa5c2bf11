import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import ShashinAsyncHTTPClient
import Testing

/// The network loaders every over-HTTP test runs against: `@Test(arguments: LoaderFactory.all)`.
enum LoaderFactory: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case asyncHTTPClient

    /// Every loader, for `arguments:`.
    static let all = allCases

    var testDescription: String { rawValue }

    /// A new loader of this kind, with its own session or client.
    func make() -> any DataLoading {
        switch self {
        case .urlSession: URLSessionDataLoader()
        case .asyncHTTPClient: AsyncHTTPClientDataLoader()
        }
    }
}

/// Shuts down `loader`'s own client if it has one (a URLSession needs nothing).
func shutDown(_ loader: any DataLoading) async throws {
    if let loader = loader as? AsyncHTTPClientDataLoader { try await loader.shutdown() }
}

/// A started ImageServer and a pipeline with a loader of its own, for one test.
struct LiveFixture {
    let server: ImageServer
    let pipeline: ImagePipeline
    let loader: any DataLoading
    /// The folder of the disk cache `startOnDisk` made, which `finish()` removes.
    var ownedFolder: URL?

    static func start(_ kind: LoaderFactory = .urlSession,
                      _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) async throws -> LiveFixture {
        let server = ImageServer()
        try await server.start()
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = kind.make()
        configure(&configuration)
        return LiveFixture(server: server, pipeline: ImagePipeline(configuration: configuration), loader: configuration.dataLoader)
    }

    /// `start` with a disk cache in a new temporary folder and no memory cache (unless `configure`
    /// sets one), so every load after the first reaches the disk; `finish()` removes the folder.
    static func startOnDisk(_ kind: LoaderFactory = .asyncHTTPClient,
                            _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) async throws -> (LiveFixture, DiskCache) {
        let folder = temporaryFolder()
        let disk = try DiskCache(configuration: .init(directory: folder))
        var fixture = try await start(kind) {
            $0.diskCache = disk
            $0.memoryCache = nil
            configure(&$0)
        }
        fixture.ownedFolder = folder
        return (fixture, disk)
    }

    /// Serves a generated image on `path`, slowed by `latency` so concurrent requests overlap, or
    /// held by `gate` (its body stops where the gate says until the test releases it).
    func serveImage(_ path: String, format: ImageFormat = .jpeg, width: Int = 64, height: Int = 48, seed: UInt64 = 1,
                    latency: Duration = .zero, bytesPerSecond: Int? = nil, gate: BodyGate? = nil) -> URL {
        var script = RouteScript.image(ImageSpec(format: format, width: width, height: height, seed: seed))
        script.latency = latency
        script.bytesPerSecond = bytesPerSecond
        script.bodyGate = gate
        server.setRoute(path, script)
        return server.url(path)
    }

    func task(_ request: ImageRequest) -> ImageTask {
        guard case .inProgress(let task) = pipeline.loadImage(request) else { fatalError("unexpected memory hit") }
        return task
    }

    func error(of task: ImageTask) async -> (any Error)? {
        do { _ = try await task.response; return nil } catch { return error }
    }

    /// Waits for the pipeline to go idle, then stops the server and the loader's client.
    func finish() async throws {
        try await waitFor { pipeline.activeTaskCount == 0 }
        await server.stop()
        try await shutDown(loader)
        if let ownedFolder { try? FileManager.default.removeItem(at: ownedFolder) }
    }
}

struct TimedOut: Error {}

/// Polls `condition` until it holds, failing after `timeout` seconds; for work on other threads.
/// The timeout bounds a wait for what must happen, and is no time the test asserts: it is far above
/// the delays of a sanitizer run sharing two cores, and a passing test never waits for it.
func waitFor(timeout: TimeInterval = 60, _ condition: () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        guard Date() < deadline else { throw TimedOut() }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
}

/// A new folder under the temporary directory, for a disk cache; the caller removes it.
func temporaryFolder() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("shashin-test-\(UUID().uuidString)", isDirectory: true)
}

/// Runs blocking `work` (processes, sleeps, fsync) on a dispatch thread and resumes with its
/// result, so it does not hold one of the few threads the Swift pool — and every in-process
/// server — runs on.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}

extension PlatformImage {
    /// The image's pixels, through the accessor every platform has; a test fails (traps) on an
    /// image without a bitmap, which the pipeline never delivers.
    var testBitmap: Bitmap { Bitmap(platformImage: self)! }
}
