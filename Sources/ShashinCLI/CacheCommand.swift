import ArgumentParser
import Foundation
import Shashin

/// `shashin cache stats|list|show|remove|export|clear`: look into a disk cache folder, one entry, or empty it.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect or clear a Shashin disk cache.",
        subcommands: [CacheStatsCommand.self, CacheListCommand.self, CacheShowCommand.self, CacheRemoveCommand.self,
                      CacheExportCommand.self, CacheClearCommand.self]
    )
}

/// The `--dir` option of the commands that use a disk cache.
struct CacheFolderOption: ParsableArguments {
    @Option(name: [.customLong("dir"), .customLong("cache-dir")],
            help: "The cache folder (default: \(CacheFolderOption.defaultFolder.path)).")
    var dir: String?

    /// The folder `ImagePipeline.shared`, the demo and `shashin http get` use unless told otherwise.
    static var defaultFolder: URL { DiskCache.Configuration(name: ImagePipeline.defaultDiskCacheName).directory }

    func open() throws -> DiskCache {
        try DiskCache(configuration: .init(directory: dir.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? Self.defaultFolder))
    }
}

struct CacheStatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Entries, bytes and limits.")
    @OptionGroup var folder: CacheFolderOption

    func run() async throws {
        let cache = try folder.open()
        let entries = try cache.entries()
        let inline = entries.filter { $0.storage == .inline }.count
        print("folder: \(cache.directory.path)")
        print("entries: \(cache.count) (\(inline) inline in the index, \(entries.count - inline) in files)")
        print("size: \(Self.megabytes(cache.totalSize)) of \(Self.megabytes(cache.configuration.sizeLimit)) limit")
        if let oldest = entries.map(\.storedAt).min(), let latest = entries.map(\.lastAccess).max() {
            print("oldest stored: \(oldest), last used: \(latest)")
        }
        if let recovery = cache.recovery { print("recovered on open: \(recovery)") }
    }

    static func megabytes(_ bytes: Int) -> String { String(format: "%.2f MB", Double(bytes) / 1_048_576) }
}

struct CacheListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Entries, most recently used first.")
    @OptionGroup var folder: CacheFolderOption
    @Option(help: "Show at most this many entries.")
    var limit = 50

    func run() async throws {
        let entries = try folder.open().entries().sorted { $0.lastAccess > $1.lastAccess }
        let formatter = ISO8601DateFormatter()
        for entry in entries.prefix(limit) {
            let place = entry.storage == .inline ? "inline" : "file"
            print("\(String(entry.size).padding(toLength: 9, withPad: " ", startingAt: 0)) \(place.padding(toLength: 6, withPad: " ", startingAt: 0)) "
                  + "\(formatter.string(from: entry.lastAccess))  \(entry.key)")
        }
        if entries.count > limit { print("… \(entries.count - limit) more") }
    }
}

struct CacheClearCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove every entry.")
    @OptionGroup var folder: CacheFolderOption

    func run() async throws {
        let cache = try folder.open()
        let (count, size) = (cache.count, cache.totalSize)
        try cache.removeAll()
        print("removed \(count) \(count == 1 ? "entry" : "entries") (\(CacheStatsCommand.megabytes(size))) from \(cache.directory.path)")
    }
}
