import Foundation

/// The schemes a redirect of the current download may lead to: `http` and `https`, less any the
/// pipeline's `allowedSchemes` leaves out.
///
/// A pipeline whose `allowedSchemes` lacks `http` or `https` binds its set around each download;
/// a loader reads ``current`` on the way into `loadData` / `loadResponse` and refuses a redirect
/// to any other scheme with `unsupportedScheme`, before following it. A redirect never leads to a
/// scheme outside `http` and `https`, whatever the configuration allows for a request itself
/// (`file:` and `data:` are read only when the request names them). Both built-in loaders check.
///
/// ```swift
/// let allowed = RedirectSchemes.current        // read in the calling task
/// guard allowed.contains(location.scheme) else { throw ImagePipelineError.unsupportedScheme(scheme) }
/// ```
public enum RedirectSchemes {
    /// `http` and `https`: what a redirect may lead to when the pipeline allows both.
    public static let web: Set<String> = ["http", "https"]

    /// The pipeline's `allowedSchemes`, bound around a download when it lacks `http` or `https`.
    @TaskLocal static var allowed: Set<String>?

    /// The schemes, lowercased, a redirect of the calling task's download may lead to.
    public static var current: Set<String> { allowed.map { web.intersection($0) } ?? web }

    /// What a pipeline allowing `allowedSchemes` binds around its downloads: the set itself when
    /// it narrows ``web``, else nothing (`nil`). A pipeline decides it once.
    static func restriction(for allowedSchemes: Set<String>) -> Set<String>? {
        allowedSchemes.isSuperset(of: web) ? nil : allowedSchemes
    }

    /// Runs `download` with `restriction` (from `restriction(for:)`) bound, or as it is when `nil`.
    static func download<T>(restrictedTo restriction: Set<String>?, _ download: () async throws -> T) async throws -> T {
        guard let restriction else { return try await download() }
        return try await $allowed.withValue(restriction) { try await download() }
    }
}
