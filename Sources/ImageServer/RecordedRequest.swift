/// A request as the server received it, kept so a test can check what the client really sent.
///
/// ```swift
/// #expect(server.lastRequest(for: "/a.jpg")?.header("Authorization") == "Bearer t")
/// ```
public struct RecordedRequest: Sendable, Hashable {
    /// The method, such as `GET`.
    public var method: String
    /// The path without the query, such as `/gen/1-64x64.png`.
    public var path: String
    /// The query items in order, as name and value.
    public var query: [QueryItem]
    /// The request headers by name, as received (header names are case-insensitive: read them
    /// with ``header(_:)``).
    public var headers: [String: String]
    /// Which request this was for its path since the last ``ImageServer/resetCounters()``: 1, 2, ...
    public var ordinal: Int
    /// The protocol version the request came over: `HTTP/1.1` (or `HTTP/1.0`), or `HTTP/2`.
    public var httpVersion: String
    /// Whether it came over the HTTPS listener.
    public var isSecure: Bool

    /// One `name=value` pair of the query string.
    public struct QueryItem: Sendable, Hashable {
        /// The name before `=`.
        public var name: String
        /// The value after `=`, empty when there is none.
        public var value: String

        /// Creates a query item.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// Creates a record (the server makes these; tests may build them for `responder` closures).
    public init(method: String, path: String, query: [QueryItem] = [], headers: [String: String] = [:], ordinal: Int = 1,
                httpVersion: String = "HTTP/1.1", isSecure: Bool = false) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.ordinal = ordinal
        self.httpVersion = httpVersion
        self.isSecure = isSecure
    }

    /// The value of header `name`, ignoring case, or `nil` when absent.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
