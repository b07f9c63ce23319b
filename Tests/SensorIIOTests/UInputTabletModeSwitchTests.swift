import Glibc
@testable import SensorIIO
import Testing
import TestSupport
@testable import SensorInput

/// orientationd's virtual tablet-mode switch (issue 30) against the real kernel: the clear
/// errors where uinput cannot be used, and, where the machine has uinput, the device read back
/// the way evtest and libinput read it (its sysfs identity, `EVIOCGSW`, its events), found by
/// the real libudev and left out of the real tablet-mode switches. Not under umockdev: the
/// device is the kernel's.
@Suite(.serialized)
struct UInputTabletModeSwitchTests {
    @Test func aMissingControlNodeSaysToLoadTheModule() {
        let directory = temporaryDirectory("uinput")
        defer { removeTree(directory) }
        let path = directory + "/uinput"
        #expect {
            _ = try UInputTabletModeSwitch(path: path, tabletMode: false)
        } throws: { error in
            guard let failure = error as? UInputTabletModeSwitch.Failure else { return false }
            return failure.step == "open" && failure.errno == ENOENT && failure.description.contains("modprobe uinput")
                && failure.description.contains(path)
        }
    }

    /// A file that opens for writing but is not uinput: refused at the first ioctl, with that
    /// said, and nothing left open. (A file of its own, not /dev/null, and the descriptors
    /// pointing at it counted, not all of the process's: other tests run beside this one and
    /// open and close descriptors meanwhile, so a count of all of them is a race.)
    @Test func aNodeThatIsNotUinputIsRefusedAtItsFirstIoctl() {
        var template = Array("/tmp/orientationd-not-uinput-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        close(fd)
        defer { unlink(path) }
        #expect {
            _ = try UInputTabletModeSwitch(path: path, tabletMode: true)
        } throws: { error in
            guard let failure = error as? UInputTabletModeSwitch.Failure else { return false }
            return failure.step == "UI_SET_EVBIT EV_SYN" && failure.errno == ENOTTY && failure.description.contains("not a uinput device")
        }
        #expect(descriptors(pointingAt: path) == 0, "the descriptor is closed on failure")
    }

    /// A character node whose driver is not there (what /dev/uinput is on a kernel without the
    /// module loaded, as on this project's test machine): ENXIO/ENODEV, and the advice to load it.
    @Test func aNodeWithoutItsDriverSaysToLoadTheModule() throws {
        let directory = temporaryDirectory("uinput")
        defer { removeTree(directory) }
        let path = directory + "/uinput"
        // Major 60 is reserved for local and experimental use (Documentation/admin-guide/devices.txt):
        // no driver a test machine loads claims it.
        guard mknod(path, S_IFCHR | 0o600, deviceNumber(60, 0)) == 0 else {
            try Test.cancel("cannot make a device node here (mknod: \(String(cString: strerror(errno)))): needs root")
        }
        #expect {
            _ = try UInputTabletModeSwitch(path: path, tabletMode: false)
        } throws: { error in
            guard let failure = error as? UInputTabletModeSwitch.Failure else { return false }
            return failure.step == "open" && (failure.errno == ENXIO || failure.errno == ENODEV)
                && failure.description.contains("modprobe uinput")
        }
    }

    /// Creates the switch, reads it back like evtest (sysfs identity, EVIOCGSW, the events on
    /// its node), checks that set(tabletMode:) writes one event per change, that discovery
    /// knows it as orientationd's own, that the switch reader follows it, and that close()
    /// removes it. Skipped, with the reason, where the machine has no usable uinput.
    @Test func theSwitchIsReadBackLikeEvtest() async throws {
        let control: String
        switch UInputAccess.probe() {
        case .usable(let path): control = path
        case .unusable(let reason): try Test.cancel("no uinput on this machine: \(reason)")
        }
        let device = try UInputTabletModeSwitch(path: control, tabletMode: false)
        defer { device.close() }
        let sysname = try #require(device.sysname, "UI_GET_SYSNAME")
        let input = "/sys/devices/virtual/input/\(sysname)"
        #expect(readTextIfPresent(input + "/name") == "orientationd tablet mode switch\n")
        #expect(readTextIfPresent(input + "/phys") == "orientationd/tablet-mode\n")
        #expect(readTextIfPresent(input + "/id/bustype") == "0006\n")
        #expect(readTextIfPresent(input + "/capabilities/sw") == "2\n")
        #expect(readTextIfPresent(input + "/capabilities/ev") == "21\n", "EV_SYN and EV_SW only")
        let event = try #require(UInputAccess.eventNode(of: input))
        let node = try UInputAccess.deviceNode(event: event.name, dev: event.dev)

        // Discovery through the real libudev: ours, and not a real switch.
        let found = try SensorBackends.discover([.switches]).switches.filter { $0.has(.tabletMode) }.filter { $0.id == event.name }
        #expect(found.count == 1 && found.first?.isOrientationdTabletModeSwitch == true)
        #expect(!(try SensorBackends.discover([.switches]).realTabletModeSwitches).contains { $0.id == event.name })

        let fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        try #require(fd >= 0, "open \(node): \(String(cString: strerror(errno)))")
        defer { close(fd) }
        #expect(InputSwitchReader.state(fd, .tabletMode) == false)

        #expect(try device.set(tabletMode: true))
        #expect(try !device.set(tabletMode: true), "the same state again writes nothing")
        #expect(InputSwitchReader.state(fd, .tabletMode) == true)
        #expect(try device.set(tabletMode: false))
        var decoder = InputEventDecoder()
        let events: [InputEventDecoder.Event]
        switch decoder.read(fd) {
        case .events(let read): events = read
        case let other: events = []; Issue.record("reading \(node): \(other)")
        }
        #expect(events.map { "\($0.type) \($0.code) \($0.value)" } == ["5 1 1", "0 0 0", "5 1 0", "0 0 0"],
                "one SW_TABLET_MODE event and its SYN_REPORT per change")

        // The switch reader follows it: the state at open, then the change.
        let changes = AwaitedLog<InputSwitchReader.Change>()
        let ended = AwaitedLog<String?>()
        let reader = InputSwitchReader(node: node, code: .tabletMode, onChange: { changes.append($0) }, onEnd: { ended.append($0) })
        try reader.start()
        #expect(await changes.wait { $0.map(\.isOn) == [false] && $0.first?.origin == .initial })
        let before = monotonicNow()
        try device.set(tabletMode: true)
        #expect(await changes.wait { $0.map(\.isOn) == [false, true] })
        let stamp = changes.all.last?.time ?? 0
        #expect(stamp >= before - 0.5 && stamp <= monotonicNow() + 0.5, "the event's CLOCK_MONOTONIC stamp")
        await reader.stop()
        #expect(ended.all.count == 1 && ended.all.first == .some(nil), "stopped, not failed")

        device.close()
        #expect(device.tabletMode == nil)
        #expect(throws: UInputTabletModeSwitch.Failure.self) { try device.set(tabletMode: true) }
        #expect(access(input, F_OK) != 0, "the input device is gone once closed (UI_DEV_DESTROY unregisters it at once)")
    }

    /// Each failure says what to do about it.
    static let advice: [(step: String, errno: Int32, says: String)] = [
        ("open", ENOENT, "modprobe uinput"), ("open", ENODEV, "modprobe uinput"), ("open", ENXIO, "CONFIG_INPUT_UINPUT"),
        ("open", EPERM, "DeviceAllow=/dev/uinput rw"), ("open", EACCES, "needs root"), ("UI_DEV_SETUP", EINVAL, "Linux 4.5"),
        ("UI_SET_EVBIT EV_SW", ENOTTY, "not a uinput device"), ("UI_DEV_CREATE", ENOMEM, "UI_DEV_CREATE on /dev/uinput failed"),
        ("write", ENODEV, "cannot report tablet mode"), ("write", ENOTTY, "cannot report tablet mode"), ("closed", 0, "already removed"),
    ]

    @Test(arguments: advice.indices)
    func everyFailureSaysWhatToDo(_ index: Int) {
        let row = Self.advice[index]
        let text = UInputTabletModeSwitch.Failure(path: "/dev/uinput", step: row.step, errno: row.errno).description
        #expect(text.contains(row.says), "\(text)")
    }

    /// How many of this process's descriptors are open on `path` (/proc/self/fd's links).
    private func descriptors(pointingAt path: String) -> Int {
        guard let directory = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            var target = [CChar](repeating: 0, count: 4096)
            let length = readlink("/proc/self/fd/" + name, &target, target.count - 1)
            if length > 0, String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == path { count += 1 }
        }
        return count
    }

}

/// Whether this machine lets a test make uinput devices, and the nodes of the device made.
enum UInputAccess {
    enum Probe {
        case usable(String)
        case unusable(String)
    }

    /// Opens /dev/uinput; where it is missing, tries once to load the module (`modprobe uinput`)
    /// and to make the node (`mknod /dev/uinput c 10 223`, its fixed misc minor), then opens again.
    static func probe() -> Probe {
        let path = UInputTabletModeSwitch.defaultPath
        let modprobe = modprobes.first { access($0, X_OK) == 0 }
        if access(path, F_OK) != 0, let modprobe { _ = runProcess([modprobe, "uinput"]) }
        var made = false
        if access(path, F_OK) != 0 {
            guard mknod(path, S_IFCHR | 0o600, deviceNumber(10, 223)) == 0 else {
                return .unusable("\(path) is missing and cannot be made (mknod: \(String(cString: strerror(errno))))")
            }
            made = true
        }
        let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if made { unlink(path) }  // a node with no driver behind it is left to nobody
            let reason = "cannot open \(path): \(String(cString: strerror(code)))"
            guard code == ENODEV || code == ENXIO else { return .unusable(reason) }
            return .unusable(reason + ": the kernel has no uinput driver loaded" + (modprobe == nil ? " (and no modprobe here)" : ""))
        }
        close(fd)
        return .usable(path)
    }

    private static let modprobes = ["/usr/sbin/modprobe", "/sbin/modprobe"]

    /// The `eventN` child of an input device's sysfs directory and its `dev` (`13:81`). The
    /// kernel connects the evdev handler while registering the device, so it is there as soon
    /// as UI_DEV_CREATE has returned.
    static func eventNode(of input: String) -> (name: String, dev: String)? {
        guard let directory = opendir(input) else { return nil }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name.hasPrefix("event"), let dev = readTextIfPresent("\(input)/\(name)/dev") {
                return (name, dev.trimmingCharacters(in: "\n"))
            }
        }
        return nil
    }

    /// /dev/input/eventN where devtmpfs made it, else (a /dev without devtmpfs) a node made for
    /// the test from `dev`.
    static func deviceNode(event: String, dev: String) throws -> String {
        let standard = "/dev/input/\(event)"
        if access(standard, F_OK) == 0 { return standard }  // devtmpfs makes it during the registration
        let parts = dev.split(separator: ":").compactMap { UInt32($0) }
        guard parts.count == 2 else { throw UInputTestError(description: "unreadable dev \(dev)") }
        let path = temporaryDirectory("uinput-node") + "/" + event
        guard mknod(path, S_IFCHR | 0o600, deviceNumber(parts[0], parts[1])) == 0 else {
            throw UInputTestError(description: "cannot make \(path): \(String(cString: strerror(errno)))")
        }
        return path
    }
}

struct UInputTestError: Error, CustomStringConvertible {
    let description: String
}

/// glibc's makedev(3) (a macro Swift does not import).
func deviceNumber(_ major: UInt32, _ minor: UInt32) -> dev_t {
    let major = dev_t(major), minor = dev_t(minor)
    return (major & 0xfffff000) << 32 | (major & 0xfff) << 8 | (minor & 0xffffff00) << 12 | (minor & 0xff)
}
