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
}
