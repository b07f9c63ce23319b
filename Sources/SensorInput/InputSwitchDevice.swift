/// An evdev node whose input device has switches (`capabilities/sw` not empty), as
/// ``InputSwitchDiscovery`` found it through libudev: the event node to read and the identity
/// of its input device (the `inputN` parent, where the kernel keeps `name`, `phys`, `id/…` and
/// `capabilities/…`).
public struct InputSwitchDevice: Sendable, Hashable {
    /// The event node's sysfs name (`event3`).
    public let id: String
    /// The device node (`/dev/input/event3`).
    public let node: String
    /// The event node's sysfs path.
    public let sysfsPath: String
    /// The input device's `name` (`Lid Switch`, `Intel HID switches`), if it has one.
    public let name: String?
    /// The input device's `phys` (`PNP0C0D/button/input0`), if set (many platform drivers,
    /// intel-hid and intel-vbtn among them, set none).
    public let phys: String?
    /// `id/bustype` (BUS_HOST 0x19 for ACPI and platform switches, BUS_VIRTUAL 0x06 for uinput).
    public let busType: UInt16?
    /// The switches it has (`capabilities/sw`).
    public let switches: InputCapabilityBitmap
    /// The event node's udev properties.
    public let properties: [String: String]

    public init(id: String, node: String, sysfsPath: String, name: String?, phys: String?, busType: UInt16?,
                switches: InputCapabilityBitmap, properties: [String: String] = [:]) {
        self.id = id
        self.node = node
        self.sysfsPath = sysfsPath
        self.name = name
        self.phys = phys
        self.busType = busType
        self.switches = switches
        self.properties = properties
    }

    /// Whether it has switch `code`.
    public func has(_ code: InputSwitchCode) -> Bool { switches.contains(code.rawValue) }

    /// Whether this is orientationd's own virtual tablet-mode switch (``UInputTabletModeSwitch``):
    /// its name, its `phys` and the virtual bus all match. Any other device with
    /// `SW_TABLET_MODE`, a virtual one made by another program included, counts as a real
    /// switch.
    public var isOrientationdTabletModeSwitch: Bool {
        name == UInputTabletModeSwitch.deviceName && phys == UInputTabletModeSwitch.phys
            && busType == UInputTabletModeSwitch.busType
    }
}
