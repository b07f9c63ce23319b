import OrientationCore
import SensorDeviceAccess

/// The input-switch row of ``SensorBackends/all``: input event nodes whose device lists
/// `SW_FRONT_PROXIMITY` in `capabilities/sw` (some phones' and tablets' proximity sensors,
/// through gpio-keys), read from their events (``EvdevProximitySwitch``): 1 near, 0 far.
public enum InputSwitchBackend: SensorBackend {
    public static let name = "input-switch"
    public static let families: Set<SensorFamily> = [.auxiliary]

    public static func discover(_ family: SensorFamily) throws(SensorError) -> DiscoveredSensors {
        DiscoveredSensors(auxiliary: try EvdevProximitySwitch.sensors())
    }

    public static func auxiliaryRead(_ sensor: AuxiliarySensorDescription) -> AuxiliaryRead? {
        guard case .evdevSwitch(let node) = sensor.shape else { return nil }
        // Not polled: the switch's events wake the thread.
        return .wakesItself { owner, onValue in
            EvdevProximitySwitch.read(node: node, wakeFD: owner.wakeFD, isStopping: { owner.isStopping }, onValue: onValue)
        }
    }
}
