import CUMockdev
import Glibc

/// umockdev descriptions of input switches as real machines' udev shows them (issue 30): each
/// an `inputN` device (name, phys, id, capabilities) and its `eventN` node (a PTY: bytes written
/// to it are the `struct input_event`s a reader gets).
///
/// Sources, real dumps from public bug reports:
/// - The ACPI lid switch: `udevadm` properties of an Ideapad's "Lid Switch" in
///   https://github.com/atareao/Touchpad-Indicator/issues/6 (DEVPATH
///   /devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0D:00/input/input0, NAME "Lid Switch", PHYS
///   "PNP0C0D/button/input0", PRODUCT 19/0/5/0, EV 21, SW 1, MODALIAS
///   input:b0019v0000p0005e0000-e0,5,kramlsfw0,; its event0 with ID_INPUT_SWITCH); the same
///   identity in the ONEXPLAYER 3's /proc/bus/input/devices in
///   https://github.com/ShadowBlip/InputPlumber/pull/660 (Bus=0019 Product=0005, B: SW=1).
/// - intel-hid's tablet-mode switch: an HP Envy x360 15's `udevadm monitor` while folding to
///   tablet mode in https://github.com/sebanc/brunch/issues/1742 (add
///   /devices/platform/INTC1051:00/input/input26 and its event23: the driver adds the device at
///   the first fold), named "Intel HID switches" as libinput lists it in
///   https://github.com/asus-linux-drivers/asus-accel-tablet-mode-driver/issues/4; the kernel's
///   drivers/platform/x86/intel/hid.c (intel_hid_switches_setup) gives it only SW_TABLET_MODE
///   (capabilities/sw 2), BUS_HOST and no phys.
/// - intel-vbtn's "Intel Virtual Switches" (drivers/platform/x86/intel/vbtn.c: SW_TABLET_MODE
///   and SW_DOCK, capabilities/sw 22, BUS_HOST, no phys), under the INT33D6:00 platform device of
///   the by-path link /dev/input/by-path/pci-0000:00:1f.0-platform-INT33D6:00-event in
///   https://github.com/sebanc/brunch/issues/764.
enum FakeInputSwitch {
    struct Device {
        let description: String
        /// The event node's syspath.
        let syspath: String
        let node: String
    }

    /// An input device `input<index>` at `parent` with its `event<index>` node.
    static func device(index: Int, parent: String, name: String, phys: String?, bus: String, product: String,
                       switches: String, properties: [String] = []) -> Device {
        let input = "\(parent)/input/input\(index)"
        var lines = ["P: \(input)", "E: SUBSYSTEM=input", "E: PRODUCT=\(hex(bus))/0/\(hex(product))/0",
                     "E: NAME=\"\(name)\"", "E: PROP=0", "E: EV=21", "E: SW=\(switches)", "E: ID_INPUT=1", "E: ID_INPUT_SWITCH=1"]
        if let phys { lines.append("E: PHYS=\"\(phys)\"") }
        lines += properties
        lines += ["A: name=\(name)\\n", "A: id/bustype=\(bus)\\n", "A: id/vendor=0000\\n", "A: id/product=\(product)\\n",
                  "A: id/version=0000\\n", "A: capabilities/ev=21\\n", "A: capabilities/sw=\(switches)\\n"]
        lines.append("A: phys=\(phys ?? "")\\n")
        lines += ["", "P: \(input)/event\(index)", "N: input/event\(index)", "E: SUBSYSTEM=input", "E: DEVNAME=/dev/input/event\(index)",
                  "E: MAJOR=13", "E: MINOR=\(64 + index)", "E: ID_INPUT=1", "E: ID_INPUT_SWITCH=1", "A: dev=13:\(64 + index)\\n"]
        return Device(description: lines.joined(separator: "\n") + "\n\n", syspath: "/sys\(input)/event\(index)",
                      node: "/dev/input/event\(index)")
    }

    /// A sysfs id (`0019`) as the kernel's uevent PRODUCT spells it (`19`: hex without leading zeros).
    private static func hex(_ id: String) -> String {
        String(Int(id, radix: 16) ?? 0, radix: 16)
    }

    /// ACPI's lid switch (button driver, PNP0C0D).
    static func acpiLid(_ index: Int = 0) -> Device {
        device(index: index, parent: "/devices/LNXSYSTM:00/LNXSYBUS:00/PNP0C0D:00", name: "Lid Switch", phys: "PNP0C0D/button/input0",
               bus: "0019", product: "0005", switches: "1",
               properties: ["E: MODALIAS=input:b0019v0000p0005e0000-e0,5,kramlsfw0,", "E: ID_PATH=acpi-PNP0C0D:00",
                            "E: ID_PATH_TAG=acpi-PNP0C0D_00", "E: TAGS=:seat:"])
    }

    /// intel-hid's tablet-mode switch.
    static func intelHIDSwitches(_ index: Int) -> Device {
        device(index: index, parent: "/devices/platform/INTC1051:00", name: "Intel HID switches", phys: nil,
               bus: "0019", product: "0000", switches: "2")
    }

    /// intel-vbtn's switches (tablet mode and dock).
    static func intelVirtualSwitches(_ index: Int) -> Device {
        device(index: index, parent: "/devices/pci0000:00/0000:00:1f.0/INT33D6:00", name: "Intel Virtual Switches", phys: nil,
               bus: "0019", product: "0000", switches: "22")
    }

    /// orientationd's own virtual switch as the kernel shows a uinput device.
    static func orientationdSwitch(_ index: Int) -> Device {
        device(index: index, parent: "/devices/virtual", name: "orientationd tablet mode switch", phys: "orientationd/tablet-mode",
               bus: "0006", product: "5401", switches: "2")
    }

    /// Another program's uinput tablet-mode switch (same bus, another name): a real switch to us.
    static func otherVirtualSwitch(_ index: Int) -> Device {
        device(index: index, parent: "/devices/virtual", name: "tablet-mode-hotkey", phys: nil, bus: "0006", product: "0001",
               switches: "2")
    }

    /// A device that only borrows our name (another bus, no phys): not ours.
    static func namesake(_ index: Int) -> Device {
        device(index: index, parent: "/devices/platform/fake-switch", name: "orientationd tablet mode switch", phys: nil,
               bus: "0019", product: "0000", switches: "2")
    }

    /// An HDA headphone jack: a switch, but neither lid nor tablet mode.
    static func headphoneJack(_ index: Int) -> Device {
        device(index: index, parent: "/devices/pci0000:00/0000:00:1f.3/sound/card0", name: "HDA Intel PCH Headphone", phys: "ALSA",
               bus: "0000", product: "0000", switches: "4")
    }

    /// One `struct input_event` (x86-64: 16 bytes of time, then type, code, value).
    static func event(type: UInt16, code: UInt16, value: Int32) -> [UInt8] {
        FakeAuxiliaryDevice.inputEvent(type: type, code: code, value: value)
    }

    /// `EV_SW` `code` = `value`, then `SYN_REPORT`.
    static func switchFrame(_ code: UInt16, _ value: Int32) -> [UInt8] {
        event(type: 5, code: code, value: value) + event(type: 0, code: 0, value: 0)
    }

    /// An umockdev ioctl record answering `EVIOCGSW` with `states` (a bit per switch, as one
    /// 64-bit long, little-endian), written to a file for `umockdev_testbed_load_ioctl`.
    static func switchStateRecord(_ states: UInt64) -> String {
        let bytes = withUnsafeBytes(of: states.littleEndian) { Array($0) }
        let path = temporaryRecordPath()
        let text = "EVIOCGSW(0) 8 " + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined() + "\n"
        let file = fopen(path, "w")!
        fputs(text, file)
        fclose(file)
        return path
    }

    private static func temporaryRecordPath() -> String {
        var template = Array("/tmp/orientationd-evioc-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        close(fd)
        return template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
