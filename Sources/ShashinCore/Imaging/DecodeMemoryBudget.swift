import Foundation

/// Memory that decodes in flight may hold at once, shared by every decode given the same
/// budget: each reserves its estimated peak (from the image's header) before decoding and
/// releases it after, so two cores decoding at once cannot each take the whole of it.
///
/// A decode whose estimate alone is over the budget fails at once with
/// `ImagePipelineError.decodeMemoryExceeded`; one that fits waits, first come first served,
/// until the decodes ahead of it have released enough.
///
/// ```swift
/// var configuration = ImagePipeline.Configuration()
/// configuration.decodeMemoryBudget = DecodeMemoryBudget(bytes: 1 << 30)   // a server with memory to spare
/// ```
public final class DecodeMemoryBudget: @unchecked Sendable { // `reserved`, `nextTicket`, `serving` behind `condition`
    /// The budget's size in bytes.
    public let bytes: Int

    private let condition = NSCondition()
    private var reserved = 0
    private var nextTicket = 0
    private var serving = 0

    /// 256 MB, shared by every pipeline that does not configure its own.
    ///
    /// Sized for a phone: iOS ends an app whose footprint passes roughly 1.5–2 GB on a 3–4 GB
    /// device, and decoding is transient memory on top of the caches and the UI. 256 MB decodes
    /// a 48 MP photo (8064×6048, 195 MB as RGBA) in full, any thumbnail that streams (baseline
    /// JPEG, non-interlaced PNG), and a progressive 4:2:0 JPEG up to about 40 MP as a thumbnail,
    /// while refusing what made phones fall over: a 10000×10000 16-bit interlaced PNG (about
    /// 800 MB before any output), a 10000×10000 progressive JPEG (300–600 MB of coefficients)
    /// and a 100 MP image decoded in full (400 MB of output).
    public static let defaultBytes = 256 << 20

    /// The process-wide budget of `defaultBytes`.
    public static let shared = DecodeMemoryBudget(bytes: defaultBytes)

    /// Creates a budget of `bytes`.
    public init(bytes: Int) {
        self.bytes = max(0, bytes)
    }

    /// Bytes reserved by decodes in flight.
    public var reservedBytes: Int {
        condition.locked { reserved }
    }

    /// Reserves `estimate` bytes, waiting (blocking the calling thread) for earlier reservations
    /// to be released when the budget is short; throws `.decodeMemoryExceeded` at once when
    /// `estimate` is over the whole budget. Release the reservation when the decode ends.
    public func reserve(_ estimate: Int) throws(ImagePipelineError) -> Reservation {
        let estimate = max(0, estimate)
        guard estimate <= bytes else { throw .decodeMemoryExceeded(estimate: estimate, budget: bytes) }
        condition.locked {
            let ticket = nextTicket
            nextTicket += 1
            while ticket != serving || reserved + estimate > bytes { condition.wait() }
            reserved += estimate
            serving += 1
            condition.broadcast()
        }
        return Reservation(budget: self, bytes: estimate)
    }

    /// Reserves `estimate` bytes when they fit now and no reservation is waiting; `nil`
    /// otherwise, at once. For work that may be skipped (a progressive preview's session, which
    /// holds its reservation for a whole download) and must not make decodes wait behind it.
    package func reserveIfAvailable(_ estimate: Int) -> Reservation? {
        let estimate = max(0, estimate)
        let fits = condition.locked { () -> Bool in
            guard nextTicket == serving, reserved + estimate <= bytes else { return false }
            reserved += estimate
            return true
        }
        return fits ? Reservation(budget: self, bytes: estimate) : nil
    }

    fileprivate func release(_ amount: Int) {
        condition.locked {
            reserved -= amount
            condition.broadcast()
        }
    }

    /// Bytes held from a budget until `release()` (or deinitialisation) gives them back.
    public final class Reservation: Sendable {
        /// The bytes held.
        public let bytes: Int
        private let budget: DecodeMemoryBudget
        private let isReleased = Locked(false)

        fileprivate init(budget: DecodeMemoryBudget, bytes: Int) {
            self.budget = budget
            self.bytes = bytes
        }

        deinit { release() }

        /// Gives the bytes back; later calls do nothing.
        public func release() {
            let first = isReleased.withLock { released -> Bool in
                defer { released = true }
                return !released
            }
            if first { budget.release(bytes) }
        }
    }
}
