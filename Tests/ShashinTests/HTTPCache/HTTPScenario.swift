import Foundation
import ImageServer
import Shashin
import Testing

/// One HTTP-caching scenario: what the server answers and what each request should get.
struct HTTPScenario: CustomTestStringConvertible, Sendable {
    /// What a step expects of the cache.
    enum Expect: Sendable, Equatable {
        /// A plain request reached the server (no validator sent) and its answer was returned.
        case network
        /// A conditional request reached the server, which answered with a new 200.
        case replaced
        /// A conditional request got 304; the stored bytes were served.
        case revalidated
        /// Served from storage; the server saw nothing.
        case cache
        /// `ImagePipelineError.cacheMiss`; the server saw nothing.
        case cacheMiss
    }

    struct Step: Sendable {
        /// Seconds the clock moves before this request.
        var after: TimeInterval = 0
        /// Request header fields.
        var headers: [String: String] = [:]
        var expect: Expect
        /// An extra check on the answer.
        var check: (@Sendable (HTTPCachedResponse) -> Bool)?
    }

    /// Response header fields for the server's n-th answer (1-based), given the scenario's start
    /// and the clock now. A `Date` of `now` is added unless given.
    typealias Headers = @Sendable (_ ordinal: Int, _ start: Date, _ now: Date) -> [String: String]

    let section: String
    let name: String
    var status = 200
    var headers: Headers
    var steps: [Step]

    var testDescription: String { "\(section): \(name)" }

    /// The body of the server's n-th answer: different each time, in content and length, so a test
    /// sees which one it got and which Content-Length belongs to it.
    static func body(_ ordinal: Int) -> Data { Data(("representation " + String(repeating: "#", count: ordinal)).utf8) }

    init(_ section: String, _ name: String, status: Int = 200, headers: @escaping Headers, _ steps: [Step]) {
        self.section = section
        self.name = name
        self.status = status
        self.headers = headers
        self.steps = steps
    }

    /// A scenario whose response header fields do not change.
    init(_ section: String, _ name: String, status: Int = 200, headers: [String: String], _ steps: [Step]) {
        self.init(section, name, status: status, headers: { _, _, _ in headers }, steps)
    }
}

func step(_ expect: HTTPScenario.Expect, headers: [String: String] = [:],
          check: (@Sendable (HTTPCachedResponse) -> Bool)? = nil) -> HTTPScenario.Step {
    step(0, expect, headers: headers, check: check)
}

func step(_ after: TimeInterval, _ expect: HTTPScenario.Expect, headers: [String: String] = [:],
          check: (@Sendable (HTTPCachedResponse) -> Bool)? = nil) -> HTTPScenario.Step {
    HTTPScenario.Step(after: after, headers: headers, expect: expect, check: check)
}

func httpDate(_ date: Date) -> String { HTTPDate.format(date) }
