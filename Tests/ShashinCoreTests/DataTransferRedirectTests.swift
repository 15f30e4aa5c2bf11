import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ShashinCore

@Suite("Redirect limits of a download")
struct DataTransferRedirectTests {
    func outcome(of transfer: DataTransfer) async -> (any Error)? {
        do {
            _ = try await withCheckedThrowingContinuation { transfer.begin($0) }
            return nil
        } catch { return error }
    }

    @Test("a redirect to a non-HTTP scheme fails the download with unsupportedScheme")
    func scheme() async throws {
        let transfer = DataTransfer(maxBytes: 100) { _, _ in }
        #expect(!transfer.mayRedirect(to: URLRequest(url: URL(string: "file:///etc/passwd")!)))
        #expect(await outcome(of: transfer) as? ImagePipelineError == .unsupportedScheme("file"))
    }

    @Test("the n+1-th redirect fails with tooManyRedirects(n)")
    func count() async throws {
        let transfer = DataTransfer(maxBytes: 100, maxRedirects: 2) { _, _ in }
        let next = URLRequest(url: URL(string: "https://example.com/next")!)
        #expect(transfer.mayRedirect(to: next))
        #expect(transfer.mayRedirect(to: next))
        #expect(!transfer.mayRedirect(to: next))
        #expect(await outcome(of: transfer) as? ImagePipelineError == .tooManyRedirects(limit: 2))
    }

    @Test("a Location naming another scheme is refused by its own scheme, before resolution makes it http")
    func rawLocation() async throws {
        let transfer = DataTransfer(maxBytes: 100) { _, _ in }
        // What Foundation on Linux makes of `Location: file:///etc/passwd` from http://origin/.
        let resolved = URLRequest(url: URL(string: "http://origin/etc/passwd")!)
        #expect(!transfer.mayRedirect(to: resolved, location: "file:///etc/passwd"))
        #expect(await outcome(of: transfer) as? ImagePipelineError == .unsupportedScheme("file"))
    }

    @Test("schemes are read from absolute references only", arguments: [
        ("data:text/plain,hi", "data"), ("FILE:///x", "file"), ("HTTPS://a/b", "https"), ("/path:with:colons", nil),
        ("relative/path", nil), ("1abc:x", nil), ("?q=a:b", nil),
    ] as [(String, String?)])
    func schemeOfReference(_ reference: String, expected: String?) {
        #expect(DataTransfer.scheme(of: reference) == expected)
    }

    @Test("a pipeline allowing only http binds that for its downloads: a redirect to https is refused")
    func narrowedSchemes() async throws {
        let refused = try await RedirectSchemes.download(restrictedTo: RedirectSchemes.restriction(for: ["http", "file"])) { () async throws -> (any Error)? in
            #expect(RedirectSchemes.current == ["http"])
            let transfer = DataTransfer(maxBytes: 100) { _, _ in }
            #expect(!transfer.mayRedirect(to: URLRequest(url: URL(string: "https://example.com/next")!)))
            #expect(DataTransfer(maxBytes: 100) { _, _ in }.mayRedirect(to: URLRequest(url: URL(string: "http://example.com/next")!)))
            return await outcome(of: transfer)
        }
        #expect(refused as? ImagePipelineError == .unsupportedScheme("https"))
        // The default set binds nothing: both web schemes, and never another.
        try await RedirectSchemes.download(restrictedTo: RedirectSchemes.restriction(for: ["http", "https", "data"])) { #expect(RedirectSchemes.current == ["http", "https"]) }
        #expect(RedirectSchemes.current == RedirectSchemes.web)
    }
}

@Suite("The cores a process may use")
struct AvailableProcessorsTests {
    @Test("Cpus_allowed counts the CPUs of the affinity mask", arguments: [
        ("Name:\ta\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\n", 2), ("Cpus_allowed:\t1\n", 1),
        ("Cpus_allowed:\tffffffff,ffffffff\n", 64), ("Cpus_allowed:\t00000000,00000010\n", 1),
        ("Cpus_allowed:\t0\n", nil), ("Cpus_allowed:\txyz\n", nil), ("Name:\ta\n", nil),
    ] as [(String, Int?)])
    func affinityMask(_ status: String, expected: Int?) {
        #expect(AvailableProcessors.affinityCount(status: status) == expected)
    }

    @Test("the pipeline's default decode and processing limits are the cores this process may use")
    func defaults() {
        let configuration = ImagePipeline.Configuration(decoder: TestDecoder())
        #expect(configuration.maxConcurrentDecodes == AvailableProcessors.count)
        #expect(configuration.maxConcurrentProcessing == AvailableProcessors.count)
        #expect(AvailableProcessors.count >= 1 && AvailableProcessors.count <= ProcessInfo.processInfo.activeProcessorCount)
    }
}
