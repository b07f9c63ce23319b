import OrientationCore
import OrientationProtocol
import PostureCore

/// How posture events are printed beside orientation events (``EventFormat``): `time posture:
/// laptop (hinge 112°)` for people, one JSON object per line for programs.
enum PostureEventFormat {
    /// `12.345000 posture: laptop (hinge 112°)`; `posture: closed (lid switch)` when the switch
    /// decided without an angle; `posture: unknown` when closed cannot be told from folded back.
    static func text(_ event: PostureEvent) -> String {
        "\(EventFormat.seconds(event.time)) posture: \(describe(event))"
    }

    /// `laptop (hinge 112°)`, without the time.
    static func describe(_ event: PostureEvent) -> String {
        if let angle = event.hingeAngle { return "\(event.posture.rawValue) (hinge \(Int(angle.rounded()))°)" }
        return event.posture == .closed ? "closed (lid switch)" : event.posture.rawValue
    }

    /// A live posture state (`get`, `monitor`): `laptop (hinge 112°)`; `unknown
    /// (closed-or-folded-back)` with why it is unknown; `no base accelerometer` on a machine that
    /// is not a convertible.
    /// While held, `, held 12 s (hinge-vertical)` follows: for how long, and why (issue 38).
    /// The hinge angle is the current one (issue 40), not the one the posture was decided at.
    static func describe(_ state: PostureState) -> String {
        guard state.present else { return "no base accelerometer" }
        var text: String
        if let angle = state.hingeAngle {
            text = "\(state.posture.rawValue) (hinge \(Int(angle.rounded()))°)"
        } else if state.posture == .unknown, let hold = state.hold {
            return "unknown (\(hold.rawValue))" + (state.heldFor.map { ", for \(heldText($0))" } ?? "")
        } else {
            text = state.posture == .closed ? "closed (lid switch)" : state.posture.rawValue
        }
        if let hold = state.hold, state.posture != .unknown {
            text += ", held" + (state.heldFor.map { " \(heldText($0))" } ?? "") + " (\(hold.rawValue))"
        }
        return text
    }

    /// `0.4 s`, `12 s`, `3 min 20 s`.
    static func heldText(_ seconds: Double) -> String {
        if seconds < 10 { return "\(EventFormat.fixed(seconds, decimals: 1)) s" }
        let whole = Int(seconds.rounded())
        return whole < 60 ? "\(whole) s" : "\(whole / 60) min \(whole % 60) s"
    }

    /// `{"time":12.345000,"posture":"laptop","previous":"closed","hinge":112.3}`: the
    /// protocol's `posture` message's names (docs/PROTOCOL.md), `hinge` to 0.1° or `null`.
    static func json(_ event: PostureEvent) -> String {
        JSONWriter.serialize(.object([
            ("time", event.time.isFinite ? .exactNumber(EventFormat.seconds(event.time)) : .null),
            ("posture", .string(event.posture.rawValue)),
            ("previous", .string(event.previous.rawValue)),
            ("hinge", event.hingeAngle.map { .exactNumber(EventFormat.fixed($0, decimals: 1)) } ?? .null),
        ]))
    }
}
