import AmbientSensorCore
import OrientationCore

/// What a socket client subscribes to (`{"op":"subscribe","topics":["light"]}`): the
/// orientation (the default, and all a client without `topics` gets) or a light, proximity or
/// compass sensor. Each topic claims its own sensor: the first subscriber opens it, the last
/// one closes it.
///
/// `posture` (a convertible's posture, issue 30) claims the display and base accelerometers;
/// on a machine without a base accelerometer its state says `present: false`.
public enum SubscriptionTopic: String, Sendable, Hashable, CaseIterable {
    case orientation, light, proximity, compass, posture

    /// The topics this version of the server serves: `hello` lists them, `subscribe` accepts
    /// them (a name defined here but not offered would be refused as clearly as an unknown one).
    public static let offered: [SubscriptionTopic] = [.orientation, .light, .proximity, .compass, .posture]

    /// The sensor kind behind an auxiliary topic (`nil` for `orientation`).
    public var sensor: AuxiliarySensorKind? { AuxiliarySensorKind(rawValue: rawValue) }

    public init(_ kind: AuxiliarySensorKind) {
        self = SubscriptionTopic(rawValue: kind.rawValue)!
    }
}

extension AuxiliarySensorState {
    /// The wire members (besides `type`): `present`, then `level` and `unit` (light), `near`
    /// (proximity) or `heading` (compass), `null` before a reading.
    public var members: [(String, JSONValue)] {
        var members: [(String, JSONValue)] = [("present", .bool(present))]
        switch (kind, reading) {
        case (_, .light(let level, let unit)?): members += [("level", .number(level)), ("unit", .string(unit.rawValue))]
        case (.light, _): members += [("level", .null), ("unit", .null)]
        case (_, .proximity(let near)?): members.append(("near", .bool(near)))
        case (.proximity, _): members.append(("near", .null))
        case (_, .compass(let heading)?): members.append(("heading", .number(heading)))
        case (.compass, _): members.append(("heading", .null))
        }
        return members
    }

    /// Reads the members of a message or object of `kind` (tolerant: a missing value is no
    /// reading yet).
    public init(kind: AuxiliarySensorKind, members value: JSONValue) {
        var reading: AuxiliaryReading? = nil
        switch kind {
        case .light:
            if let level = value["level"]?.numberValue { reading = .light(level: level, unit: LightUnit(rawValue: value["unit"]?.stringValue ?? "") ?? .lux) }
        case .proximity:
            if let near = value["near"]?.boolValue { reading = .proximity(near: near) }
        case .compass:
            if let heading = value["heading"]?.numberValue { reading = .compass(heading: heading) }
        }
        self.init(kind: kind, present: value["present"]?.boolValue ?? false, reading: reading)
    }
}
