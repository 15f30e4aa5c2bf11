import Foundation

/// How a pipeline names an image in its cache keys when a request carries no `imageID`: a
/// function of the URL. Requests whose URLs it maps to one identifier share every cache entry —
/// memory, disk (original and processed), a download in flight and the bytes kept to resume one —
/// while each request still goes to its own URL.
///
/// The identifier is the app's promise that those URLs name one image: a rule that maps two
/// different images to one identifier shows one in place of the other. Responses to requests
/// with credentials (`Authorization`, or the pipeline's own) still answer only requests with the
/// same credentials.
///
/// ```swift
/// configuration.imageIDRule = .droppingQueryItems(["Signature", "Expires", "Key-Pair-Id"])
/// ```
public struct ImageIDRule: Sendable {
    let transform: @Sendable (URL) -> String?

    /// A rule from a function: the identifier for a URL, or `nil` to keep the URL as its name.
    public init(_ transform: @escaping @Sendable (URL) -> String?) {
        self.transform = transform
    }

    /// The identifier of `url`, or `nil` when the URL names the image itself.
    public func imageID(for url: URL) -> String? { transform(url) }

    /// Names each image by its URL without the query items called `names` (compared exactly, case
    /// sensitive), the others kept in order: CloudFront's `Signature`, `Expires` and `Key-Pair-Id`,
    /// S3's `X-Amz-*`. A URL that has none of them keeps its own name; the fragment is dropped.
    public static func droppingQueryItems(_ names: Set<String>) -> ImageIDRule {
        ImageIDRule { url in
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
                  let items = components.percentEncodedQueryItems,
                  items.contains(where: { names.contains($0.name) }) else { return nil }
            let kept = items.filter { !names.contains($0.name) }
            components.percentEncodedQueryItems = kept.isEmpty ? nil : kept
            components.fragment = nil
            return components.string
        }
    }

    /// Names each image by its URL without the query: for CDNs whose every query item is a signature.
    public static let droppingQuery = ImageIDRule { url in
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              components.percentEncodedQuery != nil else { return nil }
        components.percentEncodedQuery = nil
        components.fragment = nil
        return components.string
    }
}
