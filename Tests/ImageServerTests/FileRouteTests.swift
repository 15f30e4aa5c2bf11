import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import ImageServer

@Suite("Files")
struct FileRouteTests {
    /// A fresh directory `root/` holding `photo.png` and `sub/note.txt`, next to a `secret.txt`
    /// outside it, and a symbolic link `root/escape.txt` pointing at the secret.
    struct Fixture {
        let base: URL
        let root: URL

        init() throws {
            base = FileManager.default.temporaryDirectory.appendingPathComponent("imageserver-\(UUID().uuidString)")
            root = base.appendingPathComponent("root")
            try FileManager.default.createDirectory(at: root.appendingPathComponent("sub"), withIntermediateDirectories: true)
            try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2]).write(to: root.appendingPathComponent("photo.png"))
            try Data("note".utf8).write(to: root.appendingPathComponent("sub/note.txt"))
            try Data("secret".utf8).write(to: base.appendingPathComponent("secret.txt"))
            try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("escape.txt"),
                                                       withDestinationURL: base.appendingPathComponent("secret.txt"))
        }

        func remove() {
            try? FileManager.default.removeItem(at: base)
        }
    }

    @Test func servesFilesOfTheDirectory() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try await withServer(ImageServer(filesDirectory: fixture.root)) { server in
            let (photo, response) = try await fetch(server.url("/files/photo.png"))
            #expect(response.statusCode == 200)
            #expect(photo.count == 10)
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "image/png")
            #expect(response.value(forHTTPHeaderField: "Last-Modified") != nil)
            let (note, _) = try await fetch(server.url("/files/sub/note.txt"))
            #expect(note == Data("note".utf8))
            let (_, missing) = try await fetch(server.url("/files/none.png"))
            #expect(missing.statusCode == 404)
        }
    }

    @Test func answers304ToAFilesLastModified() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try await withServer(ImageServer(filesDirectory: fixture.root)) { server in
            let (_, first) = try await fetch(server.url("/files/photo.png"))
            let modified = try #require(first.value(forHTTPHeaderField: "Last-Modified"))
            let (_, second) = try await fetch(server.url("/files/photo.png"), headers: ["If-Modified-Since": modified])
            #expect(second.statusCode == 304)
        }
    }

    @Test func refusesPathTraversal() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        try await withServer(ImageServer(filesDirectory: fixture.root)) { server in
            for path in ["/files/%2e%2e/secret.txt", "/files/sub/%2E%2E/%2E%2E/secret.txt", "/files/escape.txt",
                         "/files/..%2Fsecret.txt"] {
                let (data, response) = try await fetch(server.url(path))
                #expect([403, 404].contains(response.statusCode), "\(path)")
                #expect(data != Data("secret".utf8), "\(path)")
            }
        }
    }

    @Test func resolverKeepsRequestsInsideTheDirectory() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let root = FileRoot(directory: fixture.root)
        guard case .file = root.resolve("sub/note.txt") else { Issue.record("note.txt not found"); return }
        #expect(root.resolve("../secret.txt") == .forbidden)
        #expect(root.resolve("sub/../../secret.txt") == .forbidden)
        #expect(root.resolve("escape.txt") == .forbidden)
        #expect(root.resolve("sub") == .notFound)
        #expect(root.resolve("") == .notFound)
    }

    @Test func withoutADirectoryFilesAre404() async throws {
        try await withServer { server in
            let (_, response) = try await fetch(server.url("/files/anything.png"))
            #expect(response.statusCode == 404)
        }
    }
}
