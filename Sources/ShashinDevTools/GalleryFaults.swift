import Foundation
import ImageServer
import Shashin

/// A few URLs that fail on purpose, so the demo shows what failures look like and that none of
/// them crashes or caches anything.
enum GalleryFaults {
    static func install(on server: ImageServer) -> [URL] {
        server.setRoute("/faults/missing.jpg", .status(404, text: "not here"))
        server.setRoute("/faults/page.jpg", .data(Data("<!doctype html><title>Oops</title>".utf8), contentType: "text/html"))
        var truncated = RouteScript.image(ImageSpec(format: .jpeg, width: 800, height: 600, seed: 99))
        truncated.fault = .shortBody
        server.setRoute("/faults/truncated.jpg", truncated)
        var dropped = RouteScript.image(ImageSpec(format: .png, width: 800, height: 600, seed: 98))
        dropped.fault = .dropConnectionMidBody
        server.setRoute("/faults/dropped.png", dropped)
        return ["/faults/missing.jpg", "/faults/page.jpg", "/faults/truncated.jpg", "/faults/dropped.png"].map(server.url)
    }
}
