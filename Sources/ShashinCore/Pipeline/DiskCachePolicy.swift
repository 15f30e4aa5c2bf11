/// What a pipeline's disk cache keeps.
public enum DiskCachePolicy: String, Sendable, Hashable, CaseIterable {
    /// The original bytes, under HTTP's rules: a thumbnail or processed variant is recomputed from
    /// them. The default: one download serves every size.
    case originals
    /// Only processed results (requests with a thumbnail or processors), encoded; the original
    /// bytes are not kept, and HTTP caching is off. Smallest disk use for a fixed set of sizes.
    case processed
    /// Both: processed results for the fastest repeat, originals for new sizes and revalidation.
    case all

    var storesOriginals: Bool { self != .processed }
    var storesProcessed: Bool { self != .originals }
}
