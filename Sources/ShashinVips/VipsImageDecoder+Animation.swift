import CVips
import Foundation
import ShashinCore

/// Animated GIF and WebP: every frame decoded (libvips composes each onto the canvas as the
/// file's disposal and blending say), shrunk to the thumbnail size one at a time, with the
/// file's per-frame delays and loop count; or, as the context's animation plan says, the first
/// frame with a frame source (`VipsAnimationFrames`), or the first frame only.
extension VipsImageDecoder {
    /// What the animation path made of a GIF or WebP.
    enum AnimatedDecode {
        /// The file holds one frame: the still path decodes it.
        case still
        /// Decoding every frame would pass a budget: the still path decodes the first one, and
        /// the animation records why.
        case firstFrameOnly(ImageAnimation)
        /// Every frame (or those before damage), the first as the image.
        case animated(Bitmap)
    }

    /// Decodes every frame of `bytes` (a GIF or WebP) when the header declares more than one and
    /// the budgets allow: the frame count comes from the header, before any frame is decoded.
    /// A failure in a later frame keeps the frames before it; in the first, it throws.
    static func decodeAnimation(_ bytes: UnsafeRawBufferPointer, data: Data, loader: VipsLoader,
                                context: ImageDecodingContext) throws -> AnimatedDecode {
        try VipsImageScope.with { scope in
            // libvips decodes a GIF frame cut short as if it were whole, and counts at most 4,097
            // frames: a GIF's frames are counted here, and only complete ones are loaded.
            let scan = loader.format == .gif ? GIFFrameScan.scan(bytes) : nil
            if let scan, scan.isCut, scan.completeFrames == 0 {
                throw DecodingFailure(stage: .header, libvipsLines: ["the data ends inside the first frame"])
            }
            let isCut = scan?.isCut ?? false
            let header = try during(.header) { try scope.make { load(bytes, loader: loader, frames: 1, into: $0) } }
            let frameCount = scan?.completeFrames ?? Int(vips_image_get_n_pages(header))
            guard frameCount > 1 || (isCut && Int(vips_image_get_n_pages(header)) > 1) else { return .still }
            let width = Int(vips_image_get_width(header)), height = Int(vips_image_get_height(header))
            try context.checkPixelCount(width: width, height: height)
            let upright = vips_image_get_orientation_swap(header) != 0 ? (width: height, height: width) : (width: width, height: height)
            let target = context.thumbnail?.targetSize(width: upright.width, height: upright.height) ?? upright
            try checkTargetSize(target, in: context)
            let loopCount = Int(shashin_get_int_or(header, "loop", 0))
            let scale = max(Double(target.width) / Double(upright.width), Double(target.height) / Double(upright.height))
            switch context.animationPlan(frameCount: frameCount, width: width, height: height, target: target) {
            case .firstFrame(let shortfall):
                return .firstFrameOnly(ImageAnimation(format: loader.format, frameCount: frameCount, data: data,
                                                      loopCount: loopCount, shortfall: shortfall))
            case .frameSource:
                do {
                    return .animated(try streamed(data: data, loader: loader, layout: scan, frameCount: frameCount, isCut: isCut, scale: scale,
                                                  canvas: (width, height), target: target, loopCount: loopCount, context: context))
                } catch let failure as DecodingFailure where failure.stage == .header {
                    // libvips cannot lay out every frame (more than it counts, say): the still
                    // path decodes the first frame, and the animation says the rest is lost.
                    _ = VipsErrorBuffer.take()
                    return .firstFrameOnly(ImageAnimation(format: loader.format, frameCount: frameCount, data: data,
                                                          loopCount: loopCount, shortfall: .damaged(decodedFrames: 1)))
                }
            case .allFrames:
                break
            }
            // Held at once: the loader's canvas and one whole frame at the file's size, the
            // frames kept at the target size, and working rows.
            typealias E = DecodeMemoryEstimate
            let estimate = E(output: E.product(target.width, target.height, 4, frameCount), wholeImage: E.product(width, height, 4, 2),
                             rows: E.rows(width: width))
            let reservation = try context.memoryBudget.reserve(estimate.bytes)
            defer { reservation.release() }

            let strip = try during(.header) {
                try scope.make {
                    load(bytes, loader: loader, frames: isCut ? Int32(frameCount) : -1,
                         scale: loader.format == .webp ? min(1, scale) : 1, into: $0)
                }
            }
            let pageHeight = Int(shashin_get_int_or(strip, "page-height", Int32(vips_image_get_height(strip))))
            let stripWidth = Int(vips_image_get_width(strip)), stripHeight = Int(vips_image_get_height(strip))
            guard pageHeight > 0, stripHeight % pageHeight == 0 else {
                throw DecodingFailure(stage: .header, libvipsLines: ["frames of \(pageHeight) rows do not fill \(stripHeight) rows"])
            }
            let pages = stripHeight / pageHeight
            var delays = [Int32](repeating: 0, count: pages)
            let delayCount = Int(shashin_get_delays(strip, &delays, Int32(pages)))
            var frames: [AnimationFrame] = []
            frames.reserveCapacity(pages)
            var shortfall: AnimationShortfall?
            for page in 0..<pages {
                do {
                    let frame = try decodeFrame(strip, page: page, width: stripWidth, pageHeight: pageHeight, target: target,
                                                maxPixelCount: context.maxPixelCount, in: scope)
                    let delay = page < delayCount ? max(0, Int(delays[page])) : 0
                    frames.append(AnimationFrame(bitmap: frame, duration: Double(delay) / 1000))
                } catch where !frames.isEmpty {
                    _ = VipsErrorBuffer.take()
                    shortfall = .damaged(decodedFrames: frames.count)
                    break
                }
            }
            DecodedFrameCounter.add(frames.count)
            if shortfall == nil, isCut || frames.count < frameCount { shortfall = .damaged(decodedFrames: frames.count) }
            var image = frames[0].bitmap
            image.animation = ImageAnimation(format: loader.format, frameCount: max(frameCount, 2), data: data,
                                             frames: frames, loopCount: loopCount, shortfall: shortfall)
            return .animated(image)
        }
    }

    /// The first frame of a GIF or WebP of `frameCount` frames, with an `AnimationFrameSource`
    /// that decodes the others on demand (`VipsAnimationFrames`): the frames' delays come from
    /// the header of a sequential load of every frame, which decodes none of them.
    private static func streamed(data: Data, loader: VipsLoader, layout: GIFFrameScan.Result?, frameCount: Int, isCut: Bool, scale: Double,
                                 canvas: (width: Int, height: Int), target: (width: Int, height: Int), loopCount: Int,
                                 context: ImageDecodingContext) throws -> Bitmap {
        typealias E = DecodeMemoryEstimate
        let pinned = PinnedData(copying: data)
        // Held while one frame is written: the loader's canvas and the frame at the file's
        // size (a GIF's also a canvas to save: the disposed copy or its palette indices), the
        // frame at the target size, and working rows.
        let frames = VipsAnimationFrames(pinned: pinned, loader: loader, loadedFrames: isCut ? Int32(frameCount) : -1,
                                         scale: loader.format == .webp ? min(1, scale) : 1, target: target,
                                         maxPixelCount: context.maxPixelCount, memoryBudget: context.memoryBudget,
                                         estimate: E(output: E.product(target.width, target.height, 4),
                                                     wholeImage: E.product(canvas.width, canvas.height, 4, layout == nil ? 2 : 3),
                                                     rows: E.rows(width: canvas.width)),
                                         gifLayout: layout)
        let opened = try frames.open()
        defer { g_object_unref(UnsafeMutableRawPointer(opened.strip)) }
        let pages = min(opened.pages, frameCount)
        var delays = [Int32](repeating: 0, count: pages)
        let delayCount = Int(shashin_get_delays(opened.strip, &delays, Int32(pages)))
        let durations = (0..<pages).map { Double($0 < delayCount ? max(0, Int(delays[$0])) : 0) / 1000 }
        var first = try frames.makeReader().frame(at: 0)
        let source = AnimationFrameSource(durations: durations, loopCount: loopCount, decoder: frames)
        first.animation = ImageAnimation(format: loader.format, frameCount: max(frameCount, 2), data: pinned.data,
                                         loopCount: loopCount, frameSource: source)
        return first
    }

    /// Frame `page` of `strip`, upright, RGBA8 and resized to `target`.
    static func decodeFrame(_ strip: VipsImagePointer, page: Int, width: Int, pageHeight: Int,
                            target: (width: Int, height: Int), maxPixelCount: Int, in scope: VipsImageScope) throws -> Bitmap {
        let frame = try decodeCanvas(strip, page: page, width: width, pageHeight: pageHeight, in: scope)
        return try resized(frame, to: target, maxPixelCount: maxPixelCount)
    }

    /// Frame `page` of `strip` as libvips composed it, upright and RGBA8, at the strip's size.
    static func decodeCanvas(_ strip: VipsImagePointer, page: Int, width: Int, pageHeight: Int, in scope: VipsImageScope) throws -> Bitmap {
        let cut = try during(.pixels) {
            try scope.make { shashin_extract_area(strip, $0, 0, Int32(page * pageHeight), Int32(width), Int32(pageHeight)) }
        }
        let rgba = try during(.conversion) { try scope.uprightRGBA8(cut) }
        return try during(.pixels) { try scope.bitmap(from: rgba) }
    }

    /// `frame` at `target`'s size (itself when it is that size already).
    static func resized(_ frame: Bitmap, to target: (width: Int, height: Int), maxPixelCount: Int) throws -> Bitmap {
        guard frame.width != target.width || frame.height != target.height else { return frame }
        return try during(.thumbnail) {
            try VipsProcessing.resize(frame, width: target.width, height: target.height, maxPixelCount: maxPixelCount,
                                      directShrinkLimit: .max, boxGap: 2)
        }
    }

    /// Opens `frames` frames of `bytes` (-1: all), sequentially, WebP scaled by `scale` while decoding.
    private static func load(_ bytes: UnsafeRawBufferPointer, loader: VipsLoader, frames: Int32, scale: Double = 1,
                             into out: UnsafeMutablePointer<VipsImagePointer?>) -> Int32 {
        let base = bytes.baseAddress
        if loader.format == .webp {
            return shashin_webpload_buffer_frames(base, bytes.count, out, VIPS_ACCESS_SEQUENTIAL, VIPS_FAIL_ON_TRUNCATED,
                                                  min(1, max(scale, 0.0001)), frames)
        }
        return shashin_gifload_buffer_frames(base, bytes.count, out, VIPS_ACCESS_SEQUENTIAL, VIPS_FAIL_ON_TRUNCATED, frames)
    }
}
