import Foundation
import ShashinCore
import Shashin

/// Paints and encodes the images ``ImageSpec``s describe, once each: the bytes are kept in memory
/// and concurrent requests for the same spec share one encoding.
///
/// Every ``ImageServer`` uses ``shared`` unless given another, so servers started one after the
/// other in a test run (or a benchmark) never encode the same image twice. Memory is not bounded:
/// a 300-image ``Gallery`` holds roughly 80 MB. Given a `directory`, encoded images are also
/// kept on disk, so the next process (the next demo run) skips encoding altogether.
///
/// ```swift
/// let bytes = try await ImageGenerator.shared.data(for: ImageSpec(format: .png, width: 64, height: 64, seed: 1))
/// ```
public final class ImageGenerator: Sendable {
    /// The process-wide generator, encoding with `PlatformImageEncoder` at quality 0.85.
    public static let shared = ImageGenerator()

    private let encoder: any ImageEncoding
    private let quality: Double
    private let directory: URL?
    /// Finished and in-progress encodings by spec.
    private let entries = Locked<[ImageSpec: Task<Data, any Error>]>([:])

    /// Creates a generator with its own cache.
    /// - Parameters:
    ///   - encoder: Encodes the painted bitmaps. Default: the platform's encoder.
    ///   - quality: Passed to the encoder for lossy formats. Default 0.85.
    ///   - directory: Where encoded images are also written, and read back by later processes
    ///     instead of encoding again; created when missing. Files are named after the spec and
    ///     quality, not the encoder: empty the directory when the encoder changes. `nil`
    ///     (default): memory only.
    public init(encoder: any ImageEncoding = PlatformImageEncoder(), quality: Double = 0.85, directory: URL? = nil) {
        self.encoder = encoder
        self.quality = quality
        self.directory = directory
    }

    /// The encoded bytes of `spec`, painting and encoding them on first use.
    public func data(for spec: ImageSpec) async throws -> Data {
        let task = entries.withLock { entries in
            if let task = entries[spec] { return task }
            let task = Task { [encoder, quality, directory] in
                // Encoding is CPU work: on a dispatch thread, not the Swift pool the server answers on.
                try await withCheckedThrowingContinuation { continuation in
                    DispatchQueue.global(qos: .userInitiated).async {
                        continuation.resume(with: Result { try Self.load(spec, encoder: encoder, quality: quality, directory: directory) })
                    }
                }
            }
            entries[spec] = task
            return task
        }
        do {
            return try await task.value
        } catch {
            // A failed encoding is not cached: the next request tries again.
            entries.withLock { entries in
                if entries[spec] == task { entries[spec] = nil }
            }
            throw error
        }
    }

    /// Generates every spec not yet cached, `maxConcurrency` at a time, so a benchmark or demo can
    /// pay for encoding before it starts measuring.
    /// - Parameter maxConcurrency: How many images to encode at once. Default: the number of cores.
    public func pregenerate(_ specs: some Sequence<ImageSpec>,
                            maxConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount) async throws {
        // Largest first, so the slow encodings do not end up alone at the tail.
        let unique = Set(specs).sorted { $0.width * $0.height > $1.width * $1.height }
        let width = max(1, maxConcurrency)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, spec) in unique.enumerated() {
                if index >= width { try await group.next() }
                group.addTask { _ = try await self.data(for: spec) }
            }
            try await group.waitForAll()
        }
    }

    private static func load(_ spec: ImageSpec, encoder: any ImageEncoding, quality: Double, directory: URL?) throws -> Data {
        let file = directory?.appendingPathComponent(
            "\(spec.seed)-\(spec.width)x\(spec.height)\(spec.isProgressive ? ImageSpec.progressiveSuffix : "")"
                + "-q\(Int((quality * 100).rounded())).\(spec.fileExtension)")
        if let file, let data = try? Data(contentsOf: file), ImageFormat(sniffing: data) == spec.format {
            return data
        }
        var options = ImageEncodingOptions(format: spec.format, quality: quality)
        options.isProgressive = spec.isProgressive
        let data = try encoder.encode(spec.makeBitmap().platformImage, options: options)
        if let file, let directory {
            // Best effort: an unwritable directory only costs the next process an encoding.
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try? data.write(to: file, options: .atomic)
        }
        return data
    }

    /// Whether `spec` is held in memory or being encoded.
    public func isCached(_ spec: ImageSpec) -> Bool {
        entries.withLock { $0[spec] != nil }
    }

    /// Drops every cached image (in-progress encodings finish for those already waiting).
    public func removeAll() {
        entries.withLock { $0.removeAll() }
    }
}
