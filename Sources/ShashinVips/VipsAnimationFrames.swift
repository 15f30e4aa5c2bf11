import CVips
import Foundation
import ShashinCore

/// A GIF's or WebP's frames decoded on demand (`AnimationDelivery.frameSource`): each reader
/// keeps one libvips image of every frame open, loaded sequentially, and writes one frame at a
/// time from it, so playing frame n after frame n − 1 decodes one frame, not n. libvips (libnsgif,
/// libwebp's demuxer) composes each frame on its canvas as the file's disposal and blending say,
/// exactly as the whole decode's single pass does. Going back (a new loop) opens the file again.
///
/// A GIF reader also saves its canvas as it passes frames (`AnimationCheckpoints`), as GIF frames
/// that draw it (`GIFCanvasFrames`): a read that goes back, or jumps past frames already passed,
/// opens a GIF spliced from the nearest saved canvas and the file's frames after it
/// (`GIFSplice`), and composes only the frames from there. (A WebP reader starts over: libwebp's
/// demuxer cannot start from a canvas.)
struct VipsAnimationFrames: AnimationFrameDecoding {
    let pinned: PinnedData
    let loader: VipsLoader
    /// Frames to load: the complete ones of a GIF cut short, else all (-1).
    let loadedFrames: Int32
    /// WebP's shrink-on-load scale (1 for GIF).
    let scale: Double
    let target: (width: Int, height: Int)
    let maxPixelCount: Int
    let memoryBudget: DecodeMemoryBudget
    let estimate: DecodeMemoryEstimate
    /// A GIF's frames, where they are and how each is disposed of: what a reader needs to start
    /// after a saved canvas. `nil` for a WebP.
    let gifLayout: GIFFrameScan.Result?

    func makeReader() throws -> any AnimationFrameReading { Reader(frames: self) }

    /// Opens the strip of every frame of the file, sequentially; the caller owns the image.
    func open() throws -> (strip: VipsImagePointer, pageHeight: Int, pages: Int) {
        try open(pinned.bytes, frames: loadedFrames)
    }

    /// Opens the strip of `count` frames of `bytes` (-1: all), sequentially.
    private func open(_ bytes: UnsafeRawBufferPointer, frames count: Int32) throws -> (strip: VipsImagePointer, pageHeight: Int, pages: Int) {
        try VipsRuntime.start()
        var out: VipsImagePointer?
        let base = bytes.baseAddress
        let status = loader.format == .webp
            ? shashin_webpload_buffer_frames(base, bytes.count, &out, VIPS_ACCESS_SEQUENTIAL, VIPS_FAIL_ON_TRUNCATED,
                                             min(1, max(scale, 0.0001)), count)
            : shashin_gifload_buffer_frames(base, bytes.count, &out, VIPS_ACCESS_SEQUENTIAL, VIPS_FAIL_ON_TRUNCATED, count)
        guard status == 0, let strip = out else {
            if let out { g_object_unref(UnsafeMutableRawPointer(out)) }
            throw DecodingFailure(stage: .header, libvipsLines: VipsError.fromBuffer().lines)
        }
        let pageHeight = Int(shashin_get_int_or(strip, "page-height", Int32(vips_image_get_height(strip))))
        let height = Int(vips_image_get_height(strip))
        guard pageHeight > 0, height % pageHeight == 0 else {
            g_object_unref(UnsafeMutableRawPointer(strip))
            throw DecodingFailure(stage: .header, libvipsLines: ["frames of \(pageHeight) rows do not fill \(height) rows"])
        }
        return (strip, pageHeight, height / pageHeight)
    }

    /// One playback's open strip and the next frame it can write without opening it again.
    final class Reader: AnimationFrameCheckpointing {
        let frames: VipsAnimationFrames
        private var strip: Strip?
        /// The file's frame the open strip writes next without opening again (0 when none is open).
        private var nextPage = 0
        /// The frames of the file's strip, once it was opened.
        private var filePages: Int?

        /// An open sequential load: of the file itself, or of a splice whose first `canvasPages`
        /// pages draw a saved canvas, followed by the file's frames from `origin` on.
        private struct Strip {
            let image: VipsImagePointer
            let pageHeight: Int
            let pages: Int
            let origin: Int
            let splice: GIFSplice?

            var canvasPages: Int { splice?.canvasPages ?? 0 }
            /// The file's frames after the last this strip writes.
            var end: Int { origin + pages - canvasPages }
            /// The strip's page of the file's frame `index`.
            func page(of index: Int) -> Int { canvasPages + index - origin }
        }

        init(frames: VipsAnimationFrames) { self.frames = frames }

        deinit { close() }

        private func close() {
            if let strip { g_object_unref(UnsafeMutableRawPointer(strip.image)) }
            strip = nil
            nextPage = 0
        }

        func frame(at index: Int) throws -> Bitmap {
            try VipsImageDecoder.readingFrame(frames.loader.format, onFailure: close) { try decode(index, checkpoints: nil) }
        }

        func frame(at index: Int, checkpoints: AnimationCheckpoints) throws -> Bitmap {
            let kept = frames.gifLayout == nil ? nil : checkpoints
            return try VipsImageDecoder.readingFrame(frames.loader.format, onFailure: close) { try decode(index, checkpoints: kept) }
        }

        private func decode(_ index: Int, checkpoints: AnimationCheckpoints?) throws -> Bitmap {
            var composedBefore = 0
            // Frames this load cannot write (before it, or past a splice's end) start over.
            let reachable = strip.map { index >= nextPage && index < $0.end } ?? false
            let pastTheLoad = strip.map { index >= $0.end } ?? true
            if let checkpoints, let saved = checkpoints.start(for: index, next: pastTheLoad ? 0 : nextPage),
               let canvas = saved.state as? GIFCanvasFrames.Encoded,
               resume(after: saved.index, drawing: canvas, through: index + 4 * min(checkpoints.interval, 1 << 20)) {
                composedBefore = canvas.frameCount
            } else if !reachable {
                // A sequential load reads forward only: an earlier frame opens the file again.
                close()
            }
            if strip == nil {
                let opened = try frames.open()
                strip = Strip(image: opened.strip, pageHeight: opened.pageHeight, pages: opened.pages, origin: 0, splice: nil)
                filePages = opened.pages
            }
            guard let strip, index < strip.end else {
                throw DecodingFailure(stage: .pixels, libvipsLines: ["frame \(index) is past the file's frames"])
            }
            let reservation = try frames.memoryBudget.reserve(frames.estimate.bytes)
            defer { reservation.release() }
            let width = Int(vips_image_get_width(strip.image))
            // The frames before `index`: composed a few rows at a time (never skipped over in one
            // piece), and written out where a canvas is saved.
            var passed = nextPage
            while passed < index {
                if let checkpoints, checkpoints.wants(after: passed) {
                    let canvas = try VipsImageScope.with { scope in
                        try VipsImageDecoder.decodeCanvas(strip.image, page: strip.page(of: passed), width: width,
                                                          pageHeight: strip.pageHeight, in: scope)
                    }
                    save(canvas, after: passed, into: checkpoints)
                    passed += 1
                    continue
                }
                var end = passed + 1
                while end < index, checkpoints?.wants(after: end) != true { end += 1 }
                let rows = (strip.page(of: passed) * strip.pageHeight, strip.page(of: end) * strip.pageHeight)
                guard shashin_advance_rows(strip.image, Int32(rows.0), Int32(rows.1), 64) == 0 else {
                    throw DecodingFailure(stage: .pixels, libvipsLines: VipsError.fromBuffer().lines)
                }
                passed = end
            }
            let canvas = try VipsImageScope.with { scope in
                try VipsImageDecoder.decodeCanvas(strip.image, page: strip.page(of: index), width: width,
                                                  pageHeight: strip.pageHeight, in: scope)
            }
            if let checkpoints, checkpoints.wants(after: index) { save(canvas, after: index, into: checkpoints) }
            let bitmap = try VipsImageDecoder.resized(canvas, to: frames.target, maxPixelCount: frames.maxPixelCount)
            // libvips decoded the frames passed over too, to compose this one, and a splice's
            // canvas before them.
            DecodedFrameCounter.add(composedBefore + index - nextPage + 1)
            nextPage = index + 1
            return bitmap
        }

        /// Keeps `canvas` (as libvips showed frame `index`) as the frames that draw the canvas the
        /// next frame is drawn on; nothing when that canvas cannot be had or written.
        private func save(_ canvas: Bitmap, after index: Int, into checkpoints: AnimationCheckpoints) {
            guard let layout = frames.gifLayout, index < layout.completeFrames,
                  let next = GIFSplice.disposed(canvas, of: layout.frames[index], file: frames.pinned.bytes),
                  let encoded = GIFCanvasFrames.encode(next) else { return }
            checkpoints.keep(encoded, after: index, byteCount: encoded.bytes.count)
        }

        /// Opens a splice of `canvas` (saved after frame `index`) and the file's frames after it up
        /// to frame `last` (a reader going further resumes again, from a canvas saved on the way:
        /// the splice copies a part of the file, not all of it); `false`, with no load open, when
        /// it cannot (the reader then opens the file as ever).
        private func resume(after index: Int, drawing canvas: GIFCanvasFrames.Encoded, through last: Int) -> Bool {
            guard let layout = frames.gifLayout, let filePages else { return false }
            let origin = index + 1
            let end = min(filePages, layout.completeFrames, last + 1)
            // Nothing to splice: the load open now stays, for the caller to read on if it can.
            guard origin < end else { return false }
            // The load open now goes before the splice opens: one load's canvas at a time.
            close()
            let splice = GIFSplice(file: frames.pinned.bytes, layout: layout, canvas: canvas, origin: origin, frameLimit: end)
            guard let opened = try? frames.open(splice.bytes, frames: -1) else {
                _ = VipsErrorBuffer.take()
                return false
            }
            // The canvas' own pages composed, a few rows at a time.
            guard opened.pages == canvas.frameCount + end - origin,
                  shashin_advance_rows(opened.strip, 0, Int32(canvas.frameCount * opened.pageHeight), 64) == 0 else {
                g_object_unref(UnsafeMutableRawPointer(opened.strip))
                _ = VipsErrorBuffer.take()
                return false
            }
            strip = Strip(image: opened.strip, pageHeight: opened.pageHeight, pages: opened.pages, origin: origin, splice: splice)
            nextPage = origin
            return true
        }
    }
}

extension VipsImageDecoder {
    /// Runs a reader's decode of one frame of `format` as a decode (libvips' warnings kept for
    /// its reason), its failures as `.decodingFailed`; `onFailure` lets the reader start over.
    static func readingFrame<T>(_ format: ImageFormat, onFailure: () -> Void, _ body: () throws -> T) throws(ImagePipelineError) -> T {
        try VipsErrorBuffer.decoding(format) { () throws(ImagePipelineError) -> T in
            do {
                return try body()
            } catch let error as ImagePipelineError {
                onFailure()
                throw error
            } catch let failure as DecodingFailure {
                onFailure()
                throw .decodingFailed(format: format, reason: failure.reason(format: format, warnings: VipsErrorBuffer.warnings()))
            } catch {
                onFailure()
                throw .decodingFailed(format: format, reason: String(describing: error))
            }
        }
    }
}
