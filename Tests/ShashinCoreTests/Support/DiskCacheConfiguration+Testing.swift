import Foundation
@testable import ShashinCore

extension DiskCache.Configuration {
    /// A configuration of `directory` with the given settings in one call, for tests.
    init(directory: URL, sizeLimit: Int = DiskCache.defaultSizeLimit, trimRatio: Double = 0.7,
         inlineThreshold: Int = DiskCache.defaultInlineThreshold, syncsFiles: Bool = true, maxAge: TimeInterval? = nil,
         now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(directory: directory)
        self.sizeLimit = sizeLimit
        self.trimRatio = trimRatio
        self.inlineThreshold = inlineThreshold
        self.syncsFiles = syncsFiles
        self.maxAge = maxAge
        self.now = now
    }
}
