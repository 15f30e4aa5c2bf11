import Foundation

/// Stage n ≥ 1: processor n applied to stage n-1's image, and to its previews.
final class ProcessedImageJob: ImageJob {
    /// The processor this stage applies.
    private var processor: any ImageProcessing { request.processors[stage - 1] }
    /// The limits the configuration sets on what a processor makes.
    private var context: ImageProcessingContext {
        ImageProcessingContext(maxPixelCount: graph.configuration.maxPixelCount)
    }

    override func subscribeUpstream() {
        upstream = graph.imageJob(for: request, stage: stage - 1, key: cacheKey).subscribe(priority: priority, wantsPreviews: wantsPreviews) { [weak self] event in
            switch event {
            case .progress(let progress): self?.send(progress: progress)
            case .retrying(let retry): self?.send(retry: retry)
            case .preview(let input): self?.processPreview(input)
            case .value(let input): self?.process(input)
            case .failure(let error): self?.finish(.failure(error))
            }
        }
    }

    private func process(_ input: ImageResult) {
        let processor = self.processor
        let context = self.context
        let carried = Carried(timings: input.timings, cacheType: input.cacheType, urlResponse: input.urlResponse,
                              originalFormat: input.originalFormat, storageErrors: input.storageErrors,
                              resumedFromByte: input.resumedFromByte, imageSource: input.imageSource)
        let image = UncheckedImage(input.image)
        produce(on: graph.processingQueue, from: carried) {
            do {
                return try processor.processEveryFrame(image.value, context: context)
            } catch let error as ImagePipelineError {
                throw error
            } catch {
                throw ImagePipelineError.processingFailed(identifier: processor.identifier, reason: String(describing: error))
            }
        } record: { timings, duration in
            timings.process += duration
        }
    }

    /// Runs the processor on the stage below's preview; a processor that fails on a preview only
    /// loses that preview.
    private func processPreview(_ input: ImageResult) {
        let processor = self.processor
        let context = self.context
        let image = UncheckedImage(input.image)
        runPreview(on: graph.processingQueue, work: { try? processor.process(image.value, context: context) })
    }
}
