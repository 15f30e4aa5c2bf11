/// The app's word that the network is constrained (a metered or slow link): while it is on,
/// requests with a `LowDataImage` load that instead of their own source. It is the switch on
/// Linux, where the system says nothing of Low Data Mode, and an override on Apple platforms,
/// where a request with a low-data source also switches when the system refuses its download.
///
/// One object can serve several pipelines; the app flips it from any thread when the link
/// changes. A task reads it once, when it starts: tasks already running keep what they chose.
///
/// ```swift
/// pipeline.configuration.networkConstraint.isConstrained = link.isMetered
/// ```
public final class NetworkConstraint: Sendable {
    private let state: Locked<Bool>

    /// A switch, constrained or not (default not).
    public init(isConstrained: Bool = false) {
        state = Locked(isConstrained)
    }

    /// Whether the network is constrained now; set it from any thread.
    public var isConstrained: Bool {
        get { state.current }
        set { state.withLock { $0 = newValue } }
    }
}
