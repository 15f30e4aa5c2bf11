import Foundation
import ImageServer
import Shashin
import Testing

/// A feed's worth of images loaded at once from a server that drops 5 % of its connections
/// (`ConnectionDrops`, seeded): with a retry policy every image arrives, each after as many
/// attempts as the seed dropped; without one, exactly the rows whose first request was dropped
/// fail. The drops close mid-body, where no HTTP client resends a request on its own (a close
/// before the response on a reused connection may be resent by the client, which would make the
/// count depend on connection reuse).
@Suite("Over HTTP: a feed over a network that drops 5 % of connections")
struct LiveConnectionDropTests {
    static let rows = 120
    static let drops = ConnectionDrops(rate: 0.05, seed: 4, points: [.midBody])

    static func spec(_ row: Int) -> ImageSpec {
        ImageSpec(format: .jpeg, width: 64, height: 48, seed: UInt64(row))
    }

    /// How many requests for `row` in a row the seed drops, from the first: a load with
    /// retries takes one attempt more than that.
    static func leadingDrops(_ row: Int) -> Int {
        var ordinal = 1
        while drops.drop(path: spec(row).path, ordinal: ordinal) != nil { ordinal += 1 }
        return ordinal - 1
    }

    /// Loads every row at once through `fixture`'s pipeline; each row's result.
    static func loadFeed(_ fixture: LiveFixture) async -> [Int: Result<ImageResponse, any Error>] {
        let tasks = (0..<rows).map { fixture.task(ImageRequest(url: fixture.server.url(for: spec($0)))) }
        var results: [Int: Result<ImageResponse, any Error>] = [:]
        for (row, task) in tasks.enumerated() {
            do { results[row] = .success(try await task.response) } catch { results[row] = .failure(error) }
        }
        return results
    }

    @Test("with retries every image shows, after the attempts the seed asks for", arguments: LoaderFactory.all)
    func withRetriesEveryImageShows(loader: LoaderFactory) async throws {
        let leading = (0..<Self.rows).map(Self.leadingDrops)
        // The seed drops some first requests, and no row three times (the policy's attempts).
        try #require(leading.contains { $0 > 0 })
        try #require(leading.allSatisfy { $0 < 3 })
        let fixture = try await LiveFixture.start(loader) {
            $0.retryPolicy = RetryPolicy(maxAttempts: 3, random: { 0 }, clock: ManualRetryClock())
        }
        fixture.server.connectionDrops = Self.drops
        let results = await Self.loadFeed(fixture)
        for row in 0..<Self.rows {
            let response = try results[row]!.get()
            #expect(response.timings.attempts == leading[row] + 1, "row \(row)")
            #expect(response.image.testBitmap.width == 64, "row \(row)")
        }
        #expect(fixture.server.droppedRequests == leading.reduce(0, +))
        #expect(fixture.server.totalRequests == Self.rows + leading.reduce(0, +))
        // A retry continues from the bytes the dropped attempt received.
        var imageBytes = 0
        for row in 0..<Self.rows { imageBytes += try await fixture.server.generator.data(for: Self.spec(row)).count }
        try await waitFor { fixture.server.inFlight == 0 }
        #expect(Double(fixture.server.bytesSent) <= 1.05 * Double(imageBytes))
        try await fixture.finish()
    }

    @Test("without retries exactly the rows whose first request was dropped fail", arguments: LoaderFactory.all)
    func withoutRetriesTheDroppedRowsFail(loader: LoaderFactory) async throws {
        let dropped = Set((0..<Self.rows).filter { Self.drops.drop(path: Self.spec($0).path, ordinal: 1) != nil })
        try #require(!dropped.isEmpty)
        let fixture = try await LiveFixture.start(loader)
        fixture.server.connectionDrops = Self.drops
        let results = await Self.loadFeed(fixture)
        var failed = Set<Int>()
        for (row, result) in results {
            switch result {
            case .success(let response):
                #expect(response.timings.attempts == 1, "row \(row)")
            case .failure(let error):
                failed.insert(row)
                #expect(RetryPolicy.isTransient(error), "row \(row): \(error)")
            }
        }
        #expect(failed == dropped)
        #expect(fixture.server.droppedRequests == dropped.count)
        #expect(fixture.server.totalRequests == Self.rows)
        try await fixture.finish()
    }

    @Test("a connection closed before the response is a transient failure, retried", arguments: LoaderFactory.all)
    func closedBeforeTheResponseIsRetried(loader: LoaderFactory) async throws {
        // A path whose first request the seed drops and whose second it serves.
        let drops = ConnectionDrops(rate: 0.5, seed: 2, points: [.beforeResponse])
        let row = try #require((0..<Self.rows).first {
            drops.drop(path: Self.spec($0).path, ordinal: 1) != nil && drops.drop(path: Self.spec($0).path, ordinal: 2) == nil
        })
        // A fresh pipeline's first request goes over a new connection: the client cannot take
        // the close for a stale keep-alive connection and resend the request on its own.
        let plain = try await LiveFixture.start(loader)
        plain.server.connectionDrops = drops
        let error = await plain.error(of: plain.task(ImageRequest(url: plain.server.url(for: Self.spec(row)))))
        #expect(error.map { RetryPolicy.isTransient($0) } == true, "\(String(describing: error))")
        #expect(plain.server.droppedRequests == 1)
        try await plain.finish()

        let patient = try await LiveFixture.start(loader) {
            $0.retryPolicy = RetryPolicy(maxAttempts: 2, random: { 0 }, clock: ManualRetryClock())
        }
        patient.server.connectionDrops = drops
        let response = try await patient.task(ImageRequest(url: patient.server.url(for: Self.spec(row)))).response
        #expect(response.timings.attempts == 2)
        #expect(patient.server.droppedRequests == 1)
        try await patient.finish()
    }
}
