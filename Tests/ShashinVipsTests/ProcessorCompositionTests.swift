// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Shashin
import Testing

@Suite("Processors: composition")
struct ProcessorCompositionTests {
    let source = TestImages.gradient(width: 120, height: 90, alpha: true)

    @Test func anEmptyCompositionReturnsTheImageUnchanged() throws {
        #expect(try ImageProcessors.Composition([]).process(source) == source)
        #expect(ImageProcessors.Composition([]).identifier == "composition()")
    }

    @Test func aCompositionEqualsItsStepsAppliedInSequence() throws {
        let steps: [any ImageProcessing] = [.resize(width: 60), .crop(x: 5, y: 5, width: 40, height: 30),
                                            .roundedCorners(radius: 8), .blur(radius: 2), .circle]
        let sequential = try steps.reduce(source) { try $1.process($0) }
        #expect(try ImageProcessors.Composition(steps).process(source) == sequential)
        #expect((sequential.width, sequential.height) == (30, 30))
    }

    @Test func theIdentifierJoinsThePartsInOrder() {
        let composition = ImageProcessors.Composition([.resize(width: 300), .blur(radius: 4)])
        #expect(composition.identifier == "composition(resize(w=300,h=auto,fit,noCrop,noUpscale) > gaussianBlur(r=4))")
        #expect(ImageProcessors.Composition([.blur(radius: 4), .resize(width: 300)]).identifier != composition.identifier)
    }

    @Test func aFailingStepFailsTheCompositionWithItsOwnIdentifier() {
        let composition = ImageProcessors.Composition([.resize(width: 10), .crop(x: 50, y: 50, width: 5, height: 5)])
        let error = #expect(throws: ImagePipelineError.self) { try composition.process(source) }
        guard case .processingFailed(let identifier, _)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(identifier == "crop(x=50,y=50,w=5,h=5)")
    }
}
#endif
