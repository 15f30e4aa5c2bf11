import CImageKernels
import CVips
import ShashinCore

/// lcms transforms from embedded RGB profiles to libvips' sRGB profile, made as libvips'
/// `icc_transform` makes them (`shashin_icc_new`), kept for reuse.
///
/// Making one costs 1–4 ms on this kind of machine (lcms inverts the sRGB profile's 1024-entry
/// curves), as much as a fifth of a whole 256 px thumbnail; applying it to that thumbnail costs
/// about 0.3 ms. Photos from one camera or phone all carry the same profile, so the first photo
/// pays and the rest reuse its transform.
final class SRGBTransforms: Sendable {
    /// The transforms every decode shares.
    static let shared = SRGBTransforms(capacity: 8)

    /// How many profiles' transforms are kept: a few KB each for matrix-and-curves profiles
    /// (Display P3, Adobe RGB), at most a few hundred KB for table-based ones. When a new
    /// profile comes and all are taken, the one used longest ago goes (a decode still applying
    /// it keeps it alive until done).
    let capacity: Int

    /// Profile bytes and their transforms, the one used last at the end.
    private let kept = Locked<[(profile: [UInt8], transform: SRGBTransform)]>([])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// libvips' built-in sRGB profile, the destination libvips' own path transforms to; `nil`
    /// when libvips cannot start or has no such profile.
    private static let sRGBProfile: [UInt8]? = {
        guard (try? VipsRuntime.start()) != nil else { return nil }
        var data: UnsafeMutableRawPointer?
        var length = 0
        guard shashin_srgb_profile(&data, &length) == 0, let data else { return nil }
        defer { free(data) }
        return Array(UnsafeRawBufferPointer(start: data, count: length))
    }()

    /// The transform from `profile` (an RGB ICC profile) to sRGB; `nil` when lcms cannot read
    /// the profile, it does not describe RGB, or no transform can be built from it.
    func transform(for profile: UnsafeRawBufferPointer) -> SRGBTransform? {
        let key = [UInt8](profile)
        if let found = kept.withLock({ Self.take(key, from: &$0) }) { return found }
        // Made outside the lock: other decodes keep going meanwhile.
        guard let sRGBProfile = Self.sRGBProfile,
              let made = sRGBProfile.withUnsafeBytes({ sRGB in
                  shashin_icc_new(profile.baseAddress, profile.count, sRGB.baseAddress, sRGB.count)
              }) else { return nil }
        let transform = SRGBTransform(made)
        return kept.withLock { kept in
            if let other = Self.take(key, from: &kept) { return other }
            if kept.count >= capacity { kept.removeFirst(kept.count - capacity + 1) }
            kept.append((key, transform))
            return transform
        }
    }

    /// The transform kept for `profile`, moved to the end as the one used last.
    private static func take(_ profile: [UInt8], from kept: inout [(profile: [UInt8], transform: SRGBTransform)]) -> SRGBTransform? {
        guard let index = kept.firstIndex(where: { $0.profile == profile }) else { return nil }
        let entry = kept.remove(at: index)
        kept.append(entry)
        return entry.transform
    }
}

/// One lcms transform to sRGB, freed with its last reference.
final class SRGBTransform: @unchecked Sendable { // no lock needed: lcms never changes a transform after making it, and cmsFLAGS_NOCACHE makes applying it safe from many threads at once
    private let icc: OpaquePointer

    init(_ icc: OpaquePointer) {
        self.icc = icc
    }

    deinit {
        shashin_icc_free(icc)
    }

    /// Transforms `count` RGBA8 pixels at `rgba` in place; alpha is left as it is.
    func apply(to rgba: UnsafeMutablePointer<UInt8>, count: Int) {
        shashin_icc_apply(icc, rgba, count)
    }
}
