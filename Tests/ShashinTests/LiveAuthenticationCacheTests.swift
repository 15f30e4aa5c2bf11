import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ImageServer
import Shashin
import Testing

/// The disk cache behind a loader that answers challenges: stored responses stay keyed by the
/// credential that fetched them, and no password or Digest response reaches the metadata.
@Suite("Over HTTP: authentication and the disk cache")
struct LiveAuthenticationCacheTests {
    static func pipeline(_ loader: any DataLoading, _ storage: any DataCaching,
                         _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.dataLoader = loader
        configuration.diskCache = storage
        configure(&configuration)
        return ImagePipeline(configuration: configuration)
    }

    @Test(arguments: LoaderFactory.all, ["basic", "digest"])
    func aStoredProtectedImageIsServedOnlyToTheSameCredential(loader kind: LoaderFactory, scheme: String) async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = try DiskCache(configuration: .init(directory: folder))
        let loader = kind.make()
        let authentication: Authentication = scheme == "basic" ? .basic(user: "ann", password: "secret")
            : .digest(user: "ann", password: "secret")
        server.setRoute("/c.jpg", LiveAuthenticationTests.protectedImage(authentication, headers: ["Cache-Control": "max-age=600"]))
        let url = server.url("/c.jpg")
        let ann = LiveAuthenticationTests.ann

        let first = try await Self.pipeline(loader, storage) { $0.credentialProvider = { _ in ann } }.response(for: ImageRequest(url: url))
        #expect(first.cacheType == .none)
        #expect(server.requestCount(for: "/c.jpg") == 2)

        // The metadata keeps neither the password nor what was sent for it.
        let entry = try #require(try storage.entry(forKey: url.absoluteString))
        let metadata = String(decoding: try #require(entry.metadata), as: UTF8.self)
        for secret in ["secret", Data("ann:secret".utf8).base64EncodedString(), "Digest", "Basic", "response="] {
            #expect(!metadata.contains(secret), "\(secret) in \(metadata)")
        }

        // Another pipeline without credentials does not get the protected bytes from disk.
        let anonymous = Self.pipeline(loader, storage)
        await #expect(throws: ImagePipelineError.httpStatus(401)) { try await anonymous.response(for: ImageRequest(url: url)) }
        #expect(server.requestCount(for: "/c.jpg") == 3)

        // Nor does one with another user's credential.
        let bob = Credential(user: "bob", password: "other")
        let other = Self.pipeline(loader, storage) { $0.credentials = [url.host!: bob] }
        await #expect(throws: ImagePipelineError.httpStatus(401)) { try await other.response(for: ImageRequest(url: url)) }
        #expect(server.requestCount(for: "/c.jpg") == 5)

        // The same credential, fixed for the host: known before any challenge, so served from disk.
        let again = try await Self.pipeline(loader, storage) { $0.credentials = [url.host!: ann] }.response(for: ImageRequest(url: url))
        #expect(again.cacheType == .disk)
        #expect(server.requestCount(for: "/c.jpg") == 5)
        await server.stop()
        try await shutDown(loader)
    }

    @Test(arguments: LoaderFactory.all) func anAuthorizationTheResponseVariesOnIsStoredOnlyAsADigest(loader kind: LoaderFactory) async throws {
        let server = ImageServer()
        try await server.start()
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage = try DiskCache(configuration: .init(directory: folder))
        let loader = kind.make()
        let field = "Basic " + Data("ann:secret".utf8).base64EncodedString()
        server.setRoute("/v.jpg", RouteScript.image(ImageSpec(format: .jpeg, width: 32, height: 24, seed: 2),
                                                    headers: ["Cache-Control": "max-age=600", "Vary": "Authorization"]))
        let url = server.url("/v.jpg")
        let pipeline = Self.pipeline(loader, storage) {
            $0.requestModifier = { request in
                var request = request
                request.setValue(field, forHTTPHeaderField: "Authorization")
                return request
            }
        }
        _ = try await pipeline.response(for: ImageRequest(url: url))
        let entry = try #require(try storage.entry(forKey: url.absoluteString))
        let metadata = String(decoding: try #require(entry.metadata), as: UTF8.self)
        #expect(metadata.lowercased().contains("authorization"))
        #expect(!metadata.contains(field) && !metadata.contains("secret"))
        // Still answers the same request from disk: the digest matches.
        let again = try await Self.pipeline(loader, storage) {
            $0.requestModifier = { request in
                var request = request
                request.setValue(field, forHTTPHeaderField: "Authorization")
                return request
            }
        }.response(for: ImageRequest(url: url))
        #expect(again.cacheType == .disk)
        await server.stop()
        try await shutDown(loader)
    }
}
