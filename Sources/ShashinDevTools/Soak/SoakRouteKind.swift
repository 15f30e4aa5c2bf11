import Foundation

/// How a soak URL behaves on the server: well, or with one kind of fault on a schedule.
///
/// Each URL of the catalog has one kind for the whole run, so outcomes can be counted per fault
/// type. The faulty kinds answer correctly on some requests (so good bytes reach the disk cache
/// and a later fault must not damage them) and fail on the others.
enum SoakRouteKind: String, CaseIterable, Codable, Sendable {
    /// 200 with the image, with validators; fresh for an hour, or revalidated on every use, or
    /// stale after a second.
    case healthy
    /// `500 Internal Server Error` on odd-numbered requests to the URL, the image otherwise.
    case status500
    /// The connection closes after half the body on odd-numbered requests.
    case dropMidBody
    /// A body one eighth shorter than its `Content-Length` on odd-numbered requests.
    case shortBody
    /// Headers, then silence for longer than the loader's timeout, on every third request.
    case stall
    /// The whole image, trickled at tens of kilobytes per second (a few hundred milliseconds per
    /// image, each byte well within the timeout), on every request.
    case trickle
    /// 200 with bytes that are no image (a JPEG signature then noise), cacheable for an hour.
    case invalidBytes
    /// `304 Not Modified` to every request, also to those that validate nothing.
    case notModified

    /// Whether a request to this URL may end with an image.
    var mayServeImage: Bool {
        self != .invalidBytes && self != .notModified
    }

    /// The fault a request to this URL suffers, given its 1-based ordinal among the server's
    /// requests for the URL; `nil` when it is answered well.
    func fault(forOrdinal ordinal: Int) -> SoakFault? {
        switch self {
        case .healthy: nil
        case .status500: ordinal % 2 == 1 ? .status500 : nil
        case .dropMidBody: ordinal % 2 == 1 ? .dropMidBody : nil
        case .shortBody: ordinal % 2 == 1 ? .shortBody : nil
        case .stall: ordinal % 3 == 1 ? .stall : nil
        case .trickle: .trickle
        case .invalidBytes: .invalidBytes
        case .notModified: .notModified
        }
    }
}

/// A fault the server injected into one response.
enum SoakFault: String, CaseIterable, Codable, Sendable {
    case status500
    case dropMidBody
    case shortBody
    case stall
    case trickle
    case invalidBytes
    case notModified
}
