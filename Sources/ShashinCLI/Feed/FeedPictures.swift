import Foundation
import Shashin
import ShashinFeed

/// The demo's pictures: every strategy's final screen side by side, and every strategy's
/// timeline (rows × time: placeholder, preview, own image, wrong image) side by side.
enum FeedPictures {
    static let background: FeedCanvas.Colour = (246, 246, 246)
    static let ink: FeedCanvas.Colour = (40, 40, 40)
    static let waiting: FeedCanvas.Colour = (240, 160, 48)
    static let shown: FeedCanvas.Colour = (64, 160, 96)
    static let preview: FeedCanvas.Colour = (64, 150, 230)
    static let wrong: FeedCanvas.Colour = (224, 32, 32)
    static let failed: FeedCanvas.Colour = (140, 60, 170)
    static let rest: FeedCanvas.Colour = (226, 234, 250)

    /// One strategy's last frame: each visible row and what its cell showed.
    struct Screen {
        let strategy: String
        let rows: [(row: Int, image: Bitmap?, state: FeedRecording.RowState)]
    }

    /// Cells of `cellSize` px: the thumbnail (or a placeholder) on the left, the row number on
    /// the right; a red frame marks an image of another row, a blue one a progressive preview.
    static func finalScreens(_ screens: [Screen], truth: [Int: UInt64], cellSize: Int) -> Bitmap {
        let panelWidth = cellSize + 120, cellHeight = cellSize + 8, header = 30, gap = 16
        let rows = screens.map(\.rows.count).max() ?? 0
        var canvas = FeedCanvas(width: screens.count * (panelWidth + gap) + gap, height: header + rows * cellHeight + gap,
                                background: background)
        for (index, screen) in screens.enumerated() {
            let x = gap + index * (panelWidth + gap)
            canvas.text(screen.strategy, x: x, y: 8, scale: 3, ink)
            for (position, row) in screen.rows.enumerated() {
                let y = header + position * cellHeight
                canvas.fill(x: x, y: y, width: panelWidth, height: cellHeight - 2, (255, 255, 255))
                switch row.state {
                case .image(let fingerprint):
                    if let image = row.image {
                        canvas.draw(image, x: x + 4 + (cellSize - image.width) / 2, y: y + 3 + (cellSize - image.height) / 2)
                    }
                    if truth[row.row] != fingerprint {
                        canvas.frame(x: x, y: y, width: panelWidth, height: cellHeight - 2, thickness: 4, wrong)
                    }
                case .placeholder, .empty:
                    canvas.fill(x: x + 4, y: y + 3, width: cellSize, height: cellSize, (208, 208, 208))
                case .preview:
                    if let image = row.image {
                        canvas.draw(image, x: x + 4 + (cellSize - image.width) / 2, y: y + 3 + (cellSize - image.height) / 2)
                    }
                    canvas.frame(x: x, y: y, width: panelWidth, height: cellHeight - 2, thickness: 4, preview)
                case .failure:
                    canvas.fill(x: x + 4, y: y + 3, width: cellSize, height: cellSize, failed)
                }
                canvas.text("\(row.row)", x: x + cellSize + 16, y: y + cellSize / 2 - 7, scale: 3, ink)
            }
        }
        return canvas.bitmap
    }

    /// Time runs right (`pixelsPerSecond`), rows run down (`pixelsPerRow`); light blue bands are
    /// the rests; each visible row is orange while it waits, blue while it shows a progressive
    /// preview, green with its own image, red with another row's.
    static func timelines(_ recordings: [FeedRecording], script: FeedScript, truth: [Int: UInt64],
                          pixelsPerSecond: Double = 60, pixelsPerRow: Int = 2) -> Bitmap {
        let allRows = recordings.flatMap { $0.frames.flatMap { $0.rows.map(\.row) } }
        let firstRow = allRows.min() ?? 0, lastRow = allRows.max() ?? 0
        let header = 30, gap = 16
        let plotWidth = Int(script.duration * pixelsPerSecond) + 2
        let plotHeight = (lastRow - firstRow + 1) * pixelsPerRow
        var canvas = FeedCanvas(width: recordings.count * (plotWidth + gap) + gap, height: header + plotHeight + gap,
                                background: background)
        for (index, recording) in recordings.enumerated() {
            let x0 = gap + index * (plotWidth + gap)
            canvas.text(recording.strategy, x: x0, y: 8, scale: 3, ink)
            canvas.fill(x: x0, y: header, width: plotWidth, height: plotHeight, (255, 255, 255))
            for rest in script.restPeriods {
                canvas.fill(x: x0 + Int(rest.start * pixelsPerSecond), y: header,
                            width: Int((rest.end - rest.start) * pixelsPerSecond), height: plotHeight, self.rest)
            }
            for second in 0...Int(script.duration) {
                canvas.fill(x: x0 + Int(Double(second) * pixelsPerSecond), y: header - 4, width: 1, height: 4, ink)
            }
            for (frameIndex, frame) in recording.frames.enumerated() {
                let x = x0 + Int(frame.time * pixelsPerSecond)
                let next = frameIndex + 1 < recording.frames.count ? recording.frames[frameIndex + 1].time : frame.time + 1 / 60
                let width = max(1, x0 + Int(next * pixelsPerSecond) - x)
                for (row, state) in frame.rows {
                    let colour: FeedCanvas.Colour = switch state {
                    case .empty, .placeholder: waiting
                    case .preview: preview
                    case .image(let fingerprint): truth[row] == fingerprint ? shown : wrong
                    case .failure: failed
                    }
                    canvas.fill(x: x, y: header + (row - firstRow) * pixelsPerRow, width: width, height: pixelsPerRow, colour)
                }
            }
        }
        return canvas.bitmap
    }
}
