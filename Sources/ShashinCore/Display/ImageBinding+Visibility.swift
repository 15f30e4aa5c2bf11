extension ImageBinding {
    /// What a binding's load does while its view is off screen (``disappear(_:)``).
    public enum DisappearBehavior: Sendable, Hashable {
        /// Stop the load; it starts again on ``ImageBinding/appear()``. What lists want:
        /// rows scrolled past cost no bandwidth.
        case cancel
        /// Go on at `priority` (when lower than the load's own), back to the load's own priority
        /// on ``ImageBinding/appear()``: the image is likely wanted again soon.
        case lowerPriority(to: ImageRequest.Priority)
        /// Go on as if nothing happened: the image will be wanted wherever the view goes.
        case keepLoading
    }

    /// The view left the screen: the load in progress follows `behavior` (nothing happens when
    /// nothing loads). Undone by ``appear()``.
    ///
    /// ```swift
    /// binding.disappear(.lowerPriority(to: .veryLow))
    /// binding.appear()   // back to the request's priority
    /// ```
    public func disappear(_ behavior: DisappearBehavior) {
        guard state == .loading else { return }
        switch behavior {
        case .cancel:
            cancel()
            isStoppedWhileHidden = true
        case .lowerPriority(let lower):
            guard let current = priority, lower < current else { return }
            priorityBeforeDisappearing = priorityBeforeDisappearing ?? current
            priority = lower
        case .keepLoading:
            break
        }
    }

    /// The view is on screen again: a load ``disappear(_:)`` stopped starts again (a memory hit
    /// is shown at once), and one it lowered gets its priority back. Nothing else changes: a
    /// request deferred for another reason (`deferringNetwork`) stays deferred.
    public func appear() {
        let restored = priorityBeforeDisappearing
        priorityBeforeDisappearing = nil
        if isStoppedWhileHidden {
            isStoppedWhileHidden = false
            startDeferredLoad(priority: restored)
        } else if let restored, state == .loading {
            priority = restored
        }
    }
}
