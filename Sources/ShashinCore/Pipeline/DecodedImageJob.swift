import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stage 0: the request's image decoded from the fetched bytes, at the thumbnail size; and while
/// the bytes arrive, previews decoded from the scans received so far.
final class DecodedImageJob: ImageJob {
    /// When the last preview was started, for the configuration's interval.
    private var lastPreviewAt = -Double.infinity
    /// Bytes decoded by previews so far, and the body's announced size (0: unknown), for the
    /// configuration's budget.
    private var previewBytes = 0
    private var expectedBytes: Int64 = 0
    /// The decoder's session for this download's previews, once the first preview asked for one:
    /// it holds the decoder's state between previews, and may make the final image. Closed when
    /// the final decode ends or the job is cancelled.
    private var previewSession: (any ProgressiveDecodingSession)?
    private var askedForPreviewSession = false

    override func subscribeUpstream() {
        upstream = graph.fetchJob(for: request, key: fetchKey).subscribe(priority: priority, wantsPreviews: wantsPreviews) { [weak self] event in
            switch event {
            case .progress(let progress):
                self?.expectedBytes = progress.total
                self?.send(progress: progress)
            case .retrying(let retry): self?.send(retry: retry)
            case .preview(let partial): self?.decodePreview(partial)
            case .value(let fetched): self?.decode(fetched)
            case .failure(let error):
                self?.closePreviewSession()
                self?.finish(.failure(error))
            }
        }
    }

    override func didCancel() {
        super.didCancel()
        closePreviewSession()
    }

    private func decode(_ fetched: FetchedData) {
        let decoder = graph.configuration.decoders
        let context = ImageDecodingContext(format: ImageFormat(sniffing: fetched.data), thumbnail: request.thumbnail,
                                           maxPixelCount: graph.configuration.maxPixelCount,
                                           memoryBudget: graph.configuration.decodeMemoryBudget,
                                           maxAnimationByteCount: graph.configuration.maxAnimationByteCount,
                                           animationDelivery: request.animationDelivery ?? graph.configuration.animationDelivery)
        let contentEncoding = context.format == nil ? Self.contentEncoding(of: fetched.urlResponse) : nil
        // The previews' session makes the final image when it can (its work is then not done
        // twice); when it cannot, the decoder decodes the data as usual and decides any error.
        let session = previewSession
        previewSession = nil
        let input = Carried(timings: fetched.timings, cacheType: fetched.cacheType, urlResponse: fetched.urlResponse,
                            originalFormat: context.format, storageErrors: fetched.storageErrors,
                            resumedFromByte: fetched.resumedFromByte, imageSource: fetched.imageSource)
        produce(on: graph.decodeQueue, from: input) {
            if let session {
                defer { session.close() }
                if let image = session.finish(fetched.data) { return image }
            }
            do {
                return try decoder.decode(fetched.data, context: context)
            } catch ImagePipelineError.decodingFailed(nil, let reason) where contentEncoding != nil {
                // Loaders deliver bodies as sent: an encoding nobody asked for reaches the decoder.
                throw ImagePipelineError.decodingFailed(format: nil, reason: "\(reason); the body is in Content-Encoding "
                    + "'\(contentEncoding ?? "")', which the loader delivers as the server sent it, not decoded")
            } catch let error as ImagePipelineError {
                throw error
            } catch {
                throw ImagePipelineError.decodingFailed(format: context.format, reason: String(describing: error))
            }
        } record: { timings, duration in
            timings.decode += duration
        }
    }

    /// The response's `Content-Encoding` other than `identity`, if any.
    nonisolated static func contentEncoding(of response: URLResponse?) -> String? {
        guard let value = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Encoding")?
            .trimmingCharacters(in: .whitespaces), !value.isEmpty, value.lowercased() != "identity" else { return nil }
        return value
    }

    // MARK: Previews

    /// Decodes a preview from the complete scans received so far, unless the interval since the
    /// last one has not passed or it would take the previews past their budget of bytes: with a
    /// session, which decodes each byte once, the bytes up to the furthest scan previewed; without
    /// one, every preview's bytes from the start.
    private func decodePreview(_ partial: FetchedData) {
        let now = monotonicNow()
        guard now - lastPreviewAt >= graph.configuration.progressiveDecodingInterval else { return }
        let decoder = graph.configuration.decoders
        let context = ImageDecodingContext(format: ImageFormat(sniffing: partial.data), thumbnail: request.thumbnail,
                                           maxPixelCount: graph.configuration.maxPixelCount,
                                           memoryBudget: graph.configuration.decodeMemoryBudget)
        if !askedForPreviewSession {
            askedForPreviewSession = true
            previewSession = decoder.makeProgressiveSession(for: partial.data, context: context)
        }
        let data = partial.data
        let scanEnd = min(partial.scanEnd ?? data.count, data.count)
        let decoded = previewSession == nil ? previewBytes + scanEnd : max(previewBytes, scanEnd)
        let budget = graph.configuration.progressiveDecodingBudget * Double(expectedBytes)
        guard expectedBytes <= 0 || Double(decoded) <= budget else { return }
        let work: @Sendable () -> PlatformImage?
        if let session = previewSession {
            work = { session.preview(data, scanEnd: scanEnd) }
        } else {
            work = { decoder.decodePreview(data.prefix(scanEnd), context: context) }
        }
        if runPreview(on: graph.decodeQueue, work: work) {
            lastPreviewAt = now
            previewBytes = decoded
        }
    }

    /// Frees the previews' session now rather than when the job goes: the request was cancelled,
    /// or failed before the final decode.
    private func closePreviewSession() {
        // The decoder's code: run once the graph is released.
        if let session = previewSession { GraphActor.afterUnlock { session.close() } }
        previewSession = nil
    }
}
