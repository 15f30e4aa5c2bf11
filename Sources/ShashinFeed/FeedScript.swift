import Foundation
import ShashinCore

/// A scripted scroll of a feed: rests, drags at constant speed and flings that decelerate like
/// iOS scroll views (velocity × 0.998 per millisecond, a time constant of about 0.5 s), in rows.
///
/// The default script rests at the top, drags a few rows, flicks four times in a row and lets
/// the last fling coast (about 200 rows in all), rests, drags back, flings back, rests, then
/// flings once more and catches the list mid-fling (the prediction is wrong), and rests.
package struct FeedScript: Sendable {
    package enum Segment: Sendable {
        /// Nothing moves for `seconds`.
        case rest(seconds: Double)
        /// The finger moves the list by `rows` over `seconds` (0 rows: the finger holds it).
        case drag(rows: Double, seconds: Double)
        /// The list is flung at `velocity` rows per second and decelerates; the next segment
        /// cuts it after `seconds`, or it coasts until it nearly stops (`nil`).
        case fling(velocity: Double, seconds: Double?)
    }

    /// Where the list is at one moment.
    package struct Moment: Sendable {
        /// The top of the viewport, in rows.
        package var offset: Double
        /// How the list moves; during a fling it carries the landing predicted when the finger
        /// lifted (``FeedScript/predictedLanding(releaseOffset:velocity:maxOffset:)``).
        package var scroll: ScrollState
    }

    /// UIScrollView's normal deceleration: the velocity keeps this fraction per millisecond.
    package static let decelerationPerMillisecond = ScrollState.normalDecelerationRate
    /// The time constant of the deceleration, in seconds: v(t) = v₀·e^(−t/τ), τ = −1 ms / ln 0.998.
    package static let tau = -0.001 / log(decelerationPerMillisecond)
    /// Below this speed (rows per second) a coasting fling has stopped.
    package static let stopVelocity = 2.0

    package let segments: [Segment]
    /// The timeline: each segment's start time, start offset and duration, precomputed.
    private let starts: [(time: Double, offset: Double, duration: Double)]
    /// How long the script runs.
    package let duration: Double

    package init(segments: [Segment]) {
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

    package static let standard = FeedScript(segments: [
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
        // The finger catches a fling a third of the way to where it was predicted to land.
        .fling(velocity: 120, seconds: 0.2),
        .drag(rows: 0, seconds: 0.3),
        .rest(seconds: 1.5),
    ])

    /// Where a fling released at `releaseOffset` with `velocity` rows per second comes to rest
    /// under the script's deceleration law, within `0...maxOffset` (a list stops at its ends):
    /// it coasts until ``stopVelocity``, so the release offset plus (v − v_stop)·τ, as UIKit's
    /// `targetContentOffset` is where its scroll view stops. This is what a view layer knows when
    /// the finger lifts, and all of it: a later flick or a catch is not in it.
    package static func predictedLanding(releaseOffset: Double, velocity: Double, maxOffset: Double) -> Double {
        let coasting = max(0, abs(velocity) - stopVelocity) * (velocity < 0 ? -1 : 1)
        return min(max(0, ScrollState.predictedRestingOffset(releaseOffset: releaseOffset, velocity: coasting,
                                                             decelerationRate: decelerationPerMillisecond)), maxOffset)
    }

    /// The position and motion at `time` seconds, with the offset clamped to `0...maxOffset`.
    /// During a fling, the scroll state carries the landing predicted from the segment's release
    /// (its start offset and velocity): never from how long the fling will really run.
    package func moment(at time: Double, maxOffset: Double) -> Moment {
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
        case .fling(let velocity, _):
            let release = min(max(0, start.offset), maxOffset)
            scroll = ScrollState(phase: .decelerating, velocity: velocity * exp(-elapsed / Self.tau),
                                 predictedRestingOffset: Self.predictedLanding(releaseOffset: release, velocity: velocity,
                                                                               maxOffset: maxOffset))
        }
        // A list pinned at either end does not move, whatever the finger does.
        if clamped != offset { scroll = .idle }
        return Moment(offset: clamped, scroll: scroll)
    }

    /// The times the list rests: `[start, end)` of every `.rest` segment.
    package var restPeriods: [(start: Double, end: Double)] {
        zip(segments, starts).compactMap { segment, start in
            if case .rest = segment { (start.time, start.time + start.duration) } else { nil }
        }
    }

    /// The furthest offset the script reaches, unclamped.
    package var maxOffset: Double {
        var furthest = 0.0
        var time = 0.0
        while time <= duration {
            furthest = max(furthest, moment(at: time, maxOffset: .infinity).offset)
            time += 0.01
        }
        return furthest
    }

    /// The rows on screen when the top of the viewport is at `offset`.
    package static func visibleRows(offset: Double, viewportRows: Int, rows: Int) -> [Int] {
        let first = max(0, Int(offset.rounded(.down)))
        let last = min(rows - 1, Int((offset + Double(viewportRows)).rounded(.up)) - 1)
        return first <= last ? Array(first...last) : []
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
