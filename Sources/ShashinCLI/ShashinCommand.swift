import ArgumentParser

/// `shashin`: the command-line tool. The benchmark commands are `shashin-bench`'s, the developer
/// tools (soak, cache writer, gallery, hostile origin) `shashin-dev`'s.
@main
struct ShashinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shashin",
        abstract: "Shashin's command-line tool.",
        subcommands: [DemoCommand.self, FetchCommand.self, HTTPCommand.self, CacheCommand.self,
                      ServeCommand.self, GenerateCommand.self]
    )
}
