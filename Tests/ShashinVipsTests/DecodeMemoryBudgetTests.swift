// libvips exists only where Shashin decodes with it (Linux); elsewhere this file is empty.
#if canImport(ShashinVips)
import Foundation
import ShashinCore
@testable import ShashinVips
import Testing

/// Issue 13's shapes (10000², within the pixel limit) against the default phone-sized budget.
enum IssueShapes {
    static let png16Interlaced = BudgetShapes.png(width: 10_000, height: 10_000, bitDepth: 16, colourType: 2, interlaced: true)
    static let greyPNG = BudgetShapes.png(width: 10_000, height: 10_000, bitDepth: 8, colourType: 0, interlaced: false)
    static let progressiveJPEG = try! BudgetShapes.progressiveJPEGHeader(width: 10_000, height: 10_000)
}

@Suite("Decode memory budget")
struct DecodeMemoryBudgetTests {
    static let thumbnail = ThumbnailOptions(maxPixelSize: 256)

    func error(decoding data: Data, thumbnail: ThumbnailOptions?, budget: DecodeMemoryBudget = .shared,
               direct: Bool = true) -> ImagePipelineError? {
        do {
            _ = try VipsImageDecoder(decodesJPEGDirectly: direct)
                .decodeBitmap(data, context: .init(format: nil, thumbnail: thumbnail, memoryBudget: budget))
            return nil
        } catch { return error }
    }

    func expectRefused(_ error: ImagePipelineError?, over budget: Int, atLeast minimum: Int) {
        guard case .decodeMemoryExceeded(let estimate, let reported)? = error else {
            Issue.record("expected decodeMemoryExceeded, got \(String(describing: error))"); return
        }
        #expect(reported == budget)
        #expect(estimate >= minimum, "estimate \(estimate)")
        #expect("\(error!)".contains("MB"))
    }

    @Test("a 10000² 16-bit interlaced PNG is refused, as a thumbnail and in full, before decoding")
    func interlaced16BitPNG() {
        // Interlaced: the whole 16-bit RGB image (600 MB) is held however small the output.
        for thumbnail in [Self.thumbnail, nil] {
            expectRefused(error(decoding: IssueShapes.png16Interlaced, thumbnail: thumbnail),
                          over: DecodeMemoryBudget.defaultBytes, atLeast: 600_000_000)
        }
    }

    @Test("a 10000² progressive JPEG is refused as a thumbnail, on the direct path and through libvips")
    func progressiveJPEG() {
        for direct in [true, false] {
            // At least the luma plane's coefficients: 10^8 samples × 2 bytes.
            expectRefused(error(decoding: IssueShapes.progressiveJPEG, thumbnail: Self.thumbnail, direct: direct),
                          over: DecodeMemoryBudget.defaultBytes, atLeast: 200_000_000)
        }
    }

    @Test("a grey 10000² PNG is refused in full (400 MB of RGBA) but streams to a thumbnail")
    func greyPNG() throws {
        expectRefused(error(decoding: IssueShapes.greyPNG, thumbnail: nil), over: DecodeMemoryBudget.defaultBytes, atLeast: 400_000_000)
        let bitmap = try VipsImageDecoder().decodeBitmap(IssueShapes.greyPNG, context: .init(format: .png, thumbnail: Self.thumbnail))
        #expect(bitmap.width == 256 && bitmap.height == 256)
    }

    @Test("the same image decodes under a budget that holds its estimate and is refused under one that does not")
    func budgetDecides() throws {
        // 3000² grey in full: 36 MB of RGBA output, plus rows.
        let png = BudgetShapes.png(width: 3_000, height: 3_000, bitDepth: 8, colourType: 0, interlaced: false)
        expectRefused(error(decoding: png, thumbnail: nil, budget: DecodeMemoryBudget(bytes: 32 << 20)),
                      over: 32 << 20, atLeast: 36_000_000)
        let budget = DecodeMemoryBudget(bytes: 64 << 20)
        let bitmap = try VipsImageDecoder().decodeBitmap(png, context: .init(format: .png, memoryBudget: budget))
        #expect(bitmap.width == 3_000 && bitmap.height == 3_000)
        #expect(budget.reservedBytes == 0)
    }

    @Test("the direct JPEG path and libvips give a baseline JPEG's thumbnail no coefficient cost")
    func baselineStreams() throws {
        let baseline = try CraftedBombs.jpeg(width: 10_000, height: 10_000)
        let budget = DecodeMemoryBudget(bytes: 8 << 20)
        for direct in [true, false] {
            // Over the pixel data there is, so the decode fails, but not for memory.
            if case .decodeMemoryExceeded? = error(decoding: baseline, thumbnail: Self.thumbnail, budget: budget, direct: direct) {
                Issue.record("a streaming thumbnail was refused for memory (direct: \(direct))")
            }
        }
    }
}

@Suite("Decode memory budget: sharing")
struct DecodeMemoryBudgetSharingTests {
    @Test("a reservation over the whole budget fails at once, naming estimate and budget")
    func overWhole() {
        let budget = DecodeMemoryBudget(bytes: 100)
        #expect(throws: ImagePipelineError.decodeMemoryExceeded(estimate: 101, budget: 100)) { _ = try budget.reserve(101) }
        #expect(budget.reservedBytes == 0)
    }

    @Test("a second decode waits until the first releases what the two would overrun")
    func secondWaits() async throws {
        let budget = DecodeMemoryBudget(bytes: 100)
        let first = try budget.reserve(60)
        let granted = Locked(false)
        let thread = Thread {
            let second = try? budget.reserve(60)
            granted.withLock { $0 = true }
            second?.release()
        }
        thread.start()
        // Whatever the scheduling, the second cannot be granted while the first holds 60.
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(granted.current == false)
        #expect(budget.reservedBytes == 60)
        first.release()
        let deadline = Date().addingTimeInterval(10)
        while !granted.current, Date() < deadline { try await Task.sleep(nanoseconds: 2_000_000) }
        #expect(granted.current)
    }

    @Test("many threads reserving at once never hold more than the budget")
    func neverOver() async throws {
        let budget = DecodeMemoryBudget(bytes: 1_000)
        let peak = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            guard let reservation = try? budget.reserve(100 + index % 7 * 100) else { return }
            peak.withLock { $0 = max($0, budget.reservedBytes) }
            reservation.release()
        }
        #expect(peak.current <= 1_000)
        #expect(budget.reservedBytes == 0)
    }
}
#endif
