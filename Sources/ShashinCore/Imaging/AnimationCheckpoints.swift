/// The canvases one playback's reader saved on its way through an animation, so that a read that
/// goes back, or jumps past frames already passed, starts from the nearest saved canvas before it
/// rather than from the first frame: such a read composes at most `interval` frames.
///
/// Saving starts at the playback's first seek back (a read of a frame before the reader's
/// position, other than the first frame): a playback that only plays on, and starts each loop
/// again from the first frame, never seeks and pays nothing (a GIF reader's saved canvas costs
/// about three frames' decoding). From then on a canvas is saved after the last frame of each run
/// of `interval` frames (after frames 15, 31, … for 16) as the reader passes it. The saved
/// canvases are kept within `byteBudget`: when one more would pass it, every other one is let go
/// and `interval` doubles, so they stay evenly spaced and the bound on a read grows only as far
/// as the budget needs.
///
/// Owned by one `AnimationFrameBuffer`, used under its decode lock only: not thread-safe.
package final class AnimationCheckpoints {
    /// 16 frames: a read after a seek composes at most 16 (BENCHMARKS.md, "Frames off the
    /// cooperative pool").
    package static let defaultInterval = 16
    /// 8 MB for one playback's saved canvases: four 800×600 canvases uncompressed, and many more
    /// as a GIF reader keeps them (compressed, as GIF frames).
    package static let defaultByteBudget = 8 << 20

    /// Frames between saved canvases (doubled from the initial one as the budget needs).
    package private(set) var interval: Int
    /// The most bytes the saved canvases may hold together.
    package let byteBudget: Int
    private var saved: [Int: (state: Any, byteCount: Int)] = [:]
    /// Bytes the saved canvases hold now.
    package private(set) var byteCount = 0
    /// Whether canvases are saved: since the first seek back.
    package private(set) var isSaving = false

    /// Saves a canvas every `interval` frames (at least 1) within `byteBudget` bytes.
    package init(interval: Int = AnimationCheckpoints.defaultInterval, byteBudget: Int = AnimationCheckpoints.defaultByteBudget) {
        self.interval = max(1, interval)
        self.byteBudget = max(0, byteBudget)
    }

    /// The frames after which a canvas is saved, in order.
    package var indices: [Int] { saved.keys.sorted() }

    /// Whether the reader should save its canvas after composing frame `index`: saving has
    /// started, `index` is the last frame of a run of `interval`, and it is not saved yet.
    package func wants(after index: Int) -> Bool {
        isSaving && (index + 1) % interval == 0 && saved[index] == nil
    }

    /// Keeps `state` (what the reader needs to go on after frame `index`, `byteCount` bytes),
    /// letting go of every other saved canvas and doubling `interval` while they pass the budget.
    package func keep(_ state: Any, after index: Int, byteCount: Int) {
        guard (index + 1) % interval == 0 else { return }
        if let old = saved[index] { self.byteCount -= old.byteCount }
        saved[index] = (state, byteCount)
        self.byteCount += byteCount
        while self.byteCount > byteBudget, !saved.isEmpty {
            interval *= 2
            for (kept, entry) in saved where (kept + 1) % interval != 0 {
                saved[kept] = nil
                self.byteCount -= entry.byteCount
            }
        }
    }

    /// Where a reader whose next frame is `next` (the one it composes without starting over, 0
    /// when it would start over) starts to read frame `index`: the saved canvas with the highest index before `index`, when
    /// going on from `next` would compose more frames than starting after it, or would start over
    /// (`index` before `next`); `nil` to go on as the reader would without checkpoints.
    /// A seek back (`index` before `next`, other than the first frame) starts the saving.
    package func start(for index: Int, next: Int) -> (index: Int, state: Any)? {
        if index < next, index > 0 { isSaving = true }
        guard let before = saved.keys.filter({ $0 < index }).max(), let entry = saved[before] else { return nil }
        if next <= index, next > before { return nil }
        return (before, entry.state)
    }
}

/// A reader that saves its canvas as it passes frames (`AnimationCheckpoints.wants(after:)`) and
/// can start again from a saved one (`AnimationCheckpoints.start(for:next:)`): a seek then costs
/// at most the checkpoints' interval in frames. `AnimationFrameBuffer` calls it instead of
/// `frame(at:)` when its reader has it. Package-only for now: the GIF and APNG readers of
/// ShashinVips have it.
package protocol AnimationFrameCheckpointing: AnimationFrameReading {
    /// Frame `index`, as `frame(at:)` gives it, starting from a canvas of `checkpoints` when that
    /// composes fewer frames, and saving into it the canvases it wants on the way.
    func frame(at index: Int, checkpoints: AnimationCheckpoints) throws -> Bitmap
}
