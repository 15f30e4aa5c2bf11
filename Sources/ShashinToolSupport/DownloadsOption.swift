import ArgumentParser

/// `--max-concurrent-downloads`: the pipeline's `maxConcurrentDownloads` in the commands that load
/// many images at once.
package struct DownloadsOption: ParsableArguments {
    @Option(help: "Downloads at once in the pipeline.")
    package var maxConcurrentDownloads = 6

    package init() {}

    package func validate() throws {
        guard maxConcurrentDownloads >= 1 else { throw ValidationError("--max-concurrent-downloads must be at least 1") }
    }
}
