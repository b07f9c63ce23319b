import Glibc
import OrientationCore
import Testing
import TestSupport

/// Issue 39, item 1: most convertibles have one accelerometer (the display's) and report folding
/// through their firmware (an input device with `SW_TABLET_MODE`: intel-vbtn here). Their posture
/// comes from that switch: `laptop` while it is off, `tablet` while on, `closed` while the lid
/// switch is shut; the posture topic, `follow`'s rules (a laptop holds) and the rest work from it,
/// and the display's accelerometer is not opened for it.
extension SensorIIOIntegrationTests {
    @Test func aConvertibleWithOneAccelerometerTakesItsPostureFromItsTabletModeSwitch() async throws {
        let testbed = Testbed()
        var display = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        display.buffered = false
        display.raw = (0, -100, 0)  // portrait
        try testbed.add(display.description)
        let lid = FakeInputSwitch.acpiLid(0)
        let tablet = FakeInputSwitch.intelVirtualSwitches(1)
        try testbed.add(lid.description)
        try testbed.add(tablet.description)
        try testbed.loadIoctl(lid.node, FakeInputSwitch.switchStateRecord(0))
        try testbed.loadIoctl(tablet.node, FakeInputSwitch.switchStateRecord(0))
        let daemon = try await RunningDaemon.start()
        let posture = try #require(daemon.service.posture)
        #expect(waitUntil(timeout: 10) { posture.state.present }, "a convertible: it has a tablet-mode switch")
        let client = connectUnix(daemon.socket)
        defer { close(client) }
        _ = readLine(client, timeout: 5)
        sendLine(client, "{\"op\":\"subscribe\",\"topics\":[\"posture\"]}")
        #expect(Self.awaitMessage(client, type: "posture", containing: "\"posture\":\"laptop\"") != nil, "\(posture.state)")
        #expect(posture.state.hold == nil, "decided by the switch: nothing held")
        // Only the switches are read for it: the display's accelerometer stays closed.
        sendLine(client, "{\"op\":\"get\",\"id\":7}")
        let state = Self.awaitMessage(client, type: "state", containing: "\"id\":7")
        #expect(state?.contains("\"sensor\":\"closed\"") == true, "the posture opened the display accelerometer: \(state ?? "no answer")")

        // follow, with its default rules: a laptop holds, a tablet follows.
        let decisions = daemon.directory + "/decisions"
        let follow = try spawn([Self.productsDirectory + "/orientationctl", "follow", "--socket", daemon.socket, "--once",
                                "--exec", "echo $ORIENTATION_POSTURE $ORIENTATION_INTERFACE >> \(decisions)"],
                               stderr: daemon.directory + "/follow.err", stdout: daemon.directory + "/follow.out", newProcessGroup: true)
        defer { _ = stopProcess(follow) }
        #expect(Self.waitForText(decisions) { $0.contains("laptop portrait") }, "\(readText(daemon.directory + "/follow.err"))")
        // The display turned on its side while a laptop: the daemon says so, follow holds.
        let watcher = connectUnix(daemon.socket)
        defer { close(watcher) }
        _ = readLine(watcher, timeout: 5)
        sendLine(watcher, "{\"op\":\"subscribe\"}")
        testbed.setAttribute(display.syspath, "in_accel_x_raw", "-100\n")
        testbed.setAttribute(display.syspath, "in_accel_y_raw", "0\n")
        #expect(Self.awaitMessage(watcher, type: "orientation", containing: "\"orientation\":\"landscape-left\"") != nil)
        // Folded: the firmware's switch says tablet mode; follow turns now.
        writeAll(testbed.deviceFD(tablet.node), FakeInputSwitch.switchFrame(1, 1))
        #expect(Self.awaitMessage(client, type: "posture", containing: "\"posture\":\"tablet\"") != nil, "\(posture.state)")
        #expect(Self.waitForText(decisions) { $0.contains("tablet landscape-right") }, "\(readText(decisions))")
        #expect(!readText(decisions).contains("laptop landscape"), "a laptop holds: \(readText(decisions))")
        // Unfolded, then shut.
        writeAll(testbed.deviceFD(tablet.node), FakeInputSwitch.switchFrame(1, 0))
        #expect(Self.awaitMessage(client, type: "posture", containing: "\"posture\":\"laptop\"") != nil, "\(posture.state)")
        writeAll(testbed.deviceFD(lid.node), FakeInputSwitch.switchFrame(0, 1))
        #expect(Self.awaitMessage(client, type: "posture", containing: "\"posture\":\"closed\"") != nil, "\(posture.state)")
        try await daemon.stop()
    }

    /// Beside two accelerometers the switch says folded or not, the angle which (item 1: "say
    /// which one decides"): a tent is a tent while the switch is on.
    @Test func besideAMeasuredAngleTheSwitchSaysFoldedAndTheAngleWhich() async throws {
        let testbed = Testbed()
        let machine = FakeConvertible()
        for device in [machine.display, machine.base] { try testbed.add(device.description) }
        let tablet = FakeInputSwitch.intelHIDSwitches(1)
        try testbed.add(tablet.description)
        try testbed.loadIoctl(tablet.node, FakeInputSwitch.switchStateRecord(0))
        try machine.set(testbed, .laptop())
        let daemon = try await RunningDaemon.start()
        let client = connectUnix(daemon.socket)
        defer { close(client) }
        _ = readLine(client, timeout: 5)
        sendLine(client, "{\"op\":\"subscribe\",\"topics\":[\"posture\"]}")
        #expect(Self.awaitMessage(client, type: "posture", containing: "\"posture\":\"laptop\"") != nil)
        try machine.set(testbed, .tent())
        writeAll(testbed.deviceFD(tablet.node), FakeInputSwitch.switchFrame(1, 1))
        #expect(Self.awaitMessage(client, type: "posture", containing: "\"posture\":\"tent\"") != nil)
        // The firmware says unfolded while the angle still reads a tent: the switch wins.
        writeAll(testbed.deviceFD(tablet.node), FakeInputSwitch.switchFrame(1, 0))
        #expect(Self.awaitMessage(client, type: "posture", containing: "\"posture\":\"laptop\"") != nil)
        try await daemon.stop()
    }
}

extension SensorIIOIntegrationTests {
    /// `--list-sensors` names every switch it found and says which one the posture comes from.
    @Test func listSensorsNamesTheSwitchesAndWhichDecides() throws {
        var display = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        display.buffered = false
        let switches = [FakeInputSwitch.acpiLid(0).description, FakeInputSwitch.intelVirtualSwitches(1).description,
                        FakeInputSwitch.headphoneJack(2).description]
        let (status, out, err, _) = try Self.runDaemon(devices: [display], feed: nil, moreDevices: switches, arguments: ["--list-sensors"])
        #expect(status == 0, "\(err)")
        #expect(out.contains("switch event0  Lid Switch  SW_LID"), "\(out)")
        #expect(out.contains("switch event1  Intel Virtual Switches  SW_TABLET_MODE"), "\(out)")
        #expect(out.contains("switch event2  HDA Intel PCH Headphone  other switches"), "\(out)")
        #expect(out.contains("posture: available from the machine's tablet-mode switch event1 (Intel Virtual Switches): tablet while it is on, laptop while off"),
                "\(out)")
    }
}
