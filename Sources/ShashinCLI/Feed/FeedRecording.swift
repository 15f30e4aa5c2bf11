import Foundation

/// What one strategy's run of the script left behind, for the metrics and the pictures.
struct FeedRecording {
    /// What a visible row showed in one frame.
    enum RowState: Equatable {
        case empty
        case placeholder
        case image(fingerprint: UInt64)
        case failure
    }

    struct ImageEvent {
        let time: Double
        let row: Int
        let fingerprint: UInt64
    }

    struct Frame {
        let time: Double
        let rows: [(row: Int, state: RowState)]
    }

    let strategy: String
    var imageEvents: [ImageEvent] = []
    /// Row → the times it came on screen.
    var entries: [Int: [Double]] = [:]
    var frames: [Frame] = []
    /// Cells configured for a row whose image was in memory, and how many of them showed a
    /// placeholder (or anything but an image) for it.
    var memoryConfigures = 0
    var flashes = 0
    /// Server counters at the end of the script.
    var bytesSent = 0
    var requests = 0
    var maxInFlight = 0
    var sources: [String: Int] = [:]
    var seconds = 0.0
}
