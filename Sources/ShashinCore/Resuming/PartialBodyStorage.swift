import Foundation

/// The pipeline's kept partial bodies: the configuration's `ResumableDataStore` in memory, and
/// the disk cache when there is one. On disk a partial body sits under a key of its own
/// ("partial " and the URL, which no full response's key can equal) with metadata that says
/// what it is, so the HTTP cache never reads one as a response, and a torn or foreign entry
/// reads as nothing. A request's disk switches narrow it (`for(_:)`): with
/// `.disableDiskCacheReads` no kept body is read from disk, with `.disableDiskCacheWrites`
/// none is written or removed there; memory serves either way.
struct PartialBodyStorage: Sendable {
    let memory: ResumableDataStore
    let disk: (any DataCaching)?
    var readsDisk = true
    var writesDisk = true

    init(memory: ResumableDataStore, disk: (any DataCaching)?) {
        self.memory = memory
        self.disk = disk
    }

    /// This storage as `options` allow it to use the disk.
    func `for`(_ options: ImageRequest.Options) -> PartialBodyStorage {
        var narrowed = self
        narrowed.readsDisk = !options.contains(.disableDiskCacheReads)
        narrowed.writesDisk = !options.contains(.disableDiskCacheWrites)
        return narrowed
    }

    /// What is written beside the bytes on disk.
    private struct Metadata: Codable {
        var kind = "partial-body"
        var validator: String
        var totalLength: Int
    }

    static func diskKey(for key: String) -> String { "partial " + key }

    /// The kept bytes for `key`: from memory, else from disk (which then fills memory).
    func value(forKey key: String) async -> ResumableData? {
        if let kept = memory.value(forKey: key) { return kept }
        guard let disk, readsDisk else { return nil }
        let found = await offThePool { () -> ResumableData? in
            guard disk.containsEntry(forKey: Self.diskKey(for: key)),
                  let entry = try? disk.entry(forKey: Self.diskKey(for: key)),
                  let bytes = entry.metadata, let metadata = try? JSONDecoder().decode(Metadata.self, from: bytes),
                  metadata.kind == "partial-body" else { return nil }
            return ResumableData(data: entry.data, validator: metadata.validator, totalLength: metadata.totalLength)
        }
        if let found { memory.store(found, forKey: key) }
        return found
    }

    /// Keeps `value` for `key` in memory and on disk; a disk that fails only loses the resume.
    func store(_ value: ResumableData, forKey key: String) async {
        memory.store(value, forKey: key)
        guard let disk, writesDisk else { return }
        let metadata = (try? JSONEncoder().encode(Metadata(validator: value.validator, totalLength: value.totalLength))) ?? Data()
        await offThePool { try? disk.store(value.data, metadata: metadata, forKey: Self.diskKey(for: key)) }
    }

    /// Forgets what is kept for `key`, everywhere.
    func removeValue(forKey key: String) async {
        memory.removeValue(forKey: key)
        guard let disk, writesDisk else { return }
        await offThePool { try? disk.removeEntry(forKey: Self.diskKey(for: key)) }
    }
}
