import AmbientSensorCore
import OrientationCore
import OwnerThreads
import SensorDeviceAccess
import SensorIIO

/// `orientationd --list-sensors`, second part: the light, proximity and compass sensors
/// discovery finds, which one of each kind the daemon would read, and why.
extension Orientationd {
    static func printAuxiliarySensors(_ settings: AuxiliarySettings) async throws {
        let sensors = try await OwnerThread.run(name: "od-udev-scan") { () throws(SensorError) in try AuxiliaryDiscovery.sensors() }
        for kind in AuxiliarySensorKind.allCases {
            let choice = AuxiliaryChoice.choose(kind, from: sensors, selector: settings.devices[kind])
            let found = sensors.filter { $0.kind == kind }
            if found.isEmpty { print("no \(kind.noun) found") }
            for sensor in found {
                print("\(sensor == choice.chosen ? "*" : " ") \(sensor.id)  \(sensor.name)  \(kind), \(describe(sensor, settings))")
                print("    \(choice.reasons[sensor.sysfsPath] ?? "")")
            }
            for warning in choice.warnings { print("warning: \(warning)") }
        }
    }

    private static func describe(_ sensor: AuxiliarySensorDescription, _ settings: AuxiliarySettings) -> String {
        var parts: [String] = []
        switch sensor.shape {
        case .polled(let value, let scale, let offset):
            parts.append("polled \(value)" + (scale.map { " × \($0)" } ?? "") + (offset.map { " + \($0)" } ?? ""))
        case .hwmonLight: parts.append("hwmon light (unit vendor)")
        case .buffered(let channel): parts.append("buffered \(channel)")
        case .evdevSwitch(let node): parts.append("input switch SW_FRONT_PROXIMITY on \(node)")
        }
        if let near = sensor.nearLevel { parts.append("near level \(near.value) from \(near.source)") }
        if sensor.kind == .light {
            let scale = settings.lightScale(for: sensor)
            parts.append("level × \(scale.factor) (\(scale.source))")
        }
        parts.append("backend \(sensor.backend)")
        return parts.joined(separator: ", ")
    }
}
