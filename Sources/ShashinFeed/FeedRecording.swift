import Foundation

/// What one strategy's run of the script left behind, for the metrics and the pictures.
package struct FeedRecording: Sendable {
    /// What a visible row showed in one frame.
    package enum RowState: Equatable, Sendable {
        case empty
        case placeholder
        /// A progressive preview of the row's image: not the image yet, never another row's.
        case preview
        case image(fingerprint: UInt64)
        case failure
    }

    package struct ImageEvent: Sendable {
        package let time: Double
        package let row: Int
        package let fingerprint: UInt64

        package init(time: Double, row: Int, fingerprint: UInt64) {
            self.time = time
            self.row = row
            self.fingerprint = fingerprint
        }
    }

    package struct Frame: Sendable {
        package let time: Double
        package let rows: [(row: Int, state: RowState)]

        package init(time: Double, rows: [(row: Int, state: RowState)]) {
            self.time = time
            self.rows = rows
        }
    }

    package let strategy: String
    package var imageEvents: [ImageEvent] = []
    /// Row → the times a cell showing it showed a progressive preview.
    package var previewEvents: [Int: [Double]] = [:]
    /// Row → the times it came on screen.
    package var entries: [Int: [Double]] = [:]
    package var frames: [Frame] = []
    /// Cells configured for a row whose image was in memory, and how many of them showed a
    /// placeholder (or anything but an image) for it.
    package var memoryConfigures = 0
    package var flashes = 0
    /// Rows in a landing window predicted during the run (the rows on screen at a predicted
    /// resting offset), whether or not the list came to rest there.
    package var predictedRows: Set<Int> = []
    /// Body bytes the server sent for each row (every row the server was asked for).
    package var bytesByRow: [Int: Int] = [:]
    /// Row → the times the server was seen to receive a request for it (checked once a frame,
    /// for the rows near the screen and near a predicted landing).
    package var requestTimes: [Int: [Double]] = [:]
    /// Server counters at the end of the script.
    package var bytesSent = 0
    package var requests = 0
    package var maxInFlight = 0
    package var sources: [String: Int] = [:]
    /// Loads that ended in an error, retries of the images shown, and requests the server
    /// dropped on purpose (`ConnectionDrops`), by the end of the script.
    package var failures = 0
    package var failureKinds: [String: Int] = [:]
    package var retries = 0
    package var droppedRequests = 0
    package var seconds = 0.0

    package init(strategy: String) {
        self.strategy = strategy
    }

    /// Records a cell configured for a row whose image was in memory: a flash when the cell
    /// showed a placeholder during the configure (`placeholdersBefore` → `placeholdersAfter`) or
    /// did not end it showing an image.
    package mutating func recordMemoryConfigure(placeholdersBefore: Int, placeholdersAfter: Int, showsImage: Bool) {
        memoryConfigures += 1
        if placeholdersAfter != placeholdersBefore || !showsImage { flashes += 1 }
    }
}
