import CLibUdev
import SensorDeviceAccess

/// Finds input switches through libudev (issue 30): the lid switch (`SW_LID`), a real
/// tablet-mode switch (`SW_TABLET_MODE`, so that orientationd never adds its own beside one)
/// and `SW_FRONT_PROXIMITY` (a proximity sensor). The input-switch row of the backend table
/// (SensorIIO's `InputSwitchBackend`) calls it; everything else asks the table (issue 36), whose
/// `DiscoveredSensors` says which is the lid, which a real tablet-mode switch.
///
/// How: every `input` device named `event*` with a device node, whose parent input device
/// lists the switch in `capabilities/sw` (``InputCapabilityBitmap``). The udev property
/// `ID_INPUT_SWITCH` is not used: udev's input_id sets it for any switch (a headphone jack
/// too), and an eudev or a container without udev's rules has none. Blocks while libudev reads
/// sysfs: call it on an owner thread (or through `OwnerThread.run`).
///
/// Traps, from real machines:
/// - intel-hid's `Intel HID switches` appears only at the first fold on many laptops (the
///   driver registers it on the first tablet-mode event; an HP Envy x360's `udevadm monitor` in
///   https://github.com/sebanc/brunch/issues/1742 shows `add /devices/platform/INTC1051:00/input/input26`
///   as it folds). So a real switch can arrive after start: whoever keeps a virtual switch must
///   look again on each udev `add` of an `input` device and remove its own when one appears.
/// - Some firmware registers a tablet-mode switch that never reports (hp-wmi on some HP
///   x360s). It still counts as real: a user who wants orientationd's instead disables the
///   driver's (or hides it with a udev rule).
public enum InputSwitchDiscovery {
    /// Every event node of an input device with at least one switch.
    public static func allSwitchDevices() throws(SensorError) -> [InputSwitchDevice] {
        var result: [InputSwitchDevice] = []
        try UdevEnumeration.forEachDevice(subsystems: ["input"]) { device in
            guard let id = udev_device_get_sysname(device).map({ String(cString: $0) }), id.hasPrefix("event"),
                  let node = udev_device_get_devnode(device).map({ String(cString: $0) }),
                  let path = udev_device_get_syspath(device).map({ String(cString: $0) }),
                  let parent = udev_device_get_parent(device),
                  let text = UdevEnumeration.attribute(parent, "capabilities/sw"),
                  let switches = InputCapabilityBitmap(text), !switches.bits.isEmpty else { return }
            result.append(InputSwitchDevice(
                id: id, node: node, sysfsPath: path, name: UdevEnumeration.attribute(parent, "name"),
                phys: UdevEnumeration.attribute(parent, "phys"),
                busType: UdevEnumeration.attribute(parent, "id/bustype").flatMap { UInt16($0, radix: 16) },
                switches: switches, properties: UdevEnumeration.properties(device)))
        }
        return result
    }
}
