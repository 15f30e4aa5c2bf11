import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Shashin

/// `shashin http get URL`: any HTTP request through Shashin's HTTP cache, from the shell.
struct HTTPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http",
        abstract: "Send requests through Shashin's HTTP cache (RFC 9111) and see where answers come from.",
        subcommands: [HTTPGetCommand.self]
    )
}

struct HTTPGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "GET a URL through the HTTP cache; print the status, the header fields and the source."
    )

    @Argument(help: "The URL (http or https).")
    var url: String

    @Option(name: .customShort("H"), help: "A request header field, 'Name: value' (repeatable).")
    var header: [String] = []

    @OptionGroup var folder: CacheFolderOption

    @OptionGroup var loader: LoaderOption

    @OptionGroup var user: UserOption

    @Option(help: "The cache policy: \(HTTPCachePolicy.allCases.map(\.rawValue).joined(separator: ", ")).")
    var policy: HTTPCachePolicy = .useProtocolCachePolicy

    @Option(name: .customLong("minimum-freshness"), help: "Treat stored responses as fresh for at least this many seconds.")
    var minimumFreshness: Double = 0

    @Flag(help: "Serve a stale stored response when the server cannot be reached or answers 5xx.")
    var staleOnError = false

    @Flag(help: "Serve a stale stored response at once and refresh it in the background.")
    var staleWhileRevalidate = false

    @Option(name: .shortAndLong, help: "Write the body to this file.")
    var output: String?

    func run() async throws {
        guard let target = URL(string: url), let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw ValidationError("Not an http or https URL: \(url)")
        }
        var request = URLRequest(url: target)
        for field in header {
            guard let colon = field.firstIndex(of: ":") else { throw ValidationError("A header is 'Name: value', not '\(field)'") }
            request.addValue(field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces),
                             forHTTPHeaderField: field[..<colon].trimmingCharacters(in: .whitespaces))
        }
        var options = HTTPCache.Options()
        options.minimumFreshness = minimumFreshness
        options.servesStaleOnError = staleOnError
        options.staleWhileRevalidate = staleWhileRevalidate
        let storage = try folder.open()
        let cache = HTTPCache(loader: user.wrap(loader.make(), for: target), storage: storage, options: options)
        do {
            let answer = try await cache.response(for: request, policy: policy)
            print("HTTP \(answer.statusCode) \(HTTPURLResponse.localizedString(forStatusCode: answer.statusCode))")
            let fields = answer.response.allHeaderFields.compactMap { name, value in (name as? String).map { ($0, "\(value)") } }
            for (name, value) in fields.sorted(by: { $0.0.lowercased() < $1.0.lowercased() }) { print("\(name): \(value)") }
            print("")
            print("source: \(answer.source.rawValue)\(answer.isStale ? " (stale)" : "")")
            print("body: \(answer.data.count) bytes")
            UserOption.report(cache.loader)
            for error in answer.storageErrors { print("cache error: \(error)") }
            if let output {
                try answer.data.write(to: URL(fileURLWithPath: output))
                print("wrote \(output)")
            }
            await cache.waitForBackgroundRefreshes()
            storage.flush()
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}

extension HTTPCachePolicy: ExpressibleByArgument {}
