import Foundation
import ShashinCore

/// An APNG's frames decoded on demand (`AnimationDelivery.frameSource`): each reader keeps the
/// canvas (`APNGCanvas`) and the index of the next frame to draw on it, so playing frame n after
/// frame n − 1 decodes and draws one frame. A frame further on draws the frames between without
/// shrinking them; an earlier one (a new loop) starts from a clear canvas, or from a copy of the
/// canvas saved on the way (`AnimationCheckpoints`) when there is one before it. The frames are
/// those the whole decode gives, drawn by the same code.
struct APNGFrames: AnimationFrameDecoding {
    let pinned: PinnedData
    let structure: APNGStructure
    let target: (width: Int, height: Int)
    let maxPixelCount: Int
    let memoryBudget: DecodeMemoryBudget
    let estimate: DecodeMemoryEstimate

    func makeReader() throws -> any AnimationFrameReading { Reader(frames: self) }

    /// One playback's canvas.
    final class Reader: AnimationFrameCheckpointing {
        let frames: APNGFrames
        private var canvas: APNGCanvas?
        private var next = 0

        init(frames: APNGFrames) { self.frames = frames }

        func frame(at index: Int) throws -> Bitmap {
            try VipsImageDecoder.readingFrame(.png, onFailure: { canvas = nil }) { try decode(index, checkpoints: nil) }
        }

        /// Frame `index`, starting from a canvas saved in `checkpoints` when that draws fewer frames,
        /// and saving copies of the canvas (after each frame's disposal) that `checkpoints` wants.
        func frame(at index: Int, checkpoints: AnimationCheckpoints) throws -> Bitmap {
            try VipsImageDecoder.readingFrame(.png, onFailure: { canvas = nil }) { try decode(index, checkpoints: checkpoints) }
        }

        private func decode(_ index: Int, checkpoints: AnimationCheckpoints?) throws -> Bitmap {
            let layouts = frames.structure.frames
            guard index < layouts.count else {
                throw DecodingFailure(stage: .pixels, libvipsLines: ["frame \(index) is past the file's \(layouts.count) frames"])
            }
            if let checkpoints, let saved = checkpoints.start(for: index, next: canvas == nil ? 0 : next),
               let restored = saved.state as? APNGCanvas {
                canvas = restored
                next = saved.index + 1
            } else if index < next || canvas == nil {
                canvas = APNGCanvas(width: frames.structure.width, height: frames.structure.height)
                next = 0
            }
            guard var canvas else { preconditionFailure("the canvas was just made") }
            self.canvas = nil
            let reservation = try frames.memoryBudget.reserve(frames.estimate.bytes)
            defer { reservation.release() }
            let bytes = frames.pinned.bytes
            while next < index {
                let region = try VipsImageDecoder.decodeRegion(of: layouts[next], in: bytes, structure: frames.structure)
                canvas.draw(region, as: layouts[next]) { _ in () }
                if let checkpoints, checkpoints.wants(after: next) { checkpoints.keep(canvas, after: next, byteCount: canvas.pixels.count) }
                next += 1
                DecodedFrameCounter.add(1)
            }
            let region = try VipsImageDecoder.decodeRegion(of: layouts[index], in: bytes, structure: frames.structure)
            let target = frames.target, maxPixelCount = frames.maxPixelCount
            let shown = try canvas.draw(region, as: layouts[index]) { whole in
                guard whole.width != target.width || whole.height != target.height else { return whole }
                return try VipsImageDecoder.during(.thumbnail) {
                    try VipsProcessing.resize(whole, width: target.width, height: target.height, maxPixelCount: maxPixelCount,
                                              directShrinkLimit: .max, boxGap: 2)
                }
            }
            if let checkpoints, checkpoints.wants(after: index) { checkpoints.keep(canvas, after: index, byteCount: canvas.pixels.count) }
            DecodedFrameCounter.add(1)
            next = index + 1
            self.canvas = canvas
            return shown
        }
    }
}
