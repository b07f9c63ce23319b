import OrientationCore
import SensorDeviceAccess
import SensorInput

/// The input-switch row of ``SensorBackends/all``: input event nodes whose device lists switches
/// in `capabilities/sw` (``InputSwitchDiscovery``). Those with `SW_FRONT_PROXIMITY` (some
/// phones' and tablets' proximity sensors, through gpio-keys) are proximity sensors read from
/// their events (``EvdevProximitySwitch``): 1 near, 0 far; every switch device (the lid, a
/// tablet-mode switch) is listed for the posture and the virtual tablet-mode switch.
public enum InputSwitchBackend: SensorBackend {
    public static let name = "input-switch"
    public static let families: Set<SensorFamily> = [.auxiliary, .switches]

    public static func discover(_ family: SensorFamily) throws(SensorError) -> DiscoveredSensors {
        try discover([family])
    }

    /// One enumeration of the input switches for both families.
    public static func discover(_ families: Set<SensorFamily>) throws(SensorError) -> DiscoveredSensors {
        let devices = try InputSwitchDiscovery.allSwitchDevices()
        return DiscoveredSensors(auxiliary: families.contains(.auxiliary) ? EvdevProximitySwitch.sensors(from: devices) : [],
                                 switches: families.contains(.switches) ? devices : [])
    }

    public static func auxiliaryRead(_ sensor: AuxiliarySensorDescription) -> AuxiliaryRead? {
        guard case .evdevSwitch(let node) = sensor.shape else { return nil }
        // Not polled: the switch's events wake the thread.
        return .wakesItself { owner, onValue in
            EvdevProximitySwitch.read(node: node, wakeFD: owner.wakeFD, isStopping: { owner.isStopping }, onValue: onValue)
        }
    }
}
