import ArgumentParser

/// `shashin-bench`: the benchmark commands the scripts in `scripts/bench-*.sh` and `make bench`
/// run; build it in release mode for meaningful numbers. BENCHMARKS.md holds the figures.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shashin-bench",
        abstract: "Shashin's benchmarks: decoding, processing, memory, the disk cache, the network loaders, progressive previews.",
        subcommands: [BenchDecodeCommand.self, BenchProcessCommand.self, BenchMemoryCommand.self, BenchDiskCommand.self,
                      BenchNetworkCommand.self, BenchProgressiveCommand.self, BenchAnimationCommand.self]
    )
}
