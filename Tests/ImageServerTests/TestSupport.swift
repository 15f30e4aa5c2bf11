import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
/// The pixel size of a decoded image on any platform.
func pixelSize(of image: PlatformImage) -> (width: Int, height: Int) {
    (image.pixelWidth, image.pixelHeight)
}

/// Runs `body` against a started server and always stops it, even when `body` throws.
func withServer<T>(_ server: ImageServer = ImageServer(), _ body: (ImageServer) async throws -> T) async throws -> T {
    try await server.start()
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}

/// A URLSession that never caches and allows enough connections for the concurrency tests; its
/// idle timeout is far above a starved sanitizer run's delays unless a test asks for a short one.
func makeSession(timeout: TimeInterval = 60) -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.httpMaximumConnectionsPerHost = 16
    configuration.timeoutIntervalForRequest = timeout
    return URLSession(configuration: configuration)
}

struct NotHTTP: Error {}

/// GETs `url` and returns the body and the HTTP response.
func fetch(_ url: URL, headers: [String: String] = [:], method: String = "GET",
           session: URLSession? = nil) async throws -> (Data, HTTPURLResponse) {
    var request = URLRequest(url: url)
    request.httpMethod = method
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let session = session ?? makeSession()
    let (data, response) = try await session.data(for: request)
    guard let http = response as? HTTPURLResponse else { throw NotHTTP() }
    return (data, http)
}

/// Seconds elapsed while `body` runs.
func measure<T>(_ body: () async throws -> T) async rethrows -> (T, Double) {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try await body()
    let elapsed = clock.now - start
    return (result, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

/// Waits (briefly polling) until `condition` holds or `timeout` passes; returns whether it held.
/// The timeout bounds a wait for what must happen, and is no time the test asserts: it is far above
/// the delays of a sanitizer run sharing two cores, and a passing test never waits for it.
func eventually(timeout: Duration = .seconds(60), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// A started server on free ports in 20000–32000 (HTTP, and HTTPS on the next port when `https`),
/// below the system's ephemeral range (32768–60999 here): while it is stopped, no socket bound to
/// port 0 and no outgoing connection, in this process or any other, can take its ports, so a
/// restart's bind meets only explicit binds of those numbers. The search starts at a random port,
/// so two test runs on one machine rarely meet.
func serverBelowEphemeralPorts(https: Bool = false) async throws -> ImageServer {
    let start = Int.random(in: 0..<12_000)
    for offset in 0..<12_000 {
        let port = 20_000 + (start + offset) % 12_000
        let server = ImageServer(port: port, httpsPort: https ? port + 1 : nil)
        do {
            try await server.start()
            return server
        } catch {
            continue
        }
    }
    throw CancellationError()
}
