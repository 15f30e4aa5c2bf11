import ArgumentParser

/// `shashin-dev`: the developer tools — the soak under faults, the disk cache writer the crash
/// tests kill, the two-pass gallery load, the hostile origin `scripts/probe-hostile.sh` probes.
@main
struct DevToolsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shashin-dev",
        abstract: "Shashin's developer tools: soak, cache-writer, gallery, hostile.",
        subcommands: [SoakCommand.self, CacheWriterCommand.self, GalleryCommand.self, HostileCommand.self]
    )
}
