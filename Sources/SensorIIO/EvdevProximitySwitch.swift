import Glibc
import OrientationCore
import SensorDeviceAccess
import SensorInput

/// Proximity sensors that the kernel exposes as an input switch, `SW_FRONT_PROXIMITY` (some
/// phones' and tablets' proximity sensors, e.g. through gpio-keys): found through libudev among
/// `input` event nodes whose device lists the switch in `capabilities/sw`, and read from the
/// event node (``AuxiliarySensorReader``). Finding and reading are the ones every input switch
/// shares (issue 30): ``InputSwitchDiscovery`` and ``InputSwitchReader``.
public enum EvdevProximitySwitch {
    /// `SW_FRONT_PROXIMITY` (linux/input-event-codes.h).
    public static let code = InputSwitchCode.frontProximity.rawValue

    /// Whether a sysfs capability bitmap (`capabilities/sw`) has bit `bit`: false for text that
    /// is not a bitmap (``InputCapabilityBitmap``, which this forwards to).
    public static func bitmap(_ text: String, has bit: Int, bitsPerWord: Int = Int.bitWidth) -> Bool {
        InputCapabilityBitmap(text, bitsPerWord: bitsPerWord)?.contains(bit) ?? false
    }

    /// The switch devices of `devices` (an input-switch discovery's) with the switch, described.
    static func sensors(from devices: [InputSwitchDevice]) -> [AuxiliarySensorDescription] {
        devices.filter { $0.has(.frontProximity) }.map { device in
            AuxiliarySensorDescription(
                kind: .proximity, id: device.id, name: device.name ?? device.id, sysfsPath: device.sysfsPath,
                shape: .evdevSwitch(node: device.node), nearLevel: (0.5, "evdev SW_FRONT_PROXIMITY"), properties: device.properties,
                backend: InputSwitchBackend.name)
        }
    }

    /// Reads the switch until `stopping` (the owner thread's wake-up descriptor becomes
    /// readable): the state now, where the driver answers `EVIOCGSW` (else far until the first
    /// event), then each change. Returns a failure's reason, or `nil` when stopped.
    static func read(node: String, wakeFD: Int32, isStopping: () -> Bool, onValue: (Double) -> Void) -> String? {
        InputSwitchReader.follow(node: node, code: .frontProximity, unknownInitialState: false, wakeFD: wakeFD,
                                 isStopping: isStopping, onChange: { onValue($0.isOn ? 1 : 0) })
    }
}
