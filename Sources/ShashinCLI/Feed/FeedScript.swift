import Foundation
import Shashin

/// A scripted scroll of a feed: rests, drags at constant speed and flings that decelerate like
/// iOS scroll views (velocity × 0.998 per millisecond, a time constant of 0.5 s), in rows.
///
/// The default script rests at the top, drags a few rows, flicks four times in a row and lets
/// the last fling coast (about 200 rows in all), rests, drags back, flings back, and rests.
struct FeedScript {
    enum Segment {
        /// Nothing moves for `seconds`.
        case rest(seconds: Double)
        /// The finger moves the list by `rows` over `seconds`.
        case drag(rows: Double, seconds: Double)
        /// The list is flung at `velocity` rows per second and decelerates; the next segment
        /// cuts it after `seconds`, or it coasts until it nearly stops (`nil`).
        case fling(velocity: Double, seconds: Double?)
    }

    /// Where the list is at one moment.
    struct Moment {
        /// The top of the viewport, in rows.
        var offset: Double
        var scroll: ScrollState
    }

    /// The time constant of the deceleration.
    static let tau = 0.5
    /// Below this speed (rows per second) a coasting fling has stopped.
    static let stopVelocity = 2.0

    let segments: [Segment]
    /// The timeline: each segment's start time, start offset and duration, precomputed.
    private let starts: [(time: Double, offset: Double, duration: Double)]
    /// How long the script runs.
    let duration: Double

    init(segments: [Segment]) {
        self.segments = segments
        var time = 0.0, offset = 0.0
        var starts: [(Double, Double, Double)] = []
        for segment in segments {
            let duration = Self.duration(of: segment)
            starts.append((time, offset, duration))
            offset += Self.distance(of: segment, after: duration)
            time += duration
        }
        self.starts = starts
        self.duration = time
    }

    static let standard = FeedScript(segments: [
        .rest(seconds: 0.8),
        .drag(rows: 5, seconds: 0.5),
        .rest(seconds: 0.8),
        .fling(velocity: 150, seconds: 0.3),
        .fling(velocity: 150, seconds: 0.3),
        .fling(velocity: 150, seconds: 0.3),
        .fling(velocity: 150, seconds: 0.3),
        .fling(velocity: 150, seconds: nil),
        .rest(seconds: 1.0),
        .drag(rows: -3, seconds: 0.4),
        .fling(velocity: -100, seconds: nil),
        .rest(seconds: 1.5),
    ])

    /// The position and motion at `time` seconds, with the offset clamped to `0...maxOffset`.
    func moment(at time: Double, maxOffset: Double) -> Moment {
        guard let index = starts.lastIndex(where: { $0.time <= time }) else {
            return Moment(offset: 0, scroll: .idle)
        }
        let start = starts[index]
        let elapsed = min(time - start.time, start.duration)
        let segment = elapsed >= start.duration && index == segments.count - 1 ? Segment.rest(seconds: 0) : segments[index]
        let offset = start.offset + Self.distance(of: segment, after: elapsed)
        let clamped = min(max(0, offset), maxOffset)
        var scroll: ScrollState
        switch segment {
        case .rest: scroll = .idle
        case .drag(let rows, let seconds): scroll = ScrollState(phase: .dragging, velocity: rows / seconds)
        case .fling(let velocity, _): scroll = ScrollState(phase: .decelerating, velocity: velocity * exp(-elapsed / Self.tau))
        }
        // A list pinned at either end does not move, whatever the finger does.
        if clamped != offset { scroll = .idle }
        return Moment(offset: clamped, scroll: scroll)
    }

    /// The times the list rests: `[start, end)` of every `.rest` segment.
    var restPeriods: [(start: Double, end: Double)] {
        zip(segments, starts).compactMap { segment, start in
            if case .rest = segment { (start.time, start.time + start.duration) } else { nil }
        }
    }

    /// The furthest offset the script reaches, unclamped.
    var maxOffset: Double {
        var furthest = 0.0
        var time = 0.0
        while time <= duration {
            furthest = max(furthest, moment(at: time, maxOffset: .infinity).offset)
            time += 0.01
        }
        return furthest
    }

    private static func duration(of segment: Segment) -> Double {
        switch segment {
        case .rest(let seconds), .drag(_, let seconds): seconds
        case .fling(let velocity, let seconds): seconds ?? tau * log(max(1, abs(velocity) / stopVelocity))
        }
    }

    private static func distance(of segment: Segment, after elapsed: Double) -> Double {
        switch segment {
        case .rest: 0
        case .drag(let rows, let seconds): rows * min(1, elapsed / seconds)
        case .fling(let velocity, _): velocity * tau * (1 - exp(-elapsed / tau))
        }
    }
}
