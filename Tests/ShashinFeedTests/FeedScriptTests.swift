import Foundation
import ShashinCore
import Testing
@testable import ShashinFeed

/// The scripted scroll hands the loader a landing the way UIKit would: from the release alone.
@Suite("FeedScript: flings and their predicted landing")
struct FeedScriptTests {
    @Test func theTimeConstantFollowsTheDecelerationLaw() {
        // 0.998 per millisecond: after τ seconds the velocity has fallen to 1/e.
        #expect(abs(pow(0.998, FeedScript.tau * 1000) - exp(-1)) < 1e-12)
        #expect(abs(FeedScript.tau - 0.4995) < 0.0001)
    }

    @Test func aCoastingFlingStopsWhereItWasPredictedAtTheLift() {
        let script = FeedScript(segments: [.rest(seconds: 0.5), .fling(velocity: 150, seconds: nil), .rest(seconds: 1)])
        let lift = script.moment(at: 0.51, maxOffset: 1000)
        let predicted = try! #require(lift.scroll.predictedRestingOffset)
        let rest = script.moment(at: script.duration - 0.5, maxOffset: 1000)
        #expect(rest.scroll == .idle)
        // It coasts until 2 rows/s, a row short of the law's limit v·τ: the prediction is where it stops.
        #expect(abs(rest.offset - predicted) < 1e-9)
        #expect(abs(predicted - (150 - FeedScript.stopVelocity) * FeedScript.tau) < 1e-9)
    }

    @Test func aCutFlickKeepsItsOwnPredictionUntilTheNextFlickReplacesIt() {
        let script = FeedScript(segments: [.fling(velocity: 100, seconds: 0.3), .fling(velocity: 100, seconds: nil)])
        let first = script.moment(at: 0.29, maxOffset: 1000)
        let coast = (100 - FeedScript.stopVelocity) * FeedScript.tau
        #expect(abs(first.scroll.predictedRestingOffset! - coast) < 1e-9) // not where the cut leaves it
        let second = script.moment(at: 0.31, maxOffset: 1000)
        let released = 100 * FeedScript.tau * (1 - exp(-0.3 / FeedScript.tau))
        #expect(abs(second.scroll.predictedRestingOffset! - (released + coast)) < 1e-9)
    }

    @Test func aCaughtFlingLosesItsPredictionAndStopsShortOfIt() {
        let script = FeedScript(segments: [.fling(velocity: 120, seconds: 0.2), .drag(rows: 0, seconds: 0.3), .rest(seconds: 1)])
        let predicted = script.moment(at: 0.1, maxOffset: 1000).scroll.predictedRestingOffset!
        let caught = script.moment(at: 0.3, maxOffset: 1000)
        #expect(caught.scroll.phase == .dragging && caught.scroll.velocity == 0)
        #expect(caught.scroll.predictedRestingOffset == nil)
        let stopped = script.moment(at: 1.0, maxOffset: 1000).offset
        #expect(predicted - stopped > 20)
    }

    @Test func thePredictionStopsAtTheEndsOfTheList() {
        let script = FeedScript(segments: [.fling(velocity: -100, seconds: nil)])
        #expect(script.moment(at: 0, maxOffset: 500).scroll.predictedRestingOffset == 0)
        #expect(FeedScript.predictedLanding(releaseOffset: 480, velocity: 100, maxOffset: 492) == 492)
    }

    @Test func visibleRowsCoverPartlyVisibleRows() {
        #expect(FeedScript.visibleRows(offset: 5, viewportRows: 2, rows: 20) == [5, 6])
        #expect(FeedScript.visibleRows(offset: 5.5, viewportRows: 2, rows: 20) == [5, 6, 7])
        #expect(FeedScript.visibleRows(offset: 19, viewportRows: 2, rows: 20) == [19])
    }
}
