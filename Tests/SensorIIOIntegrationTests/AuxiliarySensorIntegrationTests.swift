import Glibc
import Synchronization
import Logging
import OrientationCore
import OrientationDaemon
import OrientationServer
import SensorIIO
import Testing
import TestSupport
import AmbientSensorCore

/// Light, proximity and compass (issue 17) with real libudev under umockdev: discovery of each
/// shape, then the daemon's own wiring with a socket client subscribed to the topics.
extension SensorIIOIntegrationTests {
    @Test func discoversEveryLightProximityAndCompassShape() throws {
        let testbed = Testbed()
        let devices = [
            FakeAuxiliaryDevice.iio(0, name: "als", attributes: ["in_illuminance_input": "312"]),
            FakeAuxiliaryDevice.iio(1, name: "vcnl4000", attributes: ["in_illuminance_raw": "200", "in_illuminance_scale": "0.25",
                                                                      "in_proximity_raw": "10", "in_proximity_nearlevel": "1500"]),
            FakeAuxiliaryDevice.iio(2, name: "stk3310", attributes: ["in_proximity_raw": "10"]),
            FakeAuxiliaryDevice.iio(3, name: "magn_3d", attributes: ["in_rot_from_north_magnetic_tilt_comp_raw": "2710",
                                                                     "in_rot_from_north_magnetic_tilt_comp_scale": "0.1"]),
            FakeAuxiliaryDevice.iio(4, name: "ltr559", attributes: ["in_proximity0_raw": "10"], udev: ["PROXIMITY_NEAR_LEVEL": "100"]),
            FakeAuxiliaryDevice.hwmonLight(0, light: "(10,51)"),
        ]
        for device in devices { try testbed.add(device.description) }
        let sensors = try AuxiliaryDiscovery.sensors()
        #expect(sensors.map { "\($0.id) \($0.kind)" } == ["iio:device0 light", "iio:device1 light", "iio:device1 proximity",
                                                         "iio:device2 proximity", "iio:device3 compass", "iio:device4 proximity",
                                                         "hwmon0 light"])
        #expect(sensors.first { $0.id == "iio:device1" && $0.kind == .proximity }?.nearLevel?.value == 1500)
        #expect(sensors.first { $0.id == "iio:device4" }?.nearLevel?.source == "udev PROXIMITY_NEAR_LEVEL=100")
        #expect(sensors.first { $0.id == "iio:device2" }?.unusableReason?.hasPrefix("no near level") == true)
        #expect(sensors.last?.shape == .hwmonLight && sensors.last?.lightUnit == .vendor)
        #expect(AuxiliaryChoice.choose(.proximity, from: sensors, selector: nil).chosen?.id == "iio:device1")
        #expect(AuxiliaryChoice.choose(.light, from: sensors, selector: "applesmc").chosen?.id == "hwmon0")
    }

    /// The daemon's service group, running.
    struct Running {
        let shutdown: @Sendable () async -> Void
        let task: Task<Void, Error>

        func stop() async throws {
            await shutdown()
            try await task.value
        }
    }

    /// Starts the daemon's wiring with `settings` and no accelerometer; returns it, its running
    /// group and a connected client (its hello read).
    static func startAuxiliaryDaemon(_ settings: AuxiliarySettings = AuxiliarySettings())
        async throws -> (OrientationService, Running, Int32) {
        var template = Array("/tmp/orientationd-aux-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let service = try await OrientationService.start(
            source: DiscoveringAccelerometerSource(settings: IIOSettings(), logger: logger), detector: OrientationDetector.Configuration(),
            server: ServerConfiguration(socketPath: dir + "/d.sock"), watchHotplug: true, auxiliarySensors: settings, logger: logger)
        let group = service.serviceGroup(logger: logger)
        let run = Running(shutdown: { await group.triggerGracefulShutdown() }, task: Task { try await group.run() })
        let client = connectUnix(dir + "/d.sock")
        #expect(readLine(client, timeout: 5)?.contains("\"topics\":[\"orientation\",\"light\",\"proximity\",\"compass\",\"posture\"]") == true)
        return (service, run, client)
    }

    /// Reads until a line of `type` containing `fragment` arrives.
    static func awaitMessage(_ fd: Int32, type: String, containing fragment: String, timeout: Double = 10) -> String? {
        let deadline = monotonicNow() + timeout
        while let line = readLine(fd, timeout: max(0, deadline - monotonicNow())) {
            if line.contains("\"type\":\"\(type)\"") && line.contains(fragment) { return line }
        }
        return nil
    }

    /// Reads until every `(type, fragment)` pair has arrived, in any order (two sensors' readers
    /// race each other); true when all did.
    static func awaitMessages(_ fd: Int32, _ wanted: [(type: String, fragment: String)], timeout: Double = 10) -> Bool {
        var missing = wanted
        let deadline = monotonicNow() + timeout
        while !missing.isEmpty, let line = readLine(fd, timeout: max(0, deadline - monotonicNow())) {
            missing.removeAll { line.contains("\"type\":\"\($0.type)\"") && line.contains($0.fragment) }
        }
        return missing.isEmpty
    }

    @Test func socketTopicsServeLightAndProximityOnlyWhileSubscribed() async throws {
        let testbed = Testbed()
        let sensor = FakeAuxiliaryDevice.iio(0, name: "vcnl4000", attributes: [
            "in_illuminance_raw": "400", "in_illuminance_scale": "0.25", "in_illuminance_integration_time": "0.05",
            "in_proximity_raw": "10", "in_proximity_nearlevel": "1000",
        ])
        try testbed.add(sensor.description)
        var settings = AuxiliarySettings()
        settings.lightScale = 2  // a per-device correction: 400 × 0.25 × 2
        let (service, run, client) = try await Self.startAuxiliaryDaemon(settings)
        defer { close(client) }
        let auxiliary = try #require(service.auxiliary)
        #expect(auxiliary.light.state.present && auxiliary.proximity.state.present && !auxiliary.compass.state.present)
        #expect(!auxiliary.light.isReading && !auxiliary.proximity.isReading, "closed while nobody subscribes")

        sendLine(client, "{\"op\":\"subscribe\",\"topics\":[\"light\",\"proximity\"],\"id\":1}")
        let subscribed = readLine(client, timeout: 5)
        #expect(subscribed?.contains("\"type\":\"subscribed\"") == true && subscribed?.contains("\"id\":1") == true)
        #expect(Self.awaitMessages(client, [("light", "\"level\":200,\"unit\":\"lux\""), ("proximity", "\"near\":false")]))
        #expect(auxiliary.light.isReading && auxiliary.proximity.isReading)
        #expect(try await service.server.hub.counts().subscribers == 0, "a light subscriber does not claim the accelerometer")

        // Under 10 %: nothing; a real change: published at the next reading.
        testbed.setAttribute(sensor.syspath, "in_illuminance_raw", "410\n")
        testbed.setAttribute(sensor.syspath, "in_illuminance_raw", "800\n")
        #expect(Self.awaitMessage(client, type: "light", containing: "\"level\":400,") != nil)
        // Near with the peer's margin: 1050 is not enough, 1200 is.
        testbed.setAttribute(sensor.syspath, "in_proximity_raw", "1200\n")
        #expect(Self.awaitMessage(client, type: "proximity", containing: "\"near\":true") != nil)

        sendLine(client, "{\"op\":\"unsubscribe\",\"id\":2}")
        #expect(Self.awaitMessage(client, type: "unsubscribed", containing: "\"id\":2") != nil)
        #expect(waitUntil(timeout: 5) { !auxiliary.light.isReading && !auxiliary.proximity.isReading }, "the last subscriber closes them")

        // Unplugged: subscribers of the topic are told it is gone.
        sendLine(client, "{\"op\":\"subscribe\",\"topics\":[\"light\"]}")
        #expect(Self.awaitMessage(client, type: "light", containing: "\"present\":true") != nil)
        testbed.uevent(sensor.syspath, "remove")
        testbed.remove(sensor.syspath)
        #expect(Self.awaitMessage(client, type: "light", containing: "\"present\":false") != nil)
        try await run.stop()
    }

    /// What the D-Bus facade's `ClaimLight` needs: a claim that says when a reading is there
    /// (the peer answers with a value already read), at once when there is no such sensor.
    @Test func aClaimCanWaitForItsFirstReading() async throws {
        let testbed = Testbed()
        let sensor = FakeAuxiliaryDevice.iio(0, name: "als", attributes: ["in_illuminance_input": "312"])
        try testbed.add(sensor.description)
        let (service, run, client) = try await Self.startAuxiliaryDaemon()
        defer { close(client) }
        let auxiliary = try #require(service.auxiliary)
        let answers = Answers()
        auxiliary.compass.setClaimed("dbus") { answers.add($0) }
        #expect(answers.all == [AuxiliarySensorState(kind: .compass)], "no compass: answered at once")
        auxiliary.light.setClaimed("dbus") { answers.add($0) }
        #expect(waitUntil(timeout: 5) { answers.all.count == 2 })
        #expect(answers.all.last?.reading == .light(level: 312, unit: .lux), "\(answers.all)")
        // Open already, the value unchanged: answered at the next reading all the same.
        auxiliary.light.setClaimed("dbus2") { answers.add($0) }
        #expect(waitUntil(timeout: 5) { answers.all.count == 3 })
        auxiliary.light.setClaimed("dbus", false)
        auxiliary.light.setClaimed("dbus2", false)
        auxiliary.compass.setClaimed("dbus", false)
        #expect(waitUntil(timeout: 5) { !auxiliary.light.isReading })
        try await run.stop()
    }

    /// The states a claim's `ready` was called with.
    final class Answers: Sendable {
        private let states = Mutex<[AuxiliarySensorState]>([])
        func add(_ state: AuxiliarySensorState) { states.withLock { $0.append(state) } }
        var all: [AuxiliarySensorState] { states.withLock { $0 } }
    }

    @Test func aBufferedLightSensorIsReadThroughItsBuffer() async throws {
        let testbed = Testbed()
        let sensor = FakeAuxiliaryDevice.bufferedLight(0)
        try testbed.add(sensor.description)
        let (service, run, client) = try await Self.startAuxiliaryDaemon()
        defer { close(client) }
        #expect(service.auxiliary?.light.sensor?.shape == .buffered(channel: "intensity_both"))
        sendLine(client, "{\"op\":\"subscribe\",\"topics\":[\"light\"]}")
        #expect(waitUntil(timeout: 10) { testbed.attribute(sensor.syspath, "buffer/enable")?.hasPrefix("1") == true }, "the claim enables the buffer")
        let fd = testbed.deviceFD(sensor.node)
        let scan = { (raw: UInt32) in withUnsafeBytes(of: raw.littleEndian) { writeAll(fd, Array($0)) } }
        scan(3120)
        #expect(Self.awaitMessage(client, type: "light", containing: "\"level\":312,") != nil, "raw × 0.1")
        scan(3130)  // within 10 %: kept quiet
        scan(6000)
        let next = Self.awaitMessage(client, type: "light", containing: "\"level\"")
        #expect(next?.contains("\"level\":600,") == true, "\(next ?? "nothing")")
        sendLine(client, "{\"op\":\"unsubscribe\"}")
        #expect(waitUntil(timeout: 10) { testbed.attribute(sensor.syspath, "buffer/enable")?.hasPrefix("0") == true }, "released: disabled")
        try await run.stop()
    }

    @Test func anEvdevProximitySwitchIsReadFromItsEvents() async throws {
        let testbed = Testbed()
        let proximity = FakeAuxiliaryDevice.proximitySwitch(5)
        try testbed.add(proximity.description)
        let sensors = try AuxiliaryDiscovery.sensors()
        #expect(sensors.map { "\($0.id) \($0.kind) \($0.shape)" } == ["event5 proximity evdevSwitch(node: \"/dev/input/event5\")"])
        let (service, run, client) = try await Self.startAuxiliaryDaemon()
        defer { close(client) }
        #expect(service.auxiliary?.proximity.state.present == true)
        sendLine(client, "{\"op\":\"subscribe\",\"topics\":[\"proximity\"]}")
        // EVIOCGSW does not reach a PTY: far until the first event.
        #expect(Self.awaitMessage(client, type: "proximity", containing: "\"near\":false") != nil)
        let fd = testbed.deviceFD(proximity.node)
        writeAll(fd, FakeAuxiliaryDevice.inputEvent(type: 5, code: 0x0b, value: 1) + FakeAuxiliaryDevice.inputEvent(type: 0, code: 0, value: 0))
        #expect(Self.awaitMessage(client, type: "proximity", containing: "\"near\":true") != nil)
        // Another switch (SW_LID) is not proximity.
        writeAll(fd, FakeAuxiliaryDevice.inputEvent(type: 5, code: 0x00, value: 0))
        writeAll(fd, FakeAuxiliaryDevice.inputEvent(type: 5, code: 0x0b, value: 0))
        #expect(Self.awaitMessage(client, type: "proximity", containing: "\"near\":false") != nil)
        try await run.stop()
    }

    @Test func hwmonLightAndCompassAndAProximitySensorWithoutANearLevel() async throws {
        let testbed = Testbed()
        let light = FakeAuxiliaryDevice.hwmonLight(0, light: "(10,51)")
        let compass = FakeAuxiliaryDevice.iio(0, name: "magn_3d", attributes: ["in_rot_from_north_magnetic_tilt_comp_raw": "2715",
                                                                               "in_rot_from_north_magnetic_tilt_comp_scale": "0.1"])
        let proximity = FakeAuxiliaryDevice.iio(1, name: "stk3310", attributes: ["in_proximity_raw": "10"])
        for device in [light, compass, proximity] { try testbed.add(device.description) }
        let (service, run, client) = try await Self.startAuxiliaryDaemon()
        defer { close(client) }
        #expect(service.auxiliary?.proximity.state.present == false, "never present without a near level")
        sendLine(client, "{\"op\":\"subscribe\",\"topics\":[\"light\",\"compass\",\"proximity\"]}")
        #expect(Self.awaitMessages(client, [("light", "\"level\":20,\"unit\":\"vendor\""), ("compass", "\"heading\":271.5")]))
        sendLine(client, "{\"op\":\"get\",\"id\":\"g\"}")
        let state = Self.awaitMessage(client, type: "state", containing: "\"id\":\"g\"")
        #expect(state?.contains("\"proximity\":{\"present\":false,\"near\":null}") == true, "\(state ?? "no reply")")
        try await run.stop()
    }

    /// hid-sensor-magn-3d as the kernel lays it out: every channel's scale, offset and hysteresis
    /// shared by type (`in_magn_scale`, `in_rot_scale`), so the heading's scale is `in_rot_scale`
    /// (issue 29: the daemon read only the per-channel name and reported 2700 counts as
    /// 2700 mod 360 = 180°, where iio-sensor-proxy says 270°).
    @Test func aHIDCompassWhoseScaleIsSharedByTypeReadsItsHeadingInDegrees() async throws {
        let testbed = Testbed()
        let compass = FakeAuxiliaryDevice.iio(0, name: "magn_3d", attributes: [
            "in_magn_x_raw": "-41", "in_magn_y_raw": "12", "in_magn_z_raw": "-330",
            "in_magn_scale": "0.001000", "in_magn_offset": "0", "in_magn_hysteresis": "0",
            "in_rot_from_north_magnetic_tilt_comp_raw": "2700",
            "in_rot_scale": "0.100000", "in_rot_offset": "0", "in_rot_hysteresis": "0",
        ])
        try testbed.add(compass.description)
        let (_, run, client) = try await Self.startAuxiliaryDaemon()
        defer { close(client) }
        sendLine(client, "{\"op\":\"subscribe\",\"topics\":[\"compass\"]}")
        // The first message says present with no heading yet; then 2700 × 0.1.
        #expect(Self.awaitMessages(client, [("compass", "\"heading\":270")]))
        try await run.stop()
    }
}
