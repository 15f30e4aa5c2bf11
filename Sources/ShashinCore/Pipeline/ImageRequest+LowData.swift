import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The two requests a task with a `lowDataImage` may load (`JobGraph+LowData`): its own, sent
/// so that the system may refuse it on a constrained network, and the low-data one.
extension ImageRequest {
    /// The request that loads `lowData` in this request's place: its source as the primary, with
    /// no alternatives and no `imageID` (the low-data image is named by its own source), decoded
    /// at the low-data thumbnail, else this request's, then this request's processors, priority,
    /// options (its cache policy among them), animation delivery and retry
    /// policy. Its `cacheKey` is therefore never this request's,
    /// unless the app names one source twice with one size.
    func lowDataRequest(_ lowData: LowDataImage) -> ImageRequest {
        var request = ImageRequest(source: lowData.source, thumbnail: lowData.thumbnail ?? thumbnail, processors: processors,
                                   priority: priority)
        request.options = options
        request.isProgressiveDecodingEnabled = isProgressiveDecodingEnabled
        request.httpCacheOptions = httpCacheOptions
        request.retryPolicy = retryPolicy
        request.animationDelivery = animationDelivery
        return request
    }

    /// This request answered from the disk cache alone, with any stored response however old
    /// (`returnCacheDataDontLoad`) and without its alternative sources; `nil` when the request
    /// does not read the disk cache (its options or a reload policy say so).
    var fromDiskOnly: ImageRequest? {
        guard !options.contains(.disableDiskCacheReads), cachePolicy != .reloadIgnoringCacheData,
              cachePolicy != .reloadRevalidatingCacheData else { return nil }
        var request = self
        request.options.subtract(.cachePolicies)
        request.options.insert(.returnCacheDataDontLoad)
        request.alternativeSources = []
        return request
    }

    /// This request with its URL sources sent so that the system refuses them on a constrained
    /// network (`allowsConstrainedNetworkAccess` off; the refusal is
    /// `ImagePipelineError.networkConstrained`). Only Apple's URLSession knows the switch: on
    /// other systems the request is returned as it is.
    func refusingConstrainedNetwork() -> ImageRequest {
#if canImport(FoundationNetworking)
        return self
#else
        var request = self
        request.urlRequest.allowsConstrainedNetworkAccess = false
        request.alternativeSources = alternativeSources.map { source in
            guard case .url(var urlRequest) = source.kind else { return source }
            urlRequest.allowsConstrainedNetworkAccess = false
            return ImageSource(kind: .url(urlRequest))
        }
        return request
#endif
    }
}

extension URLRequest {
    /// Whether the system may refuse this request on a constrained network (Low Data Mode):
    /// `allowsConstrainedNetworkAccess` off, on Apple platforms; never elsewhere.
    var refusesConstrainedNetwork: Bool {
#if canImport(FoundationNetworking)
        false
#else
        !allowsConstrainedNetworkAccess
#endif
    }
}

extension URLError {
    /// Whether the system refused the request because the network is constrained (Low Data
    /// Mode, iOS 13 / macOS 10.15 and later); never on systems without the notion.
    var isConstrainedNetworkRefusal: Bool {
#if canImport(FoundationNetworking)
        false
#else
        networkUnavailableReason == .constrained
#endif
    }
}
