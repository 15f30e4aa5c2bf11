// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import Shashin
import Testing

@Suite("Processors: identifiers and the leading-dot shorthand")
struct ProcessorIdentifierTests {
    /// Literal expectations: an identifier that changed between releases would silently split
    /// every cache, so these are spelled out rather than computed.
    @Test func identifiersAreStableText() {
        let expected: [(any ImageProcessing, String)] = [
            (ImageProcessors.Resize(width: 300, height: 200, crop: true), "resize(w=300,h=200,fill,crop,noUpscale)@1"),
            (ImageProcessors.Resize(width: 100, height: 200, unit: .points, scale: 3, crop: true), "resize(w=300,h=600,fill,crop,noUpscale)@3"),
            (ImageProcessors.Resize(width: 300, height: 200, unit: .pixels, contentMode: .aspectFit, upscale: true),
             "resize(w=300,h=200,fit,noCrop,upscale)"),
            (ImageProcessors.Resize(height: 64), "resize(w=auto,h=64,fit,noCrop,noUpscale)@1"),
            (ImageProcessors.Crop(x: 10, y: 20, width: 100, height: 50), "crop(x=10,y=20,w=100,h=50)"),
            (ImageProcessors.RoundedCorners(radius: 12), "roundedCorners(r=12pt)"),
            (ImageProcessors.RoundedCorners(radius: 12, unit: .pixels), "roundedCorners(r=12px)"),
            (ImageProcessors.RoundedCorners(radius: 2.5, border: .init(width: 2, color: .init(red: 255, green: 10, blue: 0, alpha: 128))),
             "roundedCorners(r=2.5pt,border=2,#FF0A0080)"),
            (ImageProcessors.Circle(), "circle"),
            (ImageProcessors.Circle(border: .init(width: 1.5)), "circle(pt,border=1.5,#FFFFFFFF)"),
            (ImageProcessors.GaussianBlur(radius: 4), "gaussianBlur(r=4)"),
            (ImageProcessors.GaussianBlur(), "gaussianBlur(r=8)"),
            (ImageProcessors.GaussianBlur(radius: 0.1), "gaussianBlur(r=0.1)"),
            (ImageProcessors.Composition([ImageProcessors.Circle(), ImageProcessors.GaussianBlur(radius: 1)]),
             "composition(circle > gaussianBlur(r=1))"),
        ]
        for (processor, identifier) in expected {
            #expect(processor.identifier == identifier)
        }
    }

    @Test func differentParametersGiveDifferentIdentifiers() {
        let processors: [any ImageProcessing] = [
            .resize(width: 300), .resize(width: 301), .resize(height: 300), .resize(width: 300, upscale: true),
            .resize(width: 300, height: 200), .resize(width: 200, height: 300), .resize(width: 300, height: 200, crop: true),
            .resize(width: 300, height: 200, contentMode: .aspectFit), .resize(width: 300, height: 200, crop: true, upscale: true),
            .crop(x: 0, y: 0, width: 10, height: 10), .crop(x: 1, y: 0, width: 10, height: 10), .crop(x: 0, y: 1, width: 10, height: 10),
            .crop(x: 0, y: 0, width: 11, height: 10), .crop(x: 0, y: 0, width: 10, height: 11),
            .resize(width: 300, unit: .pixels), .resize(width: 300, scale: 2), .roundedCorners(radius: 12, unit: .pixels),
            .roundedCorners(radius: 12), .roundedCorners(radius: 12.5), .roundedCorners(radius: 12, border: .init(width: 1)),
            .roundedCorners(radius: 12, border: .init(width: 2)), .roundedCorners(radius: 12, border: .init(width: 1, color: .black)),
            .circle, .circle(border: .init(width: 1)), .circle(border: .init(width: 1, color: .black)),
            .blur(radius: 1), .blur(radius: 1.5), .blur(radius: 2),
            .composition([]), .composition([.circle]), .composition([.circle, .blur(radius: 1)]), .composition([.blur(radius: 1), .circle]),
        ]
        let identifiers = processors.map(\.identifier)
        #expect(Set(identifiers).count == identifiers.count, "\(identifiers)")
    }

    @Test func settingsThatCannotChangeTheOutputDoNotChangeTheIdentifier() {
        #expect(ImageProcessors.Resize(width: 300, contentMode: .aspectFill, crop: true).identifier ==
                ImageProcessors.Resize(width: 300, contentMode: .aspectFit).identifier)
        #expect(ImageProcessors.Resize(width: 3, height: 2, contentMode: .aspectFit, crop: true).identifier ==
                ImageProcessors.Resize(width: 3, height: 2, contentMode: .aspectFit).identifier)
        #expect(ImageProcessors.RoundedCorners(radius: 4, border: .init(width: 0, color: .black)).identifier ==
                ImageProcessors.RoundedCorners(radius: 4).identifier)
        #expect(ImageProcessors.GaussianBlur(radius: -0.0).identifier == ImageProcessors.GaussianBlur(radius: 0).identifier)
    }

    @Test func theShorthandWorksInARequestsProcessorList() {
        let url = URL(string: "https://example.com/a.jpg")!
        let request = ImageRequest(url: url, processors: [.resize(width: 300), .roundedCorners(radius: 12), .blur(radius: 4)])
        #expect(request.cacheKey.processors == ["resize(w=300,h=auto,fit,noCrop,noUpscale)@1", "roundedCorners(r=12pt)", "gaussianBlur(r=4)"])
        let readme = ImageRequest(url: url, processors: [.resize(width: 300, height: 300, crop: true), .roundedCorners(radius: 12)])
        #expect(readme.cacheKey.processors == ["resize(w=300,h=300,fill,crop,noUpscale)@1", "roundedCorners(r=12pt)"])
        var processors: [any ImageProcessing] = [.circle, .crop(CGRect(x: 0, y: 0, width: 8, height: 8))]
        processors.append(.resize(size: CGSize(width: 30, height: 30), scale: 2, crop: true))
        processors += [.composition([.blur(radius: 1), .circle(border: .init(width: 2))])]
        #expect(processors.map(\.identifier) == ["circle", "crop(x=0,y=0,w=8,h=8)", "resize(w=60,h=60,fill,crop,noUpscale)@2",
                                                 "composition(gaussianBlur(r=1) > circle(pt,border=2,#FFFFFFFF))"])
    }
}
#endif
