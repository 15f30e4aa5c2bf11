import AsyncHTTPClient
import Testing
import ShashinAsyncHTTPClient

/// The settings of the AsyncHTTPClient loader's own client that its behaviour rests on.
@Suite("AsyncHTTPClient loader: its own client's settings")
struct ClientConfigurationTests {
    /// A connection that cannot be made fails its requests at once, as with `URLSession`: with
    /// AsyncHTTPClient's default (retrying until the connect timeout), a host that refuses
    /// connections would hold each download slot for that long.
    @Test func aConnectionThatCannotBeMadeIsNotRetried() {
        let configuration = AsyncHTTPClientDataLoader.clientConfiguration()
        #expect(!configuration.connectionPool.retryConnectionEstablishment)
        #expect(configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit == 16)
        #expect(AsyncHTTPClientDataLoader.clientConfiguration(maxConnectionsPerHost: 3)
            .connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit == 3)
    }
}
