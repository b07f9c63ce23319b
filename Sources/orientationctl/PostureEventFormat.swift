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
    static func describe(_ state: PostureState) -> String {
        guard state.present else { return "no base accelerometer" }
        if let angle = state.hingeAngle { return "\(state.posture.rawValue) (hinge \(Int(angle.rounded()))°)" }
        if state.posture == .unknown, let hold = state.hold { return "unknown (\(hold.rawValue))" }
        return state.posture == .closed ? "closed (lid switch)" : state.posture.rawValue
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
