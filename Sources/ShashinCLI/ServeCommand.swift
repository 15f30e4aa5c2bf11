import ArgumentParser
import Foundation
import ImageServer

/// `shashin serve`: the test ImageServer, standalone, until interrupted.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the ImageServer on 127.0.0.1: generated images under /gen/, files under /files/."
    )

    @Option(help: "Port to listen on (0: any free port).")
    var port = 8080

    @Option(help: "A directory to serve under /files/.")
    var files: String?

    @Option(help: "Print the paths of a generated gallery of this many images.")
    var gallery = 5

    @Flag(help: "Also listen for HTTPS (HTTP/2 or HTTP/1.1 by ALPN), with a self-signed certificate made at start.")
    var https = false

    @Option(help: "The HTTPS port, with --https (0: any free port).")
    var httpsPort = 8443

    @Option(help: "With --https, write the certificate (PEM) here, for a client to trust (curl --cacert FILE).")
    var certificateOut: String?

    func run() async throws {
        let server = ImageServer(port: port, filesDirectory: files.map { URL(fileURLWithPath: $0, isDirectory: true) },
                                 httpsPort: https ? httpsPort : nil)
        try await server.start()
        print("ImageServer listening on \(server.baseURL.absoluteString)")
        if let httpsURL = server.httpsBaseURL, let pem = server.certificatePEM {
            print("HTTPS (h2, http/1.1) on \(httpsURL.absoluteString)")
            if let certificateOut {
                try Data(pem.utf8).write(to: URL(fileURLWithPath: certificateOut))
                print("Certificate written to \(certificateOut)")
            } else {
                print("Certificate (trust it to connect; --certificate-out FILE writes it to a file):")
                print(pem, terminator: pem.hasSuffix("\n") ? "" : "\n")
            }
        }
        print("Generated images: /gen/<seed>-<width>x<height>.<jpg|png|webp|gif>, for example:")
        for url in Gallery(count: gallery).urls(on: server) { print("  \(url.absoluteString)") }
        if let files { print("Files from \(files) under /files/") }
        print("Press Ctrl-C to stop.")
        fflush(nil) // so `serve > log &` shows the port at once, not when the buffer fills
        try await server.run()
    }
}
