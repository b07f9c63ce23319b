import AmbientSensorCore
import OrientationCore
import PostureCore

/// One line from the server. Every message has a `"type"`; replies echo the request's `"id"`.
public enum ServerMessage: Hashable, Sendable {
    /// Sent once on connect: protocol version, server version and the current state.
    case hello(protocol: Int, server: String, state: OrientationState)
    /// Reply to `subscribe`, with the current state at once.
    case subscribed(state: OrientationState, id: JSONValue?)
    /// Reply to `unsubscribe`.
    case unsubscribed(id: JSONValue?)
    /// Reply to `get`: the state, how many seconds ago it last changed (`nil` before any change),
    /// whether a sensor is currently claimed, and how many clients subscribe.
    /// `sensors`: the light, proximity and compass sensors' states (members `light`,
    /// `proximity`, `compass`; empty from a server before topics). `posture`: a convertible's
    /// posture (member `posture`; `nil` from a server before issue 30).
    case state(state: OrientationState, age: Double?, sensorActive: Bool, subscribers: Int, sensors: [AuxiliarySensorState] = [],
               posture: PostureState? = nil, id: JSONValue?)
    /// Reply to `ping`.
    case pong(id: JSONValue?)
    /// An orientation change, to subscribers.
    case orientation(state: OrientationState)
    /// The rotation lock changed (to subscribers), or the reply to `lock`/`unlock` (with `id`).
    case lock(state: OrientationState, id: JSONValue?)
    /// The sensor's state changed (to subscribers): opened, closed, absent, failed (with why).
    /// Carries the whole state; `seq` does not change for it.
    case sensor(state: OrientationState)
    /// A light, proximity or compass reading or presence change (type `light`, `proximity`,
    /// `compass`), to subscribers of that topic; also sent once right after `subscribed` for
    /// each such topic, with the current state.
    case reading(AuxiliarySensorState)
    /// A convertible's posture (type `posture`; ``PostureState``), to subscribers of the
    /// `posture` topic; also sent once right after `subscribed` with the current state.
    case posture(PostureState)
    /// Something was wrong with a request; unless the code closes the connection, it stays open.
    case error(ProtocolError, id: JSONValue?)
    /// The server is shutting down; the connection closes after this line.
    case goodbye(reason: String)
    /// A message type this client does not know (a newer server); ignore it.
    case unknown(type: String)

    /// The wire form, one line without `\n`.
    public var line: String {
        JSONWriter.serialize(jsonValue)
    }

    public var jsonValue: JSONValue {
        func with(_ type: String, _ members: [(String, JSONValue)], id: JSONValue? = nil) -> JSONValue {
            var all: [(String, JSONValue)] = [("type", .string(type))] + members
            if let id { all.append(("id", id)) }
            return .object(all)
        }
        switch self {
        case let .hello(version, server, state):
            return with("hello", [("protocol", .number(Double(version))), ("server", .string(server))] + state.members
                        + [("topics", .array(SubscriptionTopic.offered.map { .string($0.rawValue) }))])
        case let .subscribed(state, id):
            return with("subscribed", state.members, id: id)
        case let .unsubscribed(id):
            return with("unsubscribed", [], id: id)
        case let .state(state, age, sensorActive, subscribers, sensors, posture, id):
            return with("state", state.members + [("age", age.map { .number($0) } ?? .null),
                                                  ("sensor-active", .bool(sensorActive)),
                                                  ("subscribers", .number(Double(subscribers)))]
                        + sensors.map { ($0.kind.rawValue, .object($0.members)) }
                        + (posture.map { [("posture", .object($0.members))] } ?? []), id: id)
        case let .reading(sensor):
            return with(sensor.kind.rawValue, sensor.members)
        case let .posture(state):
            return with("posture", state.members)
        case let .pong(id):
            return with("pong", [], id: id)
        case let .orientation(state):
            return with("orientation", state.members)
        case let .lock(state, id):
            return with("lock", state.members, id: id)
        case let .sensor(state):
            return with("sensor", state.members)
        case let .error(error, id):
            return with("error", [("code", .string(error.code.rawValue)), ("message", .string(error.message))], id: id)
        case let .goodbye(reason):
            return with("goodbye", [("reason", .string(reason))])
        case let .unknown(type):
            return with(type, [])
        }
    }

    /// Parses a server line (the client side).
    public static func parse(_ line: some Collection<UInt8>) throws(ProtocolError) -> ServerMessage {
        let value: JSONValue
        do {
            value = try JSONReader.parse(line)
        } catch {
            throw ProtocolError(.invalidMessage, "server sent invalid JSON: \(error)")
        }
        guard let type = value["type"]?.stringValue else {
            throw ProtocolError(.invalidMessage, "server message without a \"type\"")
        }
        let id = value["id"]
        switch type {
        case "hello":
            guard let number = value["protocol"]?.numberValue, let version = Int(exactly: number) else {
                throw ProtocolError(.invalidMessage, "hello without a whole protocol number")
            }
            return .hello(protocol: version, server: value["server"]?.stringValue ?? "", state: try OrientationState(members: value))
        case "subscribed": return .subscribed(state: try OrientationState(members: value), id: id)
        case "unsubscribed": return .unsubscribed(id: id)
        case "state":
            guard let subscribers = Int(exactly: value["subscribers"]?.numberValue ?? 0) else {
                throw ProtocolError(.invalidMessage, "subscribers must be a whole number")
            }
            return .state(state: try OrientationState(members: value), age: value["age"]?.numberValue,
                          sensorActive: value["sensor-active"]?.boolValue ?? false,
                          subscribers: subscribers,
                          sensors: AuxiliarySensorKind.allCases.compactMap { kind in value[kind.rawValue].map { AuxiliarySensorState(kind: kind, members: $0) } },
                          posture: value["posture"].flatMap { if case .object = $0 { PostureState(members: $0) } else { nil } },
                          id: id)
        case "pong": return .pong(id: id)
        case "orientation": return .orientation(state: try OrientationState(members: value))
        case "lock": return .lock(state: try OrientationState(members: value), id: id)
        case "sensor": return .sensor(state: try OrientationState(members: value))
        case "error":
            guard let codeName = value["code"]?.stringValue, let code = ProtocolError.Code(rawValue: codeName) else {
                throw ProtocolError(.invalidMessage, "error with an unknown code")
            }
            return .error(ProtocolError(code, value["message"]?.stringValue ?? ""), id: id)
        case "light", "proximity", "compass": return .reading(AuxiliarySensorState(kind: AuxiliarySensorKind(rawValue: type)!, members: value))
        case "posture": return .posture(PostureState(members: value))
        case "goodbye": return .goodbye(reason: value["reason"]?.stringValue ?? "")
        default: return .unknown(type: type)
        }
    }
}

/// Protocol constants.
public enum OrientationProtocol {
    /// The protocol version this library speaks.
    public static let version = 1
    /// The release both programs print for `--version`; the daemon's `hello` says
    /// `orientationd` and the same number (a test holds the two together).
    public static let softwareVersion = "0.1.0"
    /// The default socket path of the system daemon.
    public static let defaultSocketPath = "/run/orientationd/orientationd.sock"
}
