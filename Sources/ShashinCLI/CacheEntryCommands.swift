import ArgumentParser
import Foundation
import Shashin

/// The entry a `shashin cache show|remove|export` argument names: a key exactly as `shashin cache
/// list` prints it, else an `http(s)` URL, else an image identifier (what `shashin fetch
/// --cache-key` stored the image under).
struct CacheEntryArgument: ParsableArguments {
    @Argument(help: "A key as 'shashin cache list' prints it, an image URL, or an image identifier (fetch --cache-key).")
    var entry: String

    /// The image request the argument stands for, when it is a URL or an identifier.
    var request: ImageRequest {
        if let url = URL(string: entry), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" {
            return ImageRequest(url: url)
        }
        var request = ImageRequest(url: nil)
        request.imageID = entry
        return request
    }

    /// The stored key of the original, and the pipeline that reads it: the argument itself when
    /// the cache holds that key, else the key the pipeline files the URL or identifier under.
    func resolve(in cache: DiskCache) -> (key: String, pipeline: ImagePipeline) {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = cache
        let pipeline = ImagePipeline(configuration: configuration)
        if cache.containsEntry(forKey: entry) { return (entry, pipeline) }
        return (pipeline.diskCacheKey(for: request) ?? entry, pipeline)
    }
}

struct CacheShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "One entry: its key, size, times and stored response.")
    @OptionGroup var folder: CacheFolderOption
    @OptionGroup var argument: CacheEntryArgument

    func run() async throws {
        let cache = try folder.open()
        let (key, _) = argument.resolve(in: cache)
        guard let info = try cache.entries().first(where: { $0.key == key }), let entry = try cache.entry(forKey: key) else {
            FileHandle.standardError.write(Data("error: no entry for \(argument.entry) (key \(key))\n".utf8))
            throw ExitCode(1)
        }
        let formatter = ISO8601DateFormatter()
        print("key: \(key)")
        print("size: \(info.size) bytes, \(info.storage == .inline ? "inline in the index" : "in a file")")
        print("stored: \(formatter.string(from: info.storedAt)), last used: \(formatter.string(from: info.lastAccess))")
        if let format = ImageFormat(sniffing: entry.data) { print("format: \(format)") }
        if let metadata = entry.metadata, let stored = HTTPCache.storedResponse(from: metadata) {
            print("status: \(stored.status)")
            for field in stored.headers.fields { print("  \(field.name): \(field.value)") }
        }
    }
}

struct CacheRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove one image: for a URL or identifier, its original, processed variants and kept partial bytes; for a listed key, that entry.")
    @OptionGroup var folder: CacheFolderOption
    @OptionGroup var argument: CacheEntryArgument

    func run() async throws {
        let cache = try folder.open()
        let before = cache.count
        let (_, pipeline) = argument.resolve(in: cache)
        // A URL goes with all its variants; a key as listed goes alone; an identifier, all its variants.
        if argument.request.imageID != nil, cache.containsEntry(forKey: argument.entry) {
            try cache.removeEntry(forKey: argument.entry)
        } else {
            try await pipeline.removeCachedImage(for: argument.request)
        }
        let removed = before - cache.count
        print("removed \(removed) \(removed == 1 ? "entry" : "entries") for \(argument.entry)")
        if removed == 0 { throw ExitCode(1) }
    }
}

struct CacheExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Write one entry's stored bytes to a file.")
    @OptionGroup var folder: CacheFolderOption
    @OptionGroup var argument: CacheEntryArgument
    @Option(name: .shortAndLong, help: "The file to write.")
    var output: String

    func run() async throws {
        let cache = try folder.open()
        let (key, _) = argument.resolve(in: cache)
        guard let entry = try cache.entry(forKey: key) else {
            FileHandle.standardError.write(Data("error: no entry for \(argument.entry) (key \(key))\n".utf8))
            throw ExitCode(1)
        }
        try entry.data.write(to: URL(fileURLWithPath: output))
        print("wrote \(output) (\(entry.data.count) bytes of \(key))")
    }
}
