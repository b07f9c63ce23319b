import OrientationCore
import OrientationProtocol
import PostureCore
import Synchronization

/// `[posture] dbus-hold-in-laptop` (issue 30, item 4): the D-Bus facade's
/// `AccelerometerOrientation` keeps its value while a convertible is `closed` or a `laptop`, and
/// takes the latest orientation as soon as it is folded into anything else. For desktops that
/// rotate on the facade's orientation whatever `SW_TABLET_MODE` says; GNOME and KDE gate on the
/// switch already, hence off by default (docs/DBUS.md).
///
/// Pure decisions under a lock: the caller publishes what the methods return, with no lock held.
final class FacadeOrientationHold: Sendable {
    private struct State {
        var latest: OrientationState? = nil
        var holding = false
    }

    private let state = Mutex(State())

    /// Whether `posture` holds the facade's orientation.
    static func holds(_ posture: Posture) -> Bool { posture == .closed || posture == .laptop }

    /// A new orientation state from the hub: returns it when the facade should publish it, `nil`
    /// while held (it is kept as the latest).
    func orientation(_ new: OrientationState) -> OrientationState? {
        state.withLock { state in
            state.latest = new
            return state.holding ? nil : new
        }
    }

    /// A new posture: returns the latest orientation state to publish when the hold ends.
    func posture(_ posture: Posture) -> OrientationState? {
        state.withLock { state in
            let was = state.holding
            state.holding = Self.holds(posture)
            return was && !state.holding ? state.latest : nil
        }
    }
}
