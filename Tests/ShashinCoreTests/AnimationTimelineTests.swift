import Foundation
import Testing
import ShashinCore

/// Which frame a view shows when it plays an animation itself.
@Suite struct AnimationTimelineTests {
    @Test func framesFollowTheirDurationsAndRepeat() {
        let timeline = AnimationTimeline(durations: [0.5, 0.25, 1], loopCount: 0)
        #expect(timeline.cycle == 1.75)
        #expect(timeline.frame(at: 0) == (0, 0.5))
        #expect(timeline.frame(at: 0.5) == (1, 0.25))
        #expect(timeline.frame(at: 1) == (2, 0.75))
        #expect(timeline.frame(at: 1.75) == (0, 0.5), "forever: the second pass starts")
        #expect(timeline.frame(at: 1.75 * 1000 + 0.5) == (1, 0.25))
    }

    @Test func aLoopCountEndsOnTheLastFrame() {
        let timeline = AnimationTimeline(durations: [0.5, 0.5], loopCount: 2)
        #expect(timeline.frame(at: 1.5) == (1, 0.5))
        #expect(timeline.frame(at: 2) == (1, nil))
        #expect(timeline.frame(at: 100) == (1, nil))
    }

    @Test func framesUnder20MillisecondsShowFor100() {
        let timeline = AnimationTimeline(durations: [0, 0.01, 0.02, .nan], loopCount: 0)
        #expect(timeline.durations == [0.1, 0.1, 0.02, 0.1])
    }

    @Test func oneFrameStays() {
        #expect(AnimationTimeline(durations: [0.3], loopCount: 0).frame(at: 5) == (0, nil))
        #expect(AnimationTimeline(durations: [], loopCount: 0).frame(at: 5) == (0, nil))
    }
}
