import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Low data (`ImageRequest.lowDataImage`), decided per task when it starts, on `GraphActor`:
///
/// - With the configuration's `networkConstraint` on, the task shows the request's image when
///   it is in memory or the disk cache has it (however old: it costs no network), and otherwise
///   loads the low-data request (`ImageRequest.lowDataRequest`): the request's own source is
///   never asked over the network.
/// - Otherwise it loads its request sent so that the system may refuse it on a constrained
///   network (`refusingConstrainedNetwork`: Low Data Mode, Apple platforms), and when the
///   system does (`ImagePipelineError.networkConstrained`) it loads the low-data request.
///
/// The low-data request has a key of its own in every cache and its own download, so its image
/// never answers a request at full quality, and a full-quality download is never shared with it.
extension JobGraph {
    @GraphActor func startWithLowData(_ lowData: LowDataImage, for task: ImageTask) {
        let request = task.request
        guard configuration.networkConstraint.isConstrained else {
            load(request.refusingConstrainedNetwork(), for: task) { [self] error in
                guard error as? ImagePipelineError == .networkConstrained else { return false }
                load(request.lowDataRequest(lowData), for: task, lowData: lowData)
                return true
            }
            return
        }
        if request.readsMemoryCache, let image = configuration.memoryCache?.image(forKey: keys.imageKey(for: request)) {
            task.finish(.success(ImageResponse(image: image, request: request, cacheType: .memory)))
            return
        }
        guard let stored = request.fromDiskOnly, configuration.diskCache != nil else {
            return load(request.lowDataRequest(lowData), for: task, lowData: lowData)
        }
        // The request's image from the disk cache alone, however old (it costs no network), else the low-data one.
        load(stored, for: task) { [self] error in
            guard !(error is CancellationError) else { return false }
            load(request.lowDataRequest(lowData), for: task, lowData: lowData)
            return true
        }
    }
}
