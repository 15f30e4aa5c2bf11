/// What the display layer asks the pipeline while a list flies: whether a load would be a cheap
/// disk read, and whether decoding is busy.
extension ImagePipeline {
    /// Whether the original bytes of `request` are in the disk cache (HTTP caching of originals);
    /// `false` without one. Does not read the bytes.
    func hasOriginalOnDisk(_ request: ImageRequest) -> Bool {
        guard graph.httpCache != nil, let disk = configuration.diskCache,
              let key = graph.keys.storedKey(for: request) else { return false }
        return disk.containsEntry(forKey: key)
    }

    /// Whether nothing waits for or runs on the decode queue.
    var isDecodeIdle: Bool {
        graph.decodeQueue.runningCount == 0 && graph.decodeQueue.pendingCount == 0
    }
}
