import ArgumentParser
import Foundation
import ImageServer
import Shashin

/// `shashin demo`'s flaky network: the share of connections the server drops, and whether the
/// pipeline strategies retry.
struct FlakyNetworkOption: ParsableArguments {
    @Option(help: "Fraction of the server's requests whose connection drops, 0–1 (0.05: 5 %). Which ones is decided by --drop-seed, the request's path and how many times that path was asked for in the run, so runs with the same seed lose the same requests whatever order they come in.")
    var dropRate = 0.0

    @Option(help: "Seed choosing the dropped requests.")
    var dropSeed: UInt64 = 1

    @Option(help: "Where a dropped connection closes: mid-body (after the headers and part of the body), before-response, or both (each drop picks one by the seed).")
    var dropAt = "both"

    @Flag(inversion: .prefixedNo, help: "Pipeline strategies retry failed downloads with RetryPolicy's defaults (3 attempts, backoff of up to 0.5 s then 1 s, resuming from the bytes received). Off by default, as in ImagePipeline.Configuration.")
    var retry = false

    func validate() throws {
        guard (0...1).contains(dropRate) else { throw ValidationError("--drop-rate must be between 0 and 1.") }
        _ = try points()
    }

    private func points() throws -> [ConnectionDrops.Point] {
        if dropAt == "both" { return ConnectionDrops.Point.allCases }
        guard let point = ConnectionDrops.Point(rawValue: dropAt) else {
            throw ValidationError("--drop-at must be mid-body, before-response or both.")
        }
        return [point]
    }

    /// What the server drops; `nil` with a zero rate.
    var connectionDrops: ConnectionDrops? {
        guard dropRate > 0, let points = try? points() else { return nil }
        return ConnectionDrops(rate: dropRate, seed: dropSeed, points: points)
    }

    /// The pipeline strategies' retry policy: `nil` (no retry) unless `--retry`.
    var retryPolicy: RetryPolicy? {
        retry ? RetryPolicy() : nil
    }
}
