import CVips
import Foundation
import ShashinCore

/// A GIF's or WebP's frames decoded on demand (`AnimationDelivery.frameSource`): each reader
/// keeps one libvips image of every frame open, loaded sequentially, and writes one frame at a
/// time from it, so playing frame n after frame n − 1 decodes one frame, not n. libvips (libnsgif,
/// libwebp's demuxer) composes each frame on its canvas as the file's disposal and blending say,
/// exactly as the whole decode's single pass does. Going back (a new loop) opens the file again.
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

    func makeReader() throws -> any AnimationFrameReading { Reader(frames: self) }

    /// Opens the strip of every frame, sequentially; the caller owns the image.
    func open() throws -> (strip: VipsImagePointer, pageHeight: Int, pages: Int) {
        try VipsRuntime.start()
        var out: VipsImagePointer?
        let base = pinned.bytes.baseAddress
        let status = loader.format == .webp
            ? shashin_webpload_buffer_frames(base, pinned.bytes.count, &out, VIPS_ACCESS_SEQUENTIAL, VIPS_FAIL_ON_TRUNCATED,
                                             min(1, max(scale, 0.0001)), loadedFrames)
            : shashin_gifload_buffer_frames(base, pinned.bytes.count, &out, VIPS_ACCESS_SEQUENTIAL, VIPS_FAIL_ON_TRUNCATED,
                                            loadedFrames)
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
    final class Reader: AnimationFrameReading {
        let frames: VipsAnimationFrames
        private var strip: (image: VipsImagePointer, pageHeight: Int, pages: Int)?
        private var nextPage = 0

        init(frames: VipsAnimationFrames) { self.frames = frames }

        deinit { close() }

        private func close() {
            if let strip { g_object_unref(UnsafeMutableRawPointer(strip.image)) }
            strip = nil
            nextPage = 0
        }

        func frame(at index: Int) throws -> Bitmap {
            try VipsImageDecoder.readingFrame(frames.loader.format, onFailure: close) { try decode(index) }
        }

        private func decode(_ index: Int) throws -> Bitmap {
            // A sequential load reads forward only: an earlier frame opens the file again.
            if index < nextPage { close() }
            if strip == nil {
                let opened = try frames.open()
                strip = (opened.strip, opened.pageHeight, opened.pages)
            }
            guard let strip, index < strip.pages else {
                throw DecodingFailure(stage: .pixels, libvipsLines: ["frame \(index) is past the file's frames"])
            }
            let reservation = try frames.memoryBudget.reserve(frames.estimate.bytes)
            defer { reservation.release() }
            let bitmap = try VipsImageScope.with { scope in
                try VipsImageDecoder.decodeFrame(strip.image, page: index, width: Int(vips_image_get_width(strip.image)),
                                                 pageHeight: strip.pageHeight, target: frames.target,
                                                 maxPixelCount: frames.maxPixelCount, in: scope)
            }
            // libvips decoded the frames passed over too, to compose this one.
            DecodedFrameCounter.add(index - nextPage + 1)
            nextPage = index + 1
            return bitmap
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
