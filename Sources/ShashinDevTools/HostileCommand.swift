import ArgumentParser
import Foundation
import ImageServer
import Shashin

/// `shashin-dev hostile`: the raw-TCP ``HostileOrigin``, standalone, until interrupted.
struct HostileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hostile",
        abstract: "Run a hostile origin on 127.0.0.1 that breaks HTTP's rules in exact bytes, one behaviour per path."
    )

    @Option(help: "Port to listen on (0: any free port).")
    var port = 0

    func run() async throws {
        let image = try await ImageGenerator.shared.data(for: ImageSpec(format: .png, width: 64, height: 48, seed: 1))
        let origin = try HostileOrigin(image: image, port: UInt16(port))
        print("HostileOrigin listening on http://127.0.0.1:\(origin.port)/")
        for behaviour in HostileBehaviour.allCases { print("  \(origin.url(behaviour).absoluteString)") }
        print("Press Ctrl-C to stop.")
        fflush(nil)
        while true { try await Task.sleep(nanoseconds: 3_600_000_000_000) }
    }
}
