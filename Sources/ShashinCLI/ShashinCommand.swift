import ArgumentParser

/// `shashin`: the command-line tool.
@main
struct ShashinCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shashin",
        abstract: "Shashin's command-line tool.",
        subcommands: [DemoCommand.self, GalleryCommand.self, FetchCommand.self, HTTPCommand.self, CacheCommand.self,
                      ServeCommand.self, HostileCommand.self, GenerateCommand.self,
                      BenchDecodeCommand.self, BenchProcessCommand.self, BenchMemoryCommand.self, BenchDiskCommand.self,
                      BenchNetworkCommand.self, BenchProgressiveCommand.self,
                      CacheWriterCommand.self, SoakCommand.self]
    )
}
