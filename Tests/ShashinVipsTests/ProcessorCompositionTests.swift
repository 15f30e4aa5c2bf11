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
        #expect(composition.identifier == "composition(resize(w=300,h=auto,fit,noCrop,noUpscale)@1 > gaussianBlur(r=4))")
        #expect(ImageProcessors.Composition([.blur(radius: 4), .resize(width: 300)]).identifier != composition.identifier)
    }

    /// Compositions inside compositions are their steps in sequence: one flat list, so nesting
    /// 100,000 deep neither overflows the stack when processing (it did from about 10,000) nor
    /// takes quadratic time to name.
    @Test func nestedCompositionsAreFlattenedSoDepthCannotOverflowTheStack() throws {
        var nested = ImageProcessors.Composition([.blur(radius: 1), .circle])
        for _ in 0..<100_000 { nested = ImageProcessors.Composition([nested]) }
        #expect(nested.processors.map(\.identifier) == ["gaussianBlur(r=1)", "circle"])
        #expect(nested.identifier == "composition(gaussianBlur(r=1) > circle)")
        let small = TestImages.gradient(width: 4, height: 4, alpha: true)
        #expect(try nested.process(small) == ImageProcessors.Circle().process(ImageProcessors.GaussianBlur(radius: 1).process(small)))
    }

    @Test func aNestedCompositionSharesItsFlatEquivalentsIdentifier() {
        let nested = ImageProcessors.Composition([.resize(width: 300), .composition([.blur(radius: 4), .composition([])]), .circle])
        let flat = ImageProcessors.Composition([.resize(width: 300), .blur(radius: 4), .circle])
        #expect(nested.identifier == flat.identifier)
        #expect(nested.processors.map(\.identifier) == flat.processors.map(\.identifier))
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
