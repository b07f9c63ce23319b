import CLibUdev
import CLinuxInput
import Glibc
import OrientationCore

/// Proximity sensors that the kernel exposes as an input switch, `SW_FRONT_PROXIMITY` (some
/// phones' and tablets' proximity sensors, e.g. through gpio-keys): found through libudev among
/// `input` event nodes whose device lists the switch in `capabilities/sw`, and read from the
/// event node (``AuxiliarySensorReader``).
public enum EvdevProximitySwitch {
    /// `SW_FRONT_PROXIMITY` (linux/input-event-codes.h).
    public static let code = 0x0b
    /// `EV_SW`.
    static let eventType: UInt16 = 0x05

    /// Whether a sysfs capability bitmap (`capabilities/sw`: hexadecimal words, most significant
    /// first, as many bits per word as the kernel's `long`) has bit `bit`.
    public static func bitmap(_ text: String, has bit: Int, bitsPerWord: Int = Int.bitWidth) -> Bool {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).reversed().map { UInt64($0, radix: 16) }
        guard !words.contains(nil) else { return false }
        let index = bit / bitsPerWord
        guard index < words.count, let word = words[index] else { return false }
        return word & (1 << UInt64(bit % bitsPerWord)) != 0
    }

    /// The event nodes with the switch, described (on the calling thread, which libudev blocks).
    static func sensors() throws(SensorError) -> [AuxiliarySensorDescription] {
        var result: [AuxiliarySensorDescription] = []
        try UdevEnumeration.forEachDevice(subsystems: ["input"]) { device in
            guard let id = udev_device_get_sysname(device).map({ String(cString: $0) }), id.hasPrefix("event"),
                  let node = udev_device_get_devnode(device).map({ String(cString: $0) }),
                  let path = udev_device_get_syspath(device).map({ String(cString: $0) }),
                  let parent = udev_device_get_parent(device),
                  let capabilities = UdevEnumeration.attribute(parent, "capabilities/sw"),
                  bitmap(capabilities, has: code) else { return }
            result.append(AuxiliarySensorDescription(
                kind: .proximity, id: id, name: UdevEnumeration.attribute(parent, "name") ?? id, sysfsPath: path,
                shape: .evdevSwitch(node: node), nearLevel: (0.5, "evdev SW_FRONT_PROXIMITY"),
                properties: UdevEnumeration.properties(device), backend: InputSwitchBackend.name))
        }
        return result
    }

    /// Reads the switch until `stopping` (the owner thread's wake-up descriptor becomes
    /// readable): the state now, where the driver answers `EVIOCGSW` (else far until the first
    /// event), then each change. Returns a failure's reason, or `nil` when stopped.
    static func read(node: String, wakeFD: Int32, isStopping: () -> Bool, onValue: (Double) -> Void) -> String? {
        let fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return "cannot open \(node): \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        var states = [UInt8](repeating: 0, count: 8)
        let known = od_input_switch_states(fd, &states, UInt32(states.count)) >= 0
        onValue(known && states[code / 8] & (1 << UInt8(code % 8)) != 0 ? 1 : 0)
        var pollers = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        var decoder = InputEventDecoder()
        while !isStopping() {
            guard poll(&pollers, 2, -1) > 0 else { continue }
            if pollers[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return "\(node) went away" }
            guard pollers[0].revents & Int16(POLLIN) != 0 else { continue }
            switch decoder.read(fd) {
            case .nothing: continue
            case .endOfFile: return "\(node) went away"
            case .failed(let error): return "cannot read \(node): \(String(cString: strerror(error)))"
            case .events(let events):
                for event in events where event.type == eventType && Int(event.code) == code { onValue(event.value != 0 ? 1 : 0) }
            }
        }
        return nil
    }
}
