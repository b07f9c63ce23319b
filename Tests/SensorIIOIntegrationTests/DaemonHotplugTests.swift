import Glibc
import Logging
import OrientationCore
import OrientationDaemon
import OrientationServer
import SensorIIO
import Testing
import TestSupport

/// The daemon's own wiring (OrientationService: socket server, pipeline, udev monitor) with a
/// umockdev sensor, and a client on the real socket: hotplug as a subscriber sees it.
extension SensorIIOIntegrationTests {
    /// Reads until an `orientation` event naming `orientation` arrives.
    static func awaitOrientation(_ fd: Int32, _ orientation: String, timeout: Double = 10) -> Bool {
        let deadline = monotonicNow() + timeout
        while let line = readLine(fd, timeout: max(0, deadline - monotonicNow())) {
            if line.contains("\"type\":\"orientation\"") && line.contains("\"orientation\":\"\(orientation)\"") { return true }
        }
        return false
    }

    @Test func aSubscriberSeesUnknownOnRemovalAndTheOrientationAfterReplugging() async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "bmc150_accel", format: "le:s12/16>>4", scale: "0.009582")
        try testbed.add(device.description)
        var template = Array("/tmp/orientationd-hotplug-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        var settings = IIOSettings()
        settings.batch = 1
        let service = try await OrientationService.start(
            source: DiscoveringAccelerometerSource(settings: settings, logger: logger), detector: OrientationDetector.Configuration(),
            server: ServerConfiguration(socketPath: dir + "/d.sock"), watchHotplug: true, logger: logger)
        let group = service.serviceGroup(logger: logger)
        let running = Task { try await group.run() }

        let client = connectUnix(dir + "/d.sock")
        #expect(client >= 0)
        defer { close(client) }
        sendLine(client, "{\"op\":\"subscribe\"}")
        #expect(readLine(client, timeout: 5)?.contains("\"hello\"") == true)
        #expect(readLine(client, timeout: 5)?.contains("\"subscribed\"") == true)
        // The subscription opened the sensor: feed it portrait.
        var opened = false
        for _ in 0..<500 where !opened {
            opened = testbed.attribute(device.syspath, "buffer/enable")?.hasPrefix("1") == true
            if !opened { usleep(10_000) }
        }
        #expect(opened, "the first subscriber opens the sensor")
        Self.feed(testbed, device, raw: [0, -1024, 0], seconds: 0.5)
        #expect(Self.awaitOrientation(client, "portrait"))

        // Unplugged: the subscriber is told unknown; the daemon keeps serving.
        testbed.uevent(device.syspath, "remove")
        testbed.remove(device.syspath)
        #expect(Self.awaitOrientation(client, "unknown"))
        sendLine(client, "{\"op\":\"ping\"}")
        var sensorLines: [String] = []
        #expect(Self.readSkippingSensor(client, into: &sensorLines)?.contains("\"pong\"") == true, "the daemon still serves")
        // Issue 21: the subscriber is told why (the sensor is absent), not only `unknown`.
        let deadline = monotonicNow() + 10
        let toldWhy = { (line: String) in
            line.contains("\"type\":\"sensor\"") && line.contains("\"sensor\":\"absent\"") && line.contains("no display accelerometer found")
        }
        while !sensorLines.contains(where: toldWhy), monotonicNow() < deadline,
              let line = readLine(client, timeout: 1) {
            sensorLines.append(line)
        }
        #expect(sensorLines.contains(where: toldWhy), "\(sensorLines)")

        // Plugged back (next index): picked up without a restart.
        var replugged = device
        replugged.index = 1
        try testbed.add(replugged.description)
        testbed.uevent(replugged.syspath, "add")
        var reopened = false
        for _ in 0..<1000 where !reopened {
            reopened = testbed.attribute(replugged.syspath, "buffer/enable")?.hasPrefix("1") == true
            if !reopened { usleep(10_000) }
        }
        #expect(reopened, "the re-added sensor was opened")
        Self.feed(testbed, replugged, raw: [-1024, 0, 0], seconds: 0.5)
        #expect(Self.awaitOrientation(client, "landscape-left"))

        await group.triggerGracefulShutdown()
        try await running.value
        #expect(Self.readSkippingSensor(client, into: &sensorLines)?.contains("\"goodbye\"") == true)
    }

    /// The next line that is not a `sensor` message (those go to `skipped`): a client ignores
    /// what it does not wait for, as docs/PROTOCOL.md asks.
    static func readSkippingSensor(_ client: Int32, into skipped: inout [String]) -> String? {
        while let line = readLine(client, timeout: 5) {
            guard line.contains("\"type\":\"sensor\"") else { return line }
            skipped.append(line)
        }
        return nil
    }
}
