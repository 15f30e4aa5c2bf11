import Foundation
import FuzzProbes
import Testing
@testable import ShashinCore

/// The probe the HTTP-cache fuzzer drives (`Fuzz/`): it reads its text form as written, and finds
/// nothing wrong with sound exchanges or with metadata the cache cannot read.
@Suite("HTTPCacheProbe")
struct HTTPCacheProbeTests {
    @Test func theTextFormReadsStatusTimesAndThreeSectionsOfFields() {
        let exchange = HTTPCacheProbe.exchange(parsing: "304 -5 -3 600\r\nCache-Control: max-age=60\nETag:\"a\"\n\nAccept: image/*\nbare\n\nETag: \"b\"")
        #expect(exchange.status == 304)
        #expect(exchange.requestTime == HTTPCacheProbe.epoch - 5)
        #expect(exchange.responseTime == HTTPCacheProbe.epoch - 3)
        #expect(exchange.now == HTTPCacheProbe.epoch + 600)
        #expect(exchange.responseHeaders.map { "\($0.0)=\($0.1)" } == ["Cache-Control=max-age=60", "ETag=\"a\""])
        #expect(exchange.requestHeaders.map { "\($0.0)=\($0.1)" } == ["Accept=image/*", "bare="])
        #expect(exchange.notModifiedHeaders.map { "\($0.0)=\($0.1)" } == ["ETag=\"b\""])
    }

    @Test func anyTextReadsAsSomeExchange() {
        let exchange = HTTPCacheProbe.exchange(parsing: "x 99999999999999999999")
        #expect(exchange.status == 200 && exchange.requestTime == HTTPCacheProbe.epoch)
        #expect(HTTPCacheProbe.exchange(parsing: "").responseHeaders.isEmpty)
    }

    @Test(arguments: [
        "200 -2 -1 30\nCache-Control: max-age=60\nDate: Sun, 31 Dec 2023 23:59:59 GMT\nETag: \"abc\"\n\nAccept: image/*\n\nETag: \"abc\"\nCache-Control: max-age=120",
        "200 -1 0 90\nCache-Control: public, max-age=60, stale-while-revalidate=120, stale-if-error=300\nVary: Accept-Encoding, Accept\n\nAccept-Encoding: gzip,   br\nAccept: image/webp,image/*",
        "200 0 0 10\nCache-Control: no-cache=\"Set-Cookie\", private, must-revalidate\nVary: *\nConnection: close, X-Hop\nX-Hop: 1\n\nPragma: no-cache\n\nConnection: X-Trace\nX-Trace: on\nContent-Length: 99",
        "301 -100 -50 3600\nCache-Control: max-age=99999999999999999999, max-age=5\nAge: 2147483648\nDate: Fri, 31 Dec 9999 23:59:59 GMT",
    ])
    func soundExchangesBreakNoInvariant(text: String) {
        #expect(HTTPCacheProbe.check(HTTPCacheProbe.exchange(parsing: text)) == [])
    }

    @Test(arguments: ["{", "{\"status\":200}", "{\"status\":-1,\"headers\":{\"fields\":[]},\"requestTime\":1e300,\"responseTime\":-1e300,\"varyingRequestHeaders\":{}}"])
    func metadataTheCacheCannotUseIsAMiss(json: String) {
        #expect(HTTPCacheProbe.checkStoredMetadata(Data(json.utf8), requestHeaders: [], now: HTTPCacheProbe.epoch) == [])
    }
}
