import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import ShashinCore
import Testing

/// What may be resumed and how a 206 is read (RFC 9110 §14), and the store's byte limit.
@Suite("Resumable data: validators, Content-Range, the store")
struct ResumableDataTests {
    let url = URL(string: "http://example.com/a.png")!

    func response(_ status: Int, _ fields: [String: String]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)!
    }

    @Test func aStrongETagWithAcceptRangesAndALengthIsKept() throws {
        let kept = try #require(ResumableData(interrupted: response(200, ["ETag": "\"v1\"", "Accept-Ranges": "bytes",
                                                                          "Content-Length": "10"]),
                                              received: Data(repeating: 1, count: 4), continuing: nil))
        #expect(kept.validator == "\"v1\"" && kept.totalLength == 10 && kept.data.count == 4)
    }

    @Test func withoutAcceptRangesALengthOrAStrongValidatorNothingIsKept() {
        let body = Data(repeating: 1, count: 4)
        let cases: [[String: String]] = [
            ["ETag": "\"v1\"", "Content-Length": "10"],
            ["ETag": "\"v1\"", "Accept-Ranges": "none", "Content-Length": "10"],
            ["ETag": "\"v1\"", "Accept-Ranges": "bytes"],
            ["ETag": "W/\"v1\"", "Accept-Ranges": "bytes", "Content-Length": "10"],
            ["Accept-Ranges": "bytes", "Content-Length": "10"],
            ["ETag": "\"v1\"", "Accept-Ranges": "bytes", "Content-Length": "10", "Content-Encoding": "gzip"],
            ["Last-Modified": "Tue, 24 Nov 2026 10:00:00 GMT", "Date": "Tue, 24 Nov 2026 10:00:00 GMT",
             "Accept-Ranges": "bytes", "Content-Length": "10"],
        ]
        for fields in cases {
            #expect(ResumableData(interrupted: response(200, fields), received: body, continuing: nil) == nil, "\(fields)")
        }
        // Nothing received, or everything: nothing to resume.
        let good = ["ETag": "\"v1\"", "Accept-Ranges": "bytes", "Content-Length": "4"]
        #expect(ResumableData(interrupted: response(200, good), received: Data(), continuing: nil) == nil)
        #expect(ResumableData(interrupted: response(200, good), received: body, continuing: nil) == nil)
    }

    @Test func aLastModifiedASecondOlderThanDateIsAValidator() throws {
        let fields = ["Last-Modified": "Tue, 24 Nov 2026 09:59:59 GMT", "Date": "Tue, 24 Nov 2026 10:00:00 GMT",
                      "Accept-Ranges": "bytes", "Content-Length": "10"]
        let kept = try #require(ResumableData(interrupted: response(200, fields), received: Data([1]), continuing: nil))
        #expect(kept.validator == "Tue, 24 Nov 2026 09:59:59 GMT")
    }

    @Test func anInterrupted206ExtendsWhatItContinued() throws {
        let prefix = try #require(ResumableData(data: Data([1, 2, 3]), validator: "\"v1\"", totalLength: 10))
        let fields = ["Content-Range": "bytes 3-9/10", "ETag": "\"v1\""]
        let kept = try #require(ResumableData(interrupted: response(206, fields), received: Data([4, 5]), continuing: prefix))
        #expect(kept.data == Data([1, 2, 3, 4, 5]) && kept.totalLength == 10)
        // Another start, another total, another tag: not a continuation.
        for fields in [["Content-Range": "bytes 2-9/10"], ["Content-Range": "bytes 3-10/11"],
                       ["Content-Range": "bytes 3-9/10", "ETag": "\"v2\""], [:]] {
            #expect(ResumableData(interrupted: response(206, fields), received: Data([4]), continuing: prefix) == nil, "\(fields)")
        }
    }

    @Test func contentRangeParsesOnlySatisfiedRangesWithALength() {
        #expect(ContentRange("bytes 0-99/100") == ContentRange("bytes 0-99/100"))
        let range = ContentRange("bytes 10-99/100")
        #expect(range?.first == 10 && range?.last == 99 && range?.completeLength == 100)
        for value in ["bytes */100", "bytes 0-99/*", "bytes 5-4/100", "bytes 0-100/100", "items 0-1/2", "bytes 0-1", "bytes -1-2/3",
                      "bytes 0-99999999999999999999/99999999999999999999", nil] {
            #expect(ContentRange(value) == nil, "\(value ?? "nil")")
        }
    }

    @Test func theStoreStaysWithinItsByteLimitLeastRecentlyUsedFirst() throws {
        let store = ResumableDataStore(byteLimit: 10)
        func value(_ count: Int) throws -> ResumableData {
            try #require(ResumableData(data: Data(repeating: 0, count: count), validator: "\"v\"", totalLength: 100))
        }
        store.store(try value(4), forKey: "a")
        store.store(try value(4), forKey: "b")
        _ = store.value(forKey: "a")               // "b" is now the least recently used
        store.store(try value(4), forKey: "c")
        #expect(store.value(forKey: "b") == nil)
        #expect(store.value(forKey: "a") != nil && store.value(forKey: "c") != nil)
        #expect(store.totalBytes == 8 && store.count == 2)
        store.store(try value(11), forKey: "d")    // larger than the limit: not kept
        #expect(store.value(forKey: "d") == nil && store.totalBytes == 8)
        store.removeAll()
        #expect(store.totalBytes == 0 && store.count == 0)
    }
}
