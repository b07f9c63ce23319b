import Synchronization

/// Claims on a sensor service that may come before the service exists (issue 36).
///
/// The socket server accepts clients before the daemon has made every sensor service (the
/// posture's needs the orientation pipeline's tap, made after the server), and the hub announces
/// a topic's claim only once, for its first subscriber: a claim made in between used to go to an
/// empty box and was lost until every subscriber of the topic had left (a subscriber that
/// connected the instant the socket appeared got no posture in 16 of 25 starts).
///
/// Contract: ``set(_:_:)`` records each claimer's latest claim and, once a target is bound,
/// hands it on; ``bind(_:)`` hands the target every claim held at that moment, once. A claim is
/// handed on after the lock is released (the target takes locks of its own); two claims of the
/// same claimer from two threads at once may reach the target in either order, as before.
final class PendingClaims: Sendable {
    private struct State {
        var target: (@Sendable (_ claimer: String, _ claimed: Bool) -> Void)? = nil
        var claimed: [String: Bool] = [:]
    }

    private let state = Mutex(State())

    /// Records that `claimer` claims (or releases), and tells the target if there is one.
    func set(_ claimer: String, _ claimed: Bool) {
        let target = state.withLock { state in
            state.claimed[claimer] = claimed
            return state.target
        }
        target?(claimer, claimed)
    }

    /// From now on claims go to `target`; the ones held now are handed to it at once.
    func bind(_ target: @escaping @Sendable (_ claimer: String, _ claimed: Bool) -> Void) {
        let held = state.withLock { state in
            state.target = target
            return state.claimed.filter(\.value).keys.sorted()
        }
        for claimer in held { target(claimer, true) }
    }
}
