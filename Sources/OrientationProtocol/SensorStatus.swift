/// Whether the daemon's sensor is open, and if not, why: what `get`, `monitor` and `follow`
/// show beside the orientation, so that "no accelerometer" is not hidden behind `unknown`.
///
/// On the wire it is two members of every state-carrying message: `sensor` (the ``State``'s
/// name) and `sensor-reason` (a sentence for people, or `null`). A server that predates them
/// sends neither, and the client sees `nil` (docs/PROTOCOL.md, "The sensor").
public struct SensorStatus: Hashable, Sendable {
    /// The sensor's state.
    public enum State: String, Hashable, Sendable, CaseIterable {
        /// Nobody subscribes (or claims over D-Bus), so the sensor is closed on purpose.
        case closed
        /// Someone subscribes and the daemon is opening (or reopening) the sensor.
        case opening
        /// The sensor is open and delivering samples to the detector.
        case open
        /// Someone subscribes but there is no display accelerometer; the daemon waits for one.
        case absent
        /// Opening or reading the sensor failed; the daemon retries with a growing delay.
        case failed
        /// A recorded log (`--replay`) has been replayed to its end.
        case ended
    }

    public var state: State
    /// Why the sensor is not open (for `absent` and `failed`: the daemon's error), else `nil`.
    public var reason: String?
    /// Whether discovery finds a display accelerometer, whatever the state (issue 29: a client
    /// learns "there is none" before anyone subscribes); `nil` when the daemon does not know
    /// (a replay) or predates the member. On the wire `sensor-present`, sent only when known.
    public var present: Bool?

    public init(_ state: State, reason: String? = nil, present: Bool? = nil) {
        self.state = state
        self.reason = reason
        self.present = present
    }

    /// The command that tells a user more, for the states that need one.
    public var help: String? {
        switch state {
        case .absent, .failed: "orientationd --list-sensors"
        case .closed: reason == nil && present != false ? nil : "orientationd --list-sensors"
        case .opening, .open: present == false ? "orientationd --list-sensors" : nil
        case .ended: nil
        }
    }

    /// One line for people: `absent: no display accelerometer found; see orientationd --list-sensors`.
    public var summary: String {
        let phrase: String = switch state {
        case .closed: "closed (nobody subscribes)"
        case .opening: "opening"
        case .open: "open"
        case .absent: "absent"
        case .failed: "failed"
        case .ended: "ended"
        }
        var text = phrase
        if let reason {
            text += ": \(Self.withoutHelp(reason))"
        } else if present == false, state != .ended {
            text += ": \(Self.noAccelerometer)"
        }
        if let help { text += "; see \(help)" }
        return text
    }

    /// The daemon's message without its own "(orientationd --list-sensors …)" hint, which
    /// ``summary`` gives once.
    static func withoutHelp(_ reason: String) -> String {
        guard let open = reason.firstRange(of: " (orientationd --list-sensors") else { return reason }
        return String(reason[..<open.lowerBound])
    }

    /// What ``summary`` says when discovery finds no accelerometer and nothing else was said.
    public static let noAccelerometer = "no display accelerometer found"

    var members: [(String, JSONValue)] {
        [("sensor", .string(state.rawValue)), ("sensor-reason", reason.map { .string($0) } ?? .null)]
            + (present.map { [("sensor-present", .bool($0))] } ?? [])
    }

    /// Reads the members; `nil` when `sensor` is missing (an older server) or names a state this
    /// client does not know (a newer one).
    init?(members value: JSONValue) {
        guard let name = value["sensor"]?.stringValue, let state = State(rawValue: name) else { return nil }
        self.init(state, reason: value["sensor-reason"]?.stringValue, present: value["sensor-present"]?.boolValue)
    }
}
