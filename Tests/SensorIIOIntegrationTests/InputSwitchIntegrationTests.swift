import CUMockdev
import Glibc
import OwnerThreads
@testable import SensorIIO
import Testing
import TestSupport
@testable import SensorInput

/// Input switches with real libudev under umockdev (issue 30): finding the lid switch and a
/// real tablet-mode switch (never orientationd's own), and following the lid switch from its
/// event node, the state at open through `EVIOCGSW` (umockdev's ioctl replay) and then its
/// events (written to the node's PTY).
extension SensorIIOIntegrationTests {
    @Test func findsTheLidSwitchAndARealTabletModeSwitchButNeverOurOwn() throws {
        let testbed = Testbed()
        let switches = [FakeInputSwitch.acpiLid(0), FakeInputSwitch.headphoneJack(1), FakeInputSwitch.orientationdSwitch(2),
                        FakeInputSwitch.intelHIDSwitches(3)]
        for description in switches.map(\.description) + [FakeAuxiliaryDevice.proximitySwitch(4).description] {
            try testbed.add(description)
        }
        let all = try InputSwitchDiscovery.allSwitchDevices()
        #expect(all.map(\.id).sorted() == ["event0", "event1", "event2", "event3", "event4"])

        let lids = try SensorBackends.discover([.switches]).switches.filter { $0.has(.lid) }
        #expect(lids.map(\.id) == ["event0"])
        let lid = try #require(lids.first)
        #expect(lid.node == "/dev/input/event0" && lid.name == "Lid Switch" && lid.phys == "PNP0C0D/button/input0")
        #expect(lid.busType == 0x19 && lid.switches.bits == [0] && !lid.isOrientationdTabletModeSwitch)
        #expect(lid.properties["ID_INPUT_SWITCH"] == "1")

        // Ours has SW_TABLET_MODE but is not a real switch; intel-hid's is.
        #expect(try SensorBackends.discover([.switches]).switches.filter { $0.has(.tabletMode) }.map(\.id).sorted() == ["event2", "event3"])
        let real = try SensorBackends.discover([.switches]).realTabletModeSwitches
        #expect(real.map(\.id) == ["event3"])
        #expect(real.first?.name == "Intel HID switches" && real.first?.phys == nil && real.first?.busType == 0x19)
        #expect(try SensorBackends.discover([.switches]).switches.filter { $0.has(.lid) }.contains { $0.isOrientationdTabletModeSwitch } == false)

        // The proximity switch is still found through the shared discovery, and only it.
        #expect(try AuxiliaryDiscovery.sensors().map { "\($0.id) \($0.kind)" } == ["event4 proximity"])
    }

    @Test func anyOtherTabletModeSwitchCountsAsReal() throws {
        let testbed = Testbed()
        for device in [FakeInputSwitch.orientationdSwitch(0), FakeInputSwitch.intelVirtualSwitches(1), FakeInputSwitch.otherVirtualSwitch(2),
                       FakeInputSwitch.namesake(3)] {
            try testbed.add(device.description)
        }
        let real = try SensorBackends.discover([.switches]).realTabletModeSwitches
        #expect(real.map(\.id).sorted() == ["event1", "event2", "event3"],
                "intel-vbtn's, another program's uinput switch, and one with our name alone")
        #expect(real.first { $0.id == "event1" }?.switches.bits == [1, 5], "SW_TABLET_MODE and SW_DOCK")
    }

    /// Without a tablet-mode switch (a lid only), there is nothing real: orientationd may add its own.
    @Test func aMachineWithOnlyALidHasNoRealTabletModeSwitch() throws {
        let testbed = Testbed()
        try testbed.add(FakeInputSwitch.acpiLid(0).description)
        #expect(try SensorBackends.discover([.switches]).realTabletModeSwitches.isEmpty)
        #expect(try SensorBackends.discover([.switches]).switches.filter { $0.has(.lid) }.count == 1)
    }

    /// The lid switch as the posture detector will take it: shut at open (EVIOCGSW answers 1),
    /// then opened, then shut, each once; SW_TABLET_MODE on the same node is not the lid.
    @Test func theLidSwitchIsReadFromEVIOCGSWAndThenItsEvents() async throws {
        let testbed = Testbed()
        let lid = FakeInputSwitch.acpiLid(0)
        try testbed.add(lid.description)
        try testbed.loadIoctl(lid.node, FakeInputSwitch.switchStateRecord(0b1))
        let changes = AwaitedLog<InputSwitchReader.Change>()
        let ended = AwaitedLog<String?>()
        let reader = InputSwitchReader(node: lid.node, code: .lid, onChange: { changes.append($0) }, onEnd: { ended.append($0) })
        let opened = monotonicNow()
        try reader.start()
        #expect(await changes.wait { $0.count == 1 }, "the state at open")
        #expect(changes.all.first?.isOn == true && changes.all.first?.origin == .initial)
        #expect((changes.all.first?.time ?? 0) >= opened - 0.001, "a CLOCK_MONOTONIC time")

        let fd = testbed.deviceFD(lid.node)
        writeAll(fd, FakeInputSwitch.switchFrame(0, 1))  // shut again: not a change
        writeAll(fd, FakeInputSwitch.switchFrame(1, 1))  // SW_TABLET_MODE: not the lid
        writeAll(fd, FakeInputSwitch.switchFrame(0, 0))
        #expect(await changes.wait { $0.count == 2 })
        writeAll(fd, FakeInputSwitch.switchFrame(0, 1))
        #expect(await changes.wait { $0.count == 3 })
        #expect(changes.all.map(\.isOn) == [true, false, true])
        #expect(changes.all.map(\.origin) == [.initial, .event, .event])
        // A PTY refuses EVIOCSCLOCKID, so the events carry the time they were read.
        let times = changes.all.map(\.time)
        #expect(times == times.sorted() && (times.last ?? 0) <= monotonicNow())
        await reader.stop()
        #expect(ended.all.count == 1 && ended.all.first == .some(nil))
    }

    /// After SYN_DROPPED the reader ignores the rest of the broken frame and reads the state
    /// again: the lid shut while events were lost is not missed.
    @Test func aLidChangeLostToSYNDroppedIsReadBack() async throws {
        let testbed = Testbed()
        let lid = FakeInputSwitch.acpiLid(0)
        try testbed.add(lid.description)
        try testbed.loadIoctl(lid.node, FakeInputSwitch.switchStateRecord(0b1))
        let changes = AwaitedLog<InputSwitchReader.Change>()
        let reader = InputSwitchReader.lid(node: lid.node, onChange: { closed, time in
            changes.append(InputSwitchReader.Change(isOn: closed, time: time, origin: .event))
        }, onEnd: { _ in })
        try reader.start()
        #expect(await changes.wait { $0.map(\.isOn) == [true] })
        let fd = testbed.deviceFD(lid.node)
        writeAll(fd, FakeInputSwitch.switchFrame(0, 0))
        #expect(await changes.wait { $0.map(\.isOn) == [true, false] })
        // The kernel dropped events (the lid was shut meanwhile); what is left of the frame
        // (a stale "open") is ignored; at SYN_REPORT the state is read again: shut.
        writeAll(fd, FakeInputSwitch.event(type: 0, code: 3, value: 0) + FakeInputSwitch.event(type: 5, code: 0, value: 0)
            + FakeInputSwitch.event(type: 0, code: 0, value: 0))
        #expect(await changes.wait { $0.map(\.isOn) == [true, false, true] })
        await reader.stop()
    }

    /// An evemu recording of a lid shut and opened again (evemu-record's `E: time type code
    /// value` lines, replayed by umockdev at their times) read through the same reader.
    @Test func anEvemuRecordingOfTheLidIsFollowed() async throws {
        let testbed = Testbed()
        let lid = FakeInputSwitch.acpiLid(0)
        try testbed.add(lid.description)
        let changes = AwaitedLog<InputSwitchReader.Change>()
        let reader = InputSwitchReader.lid(node: lid.node, onChange: { closed, time in
            changes.append(InputSwitchReader.Change(isOn: closed, time: time, origin: .event))
        }, onEnd: { _ in })
        try reader.start()
        let directory = temporaryDirectory("evemu")
        defer { removeTree(directory) }
        let recording = directory + "/lid.events"
        writeText(recording, """
            E: 0.000000 0005 0000 0001
            E: 0.000000 0000 0000 0000
            E: 0.050000 0005 0001 0001
            E: 0.050000 0000 0000 0000
            E: 0.100000 0005 0000 0000
            E: 0.100000 0000 0000 0000

            """)
        try testbed.loadEvemuEvents(lid.node, recording)
        #expect(await changes.wait { $0.map(\.isOn) == [true, false] }, "shut, then open; the tablet-mode event is not the lid")
        await reader.stop()
    }

    /// A node that does not answer EVIOCGSW (a plain PTY): no state until the first event.
    @Test func aLidWhoseStateCannotBeReadIsUnknownUntilItsFirstEvent() async throws {
        let testbed = Testbed()
        let lid = FakeInputSwitch.acpiLid(0)
        try testbed.add(lid.description)
        let changes = AwaitedLog<InputSwitchReader.Change>()
        let reader = InputSwitchReader(node: lid.node, code: .lid, onChange: { changes.append($0) }, onEnd: { _ in })
        try reader.start()
        let fd = testbed.deviceFD(lid.node)
        writeAll(fd, FakeInputSwitch.switchFrame(0, 0))
        #expect(await changes.wait { !$0.isEmpty })
        #expect(changes.all.map(\.isOn) == [false] && changes.all.first?.origin == .event, "nothing invented before the event")
        await reader.stop()
    }

    /// A node that cannot be opened ends the reader at once with the reason.
    @Test func aLidNodeThatCannotBeOpenedEndsWithTheReason() async throws {
        let testbed = Testbed()  // an empty /dev
        defer { withExtendedLifetime(testbed) {} }
        let ended = AwaitedLog<String?>()
        let reader = InputSwitchReader(node: "/dev/input/event99", code: .lid, onChange: { _ in }, onEnd: { ended.append($0) })
        try reader.start()
        #expect(await ended.wait { !$0.isEmpty })
        #expect(ended.all.first??.hasPrefix("cannot open /dev/input/event99") == true, "\(ended.all)")
        await reader.stop()
    }
}

extension Testbed {
    /// Replays an evemu events file (`E: <sec>.<usec> <type> <code> <value>` lines) into the
    /// device node `node`, each event at its time after the load.
    func loadEvemuEvents(_ node: String, _ path: String) throws {
        var error: UnsafeMutablePointer<GError>? = nil
        guard umockdev_testbed_load_evemu_events(pointer, node, path, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            throw TestbedError(description: "umockdev rejected the evemu events: \(message)")
        }
    }

    /// Loads an umockdev ioctl record (`NAME(arg) result hexdata` lines) for the device node
    /// `node`: ioctls on it are answered from the record.
    func loadIoctl(_ node: String, _ recordPath: String) throws {
        var error: UnsafeMutablePointer<GError>? = nil
        guard umockdev_testbed_load_ioctl(pointer, node, recordPath, &error) != 0 else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            throw TestbedError(description: "umockdev rejected the ioctl record: \(message)")
        }
    }
}
