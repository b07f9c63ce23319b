import AmbientSensorCore
import ArgumentParser
import OrientationClient
import OrientationProtocol

/// How `orientationctl monitor` and `get` print a light, proximity or compass state.
enum ReadingFormat {
    /// `light 312.5 lux`, `proximity near`, `compass 271.0`, `light: no ambient light sensor`,
    /// `light: no reading yet`.
    static func text(_ sensor: AuxiliarySensorState) -> String {
        sensor.present && sensor.reading != nil ? "\(sensor.kind) \(value(sensor))" : "\(sensor.kind): \(value(sensor))"
    }

    /// The value alone: `312.5 lux`, `near`/`far`, `271.0`, `no ambient light sensor`, `no reading yet`.
    static func value(_ sensor: AuxiliarySensorState) -> String {
        guard sensor.present else { return "no \(sensor.kind.noun)" }
        switch sensor.reading {
        case .light(let level, let unit)?: return "\(EventFormat.fixed(level, decimals: 1)) \(unit.rawValue)"
        case .proximity(let near)?: return near ? "near" : "far"
        case .compass(let heading)?: return EventFormat.fixed(heading, decimals: 1)
        case nil: return "no reading yet"
        }
    }

    /// The wire object with `type`, one line.
    static func json(_ sensor: AuxiliarySensorState) -> String {
        JSONWriter.serialize(.object([("type", .string(sensor.kind.rawValue))] + sensor.members))
    }
}

/// `--light`, `--proximity`, `--compass`: the topics to subscribe to besides the orientation.
struct TopicOptions: ParsableArguments {
    @Flag(help: "Also show the ambient light level (opens the light sensor while running).")
    var light = false
    @Flag(help: "Also show whether something is near the proximity sensor.")
    var proximity = false
    @Flag(help: "Also show the compass heading (degrees from magnetic north).")
    var compass = false
    @Flag(help: "Also show a convertible's posture (laptop, tent, tablet, ...; opens both accelerometers while running).")
    var posture = false

    /// The topics to subscribe to besides the orientation, `nil` for the orientation alone.
    var topics: [SubscriptionTopic]? {
        let extra = kinds.map(SubscriptionTopic.init) + (posture ? [.posture] : [])
        return extra.isEmpty ? nil : [.orientation] + extra
    }

    /// The auxiliary kinds asked for, in the order they are printed.
    var kinds: [AuxiliarySensorKind] {
        [(light, AuxiliarySensorKind.light), (proximity, .proximity), (compass, .compass)].compactMap { $0.0 ? $0.1 : nil }
    }
}
