import CImageKernels
import Foundation
import ShashinCore

/// The previews of one progressive JPEG download, decoded by libjpeg-turbo in buffered-image mode
/// (`shashin_jpeg_session_*` in the CImageKernels C target): the bytes are appended as they
/// arrive, each is entropy-decoded once into the coefficients of the whole image, and each
/// preview is an output pass over the scans so far, through the direct path's DCT scaling,
/// resampling, orientation and sRGB transform. The pixels are those `DirectJPEGDecoder` makes from the same bytes, from
/// scratch: a preview of a scan is the preview of that prefix, and `finish` is the final image.
///
/// The session takes what the direct path takes (`DirectJPEGDecoder.plan`): anything it declines,
/// and any libjpeg failure, ends the session, whose calls then give `nil`. It holds the direct
/// path's memory estimate for the image (most of it the coefficients) from the budget from the
/// first preview that has its header until it ends; when the budget cannot give it at once, that
/// preview is skipped rather than waiting, and a later one asks again.
final class JPEGPreviewSession: ProgressiveDecodingSession, @unchecked Sendable { // every `var` behind `lock`
    private let context: ImageDecodingContext
    private let lock = NSLock()
    /// Set by `close()` while a call holds `lock`: that call ends the session as it returns, so
    /// closing never waits for a preview to finish.
    private let closeRequested = Locked(false)
    private var session: OpaquePointer?
    private var plan: DirectJPEGDecoder.Plan?
    private var reservation: DecodeMemoryBudget.Reservation?

    init?(context: ImageDecodingContext) {
        guard let session = shashin_jpeg_session_new() else { return nil }
        self.context = context
        self.session = session
    }

    deinit { shashin_jpeg_session_free(session) }

    func preview(_ data: Data, scanEnd: Int) -> PlatformImage? {
        locked {
            guard scanEnd >= 0, scanEnd <= data.count - 2, append(data), started(),
                  let session, let plan else { return nil }
            guard shashin_jpeg_session_consume(session, scanEnd + 2) == 0 else { end(); return nil }
            return output(session, plan, again: false)
        }
    }

    func finish(_ data: Data) -> PlatformImage? {
        locked {
            defer { end() }
            guard append(data), started(), let session, let plan,
                  shashin_jpeg_session_end_input(session) == 0 else { return nil }
            return output(session, plan, again: true)
        }
    }

    func close() {
        closeRequested.withLock { $0 = true }
        guard lock.try() else { return }
        end()
        lock.unlock()
    }

    /// Whether the session still holds its libjpeg state.
    var isOpen: Bool { locked { session != nil } }

    private func locked<R>(_ body: () -> R) -> R {
        lock.lock()
        defer {
            if closeRequested.current { end() }
            lock.unlock()
        }
        if closeRequested.current { end() } // a close that found the lock taken as it was let go
        return body()
    }

    // MARK: Behind `lock`

    /// Frees everything; later calls give `nil`.
    private func end() {
        shashin_jpeg_session_free(session)
        session = nil
        reservation?.release()
        reservation = nil
    }

    /// Appends the bytes of `data` past those appended before; `false` (the session ended) when
    /// memory runs out or `data` does not begin with them (a body that changed under a retried
    /// download must not be finished from the old one's coefficients).
    private func append(_ data: Data) -> Bool {
        guard let session else { return false }
        let have = Int(shashin_jpeg_session_length(session))
        let added = data.withUnsafeBytes { bytes -> Bool in
            guard let all = bytes.baseAddress else { return have == 0 }
            guard shashin_jpeg_session_continued_by(session, all, bytes.count) != 0 else { return false }
            guard bytes.count > have else { return true }
            return shashin_jpeg_session_append(session, all + have, bytes.count - have) == 0
        }
        if !added { end() }
        return added
    }

    /// Reads the header and starts buffered decoding, once; `false` while the header is not all
    /// in, when the budget has no room for the decode yet, and once the session has ended.
    private func started() -> Bool {
        guard let session else { return false }
        if plan != nil { return true }
        switch shashin_jpeg_session_read_header(session) {
        case 1: break
        case 0: return false
        default: end(); return false
        }
        let jpeg = shashin_jpeg_session_decoder(session)
        let header = shashin_jpeg_get_header(jpeg)
        guard header.width > 0, header.height > 0,
              (try? context.checkPixelCount(width: Int(header.width), height: Int(header.height))) != nil,
              case .planned(let planned) = DirectJPEGDecoder.plan(header, context: context, preview: true) else {
            end()
            return false
        }
        guard let reservation = context.memoryBudget.reserveIfAvailable(planned.estimate.bytes) else { return false }
        guard shashin_jpeg_session_start(session, planned.shrink, Int32(planned.stored.width), Int32(planned.stored.height),
                                         Int32(planned.orientation), DirectJPEGDecoder.filter, planned.byteCount) == 0 else {
            reservation.release()
            end()
            return false
        }
        self.reservation = reservation
        plan = planned
        return true
    }

    /// An output pass over the scans so far (`again`: even when that scan was shown before).
    private func output(_ session: OpaquePointer, _ plan: DirectJPEGDecoder.Plan,
                        again: Bool) -> PlatformImage? {
        var result: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: plan.byteCount) { buffer, initialized in
            result = shashin_jpeg_session_output(session, buffer.baseAddress, plan.byteCount, again ? 1 : 0)
            if result == 1, let base = buffer.baseAddress { plan.finish(base) }
            initialized = result == 1 ? plan.byteCount : 0
        }
        if result < 0 { end() }
        guard result == 1 else { return nil }
        return Bitmap(width: plan.target.width, height: plan.target.height, pixels: pixels)
    }
}
