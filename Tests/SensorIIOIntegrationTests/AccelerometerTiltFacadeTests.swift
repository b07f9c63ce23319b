import Glibc
import TestSupport
import Testing

/// Issue 16 on the bus: AccelerometerTilt from the samples, and a polled sensor with a wrong
/// scale and a slow sampling frequency, against Debian's real iio-sensor-proxy.
extension SensorIIOIntegrationTests {
    /// `gdbus call … Properties.Get net.hadess.SensorProxy <name>`'s string value.
    static func busProperty(_ bus: PrivateSystemBus, _ name: String) -> String? {
        let dir = bus.directory
        guard let pid = try? spawn(["/usr/bin/gdbus", "call", "--system", "--dest", "net.hadess.SensorProxy", "--object-path",
                                    "/net/hadess/SensorProxy", "--method", "org.freedesktop.DBus.Properties.Get",
                                    "net.hadess.SensorProxy", name],
                                   environment: bus.clientEnvironment, stderr: dir + "/get.err", stdout: dir + "/get.out", newProcessGroup: true)
        else { return nil }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        // "(<'tilted-up'>,)"
        let text = readText(dir + "/get.out")
        let parts = text.split(separator: "'")
        return parts.count >= 2 ? String(parts[1]) : nil
    }

    /// A polled accelerometer leaned through the peer's five tilt classes (rewriting its raw
    /// attributes; identity matrix). Face-up is the screen facing the sky, as the peer means it:
    /// z = −g in orientationd's frame (issue 40; the peer's own frame has the opposite z sign).
    @Test(.enabled(if: facadeToolsAvailable, "needs dbus-daemon, gdbus and monitor-sensor (make setup)"))
    func accelerometerTiltFollowsTheSamplesWithThePeersClasses() throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        device.buffered = false
        device.raw = (0, -100, 0)
        try testbed.add(device.description)
        let bus = try PrivateSystemBus()
        let dir = bus.directory
        let server = try spawn([Self.productsDirectory + "/orientationd", "--dbus", "--socket", dir + "/d.sock"],
                               environment: bus.inheritedEnvironment, stderr: dir + "/daemon.err", newProcessGroup: true)
        defer { _ = stopProcess(server) }
        let monitor = try spawn(["/usr/bin/monitor-sensor"], environment: bus.clientEnvironment, stderr: dir + "/monitor.err",
                                stdout: dir + "/monitor.out", newProcessGroup: true)  // holds the claim
        defer { _ = stopProcess(monitor, SIGKILL) }
        // Issue 40: the start log names the sensor the daemon uses.
        #expect(Self.waitForText(dir + "/daemon.err") { $0.contains("display accelerometer found") && $0.contains("sensor=iio:device0 (accel_3d)") },
                "\(readText(dir + "/daemon.err"))")
        let poses: [(raw: (Int, Int, Int), tilt: String)] = [
            ((0, -100, 0), "vertical"),
            ((0, -71, -71), "tilted-up"),      // 45°
            ((0, -17, -98), "face-up"),        // 80°
            ((0, -71, 71), "tilted-down"),
            ((0, -17, 98), "face-down"),
            ((-100, 0, 0), "vertical"),        // landscape: the same classes
        ]
        for pose in poses {
            for (axis, value) in zip(["x", "y", "z"], [pose.raw.0, pose.raw.1, pose.raw.2]) {
                testbed.setAttribute(device.syspath, "in_accel_\(axis)_raw", "\(value)\n")
            }
            #expect(waitUntil(timeout: 10, every: 0.1) { Self.busProperty(bus, "AccelerometerTilt") == pose.tilt },
                    "\(pose): \(Self.busProperty(bus, "AccelerometerTilt") ?? "nil") \(readText(dir + "/daemon.err").suffix(2000))")
        }
    }

    /// The peer's own acceptance fixture shape for a polled accelerometer (issue 16, items 3 and
    /// 4): `in_accel_scale` 10 with raw values of ±25.6, so a still device reads 26 g, and
    /// `sampling_frequency` 5.2. Debian's iio-sensor-proxy and orientationd, each in turn, must
    /// publish the same orientations; orientationd raises the frequency to 10 before any claim.
    @Test(.enabled(if: facadeToolsAvailable, "needs dbus-daemon, gdbus, monitor-sensor and Debian's iio-sensor-proxy (make setup)"))
    func aTwentySixGSensorRotatesLikeThePeer() throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "10")
        device.buffered = false
        device.samplingFrequency = "5.2"
        device.udev = ["IIO_SENSOR_PROXY_TYPE": "iio-poll-accel"]
        try testbed.add(device.description)
        func pose(_ x: String, _ y: String) {
            testbed.setAttribute(device.syspath, "in_accel_x_raw", x + "\n")
            testbed.setAttribute(device.syspath, "in_accel_y_raw", y + "\n")
            testbed.setAttribute(device.syspath, "in_accel_z_raw", "0\n")
        }
        var published: [String: [String]] = [:]
        var frequency: [String: String] = [:]
        for daemon in ["iio-sensor-proxy", "orientationd"] {
            pose("0", "-25.6")
            testbed.setAttribute(device.syspath, "sampling_frequency", "5.2\n")
            let bus = try PrivateSystemBus()
            let dir = bus.directory
            let command = daemon == "orientationd"
                ? [Self.productsDirectory + "/orientationd", "--dbus", "--socket", dir + "/d.sock"]
                : ["/usr/sbin/iio-sensor-proxy"]
            let server = try spawn(command, environment: bus.inheritedEnvironment, stderr: dir + "/daemon.err", newProcessGroup: true)
            defer { _ = stopProcess(server) }
            #expect(waitUntil(timeout: 10, every: 0.05) { Self.hasAccelerometer(bus) },
                    "\(daemon) did not start: \(readText(dir + "/daemon.err"))")
            frequency[daemon] = testbed.attribute(device.syspath, "sampling_frequency").map { String($0.prefix { $0 != "\n" && $0 != "\0" }) }
            let monitor = try spawn(["/usr/bin/monitor-sensor"], environment: bus.clientEnvironment, stderr: dir + "/monitor.err",
                                    stdout: dir + "/monitor.out", newProcessGroup: true)
            defer { _ = stopProcess(monitor, SIGKILL) }
            #expect(Self.waitForText(dir + "/monitor.out") { Self.orientationChanges($0).count == 1 },
                    "\(daemon): no first orientation: \(readText(dir + "/monitor.out")) \(readText(dir + "/daemon.err").suffix(2000))")
            pose("-25.6", "0")
            #expect(Self.waitForText(dir + "/monitor.out") { Self.orientationChanges($0).count == 2 },
                    "\(daemon): \(readText(dir + "/monitor.out"))")
            published[daemon] = Self.orientationChanges(readText(dir + "/monitor.out"))
        }
        #expect(published["iio-sensor-proxy"] == ["normal", "right-up"], "the peer: \(published)")
        #expect(published["orientationd"] == published["iio-sensor-proxy"])
        #expect(frequency["orientationd"] == "10" && frequency["iio-sensor-proxy"] == "10", "both raise 5.2 Hz to 10: \(frequency)")
    }

    /// HasAccelerometer read as a boolean (`(<true>,)`).
    static func hasAccelerometer(_ bus: PrivateSystemBus) -> Bool {
        let dir = bus.directory
        guard let pid = try? spawn(["/usr/bin/gdbus", "call", "--system", "--dest", "net.hadess.SensorProxy", "--object-path",
                                    "/net/hadess/SensorProxy", "--method", "org.freedesktop.DBus.Properties.Get",
                                    "net.hadess.SensorProxy", "HasAccelerometer"],
                                   environment: bus.clientEnvironment, stderr: dir + "/has.err", stdout: dir + "/has.out", newProcessGroup: true)
        else { return false }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return readText(dir + "/has.out").contains("<true>")
    }
}

extension SensorIIOIntegrationTests {
    /// A buffer-only accelerometer (scan elements and a buffer, no raw attributes) with its own
    /// trigger, which iio-sensor-proxy's udev rule tags `iio-buffer-accel`: Debian's
    /// iio-sensor-proxy and orientationd, each in turn, publish the same orientations for the same
    /// scans. (Without a trigger, 3.0 falls back to polling raw attributes that are not there and
    /// reads zeros; 3.6 removed that requirement. orientationd reads both:
    /// `aBufferOnlyAccelerometerIsFoundAndRead`.)
    @Test(.enabled(if: facadeToolsAvailable, "needs dbus-daemon, gdbus, monitor-sensor and Debian's iio-sensor-proxy (make setup)"))
    func aBufferOnlyAccelerometerIsServedLikeThePeerServesIt() throws {
        var published: [String: [String]] = [:]
        for (index, daemon) in ["iio-sensor-proxy", "orientationd"].enumerated() {
            // A device of its own per daemon: umockdev cannot re-add a /dev name in one process.
            let testbed = Testbed()
            var device = FakeIIODevice(index: index, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
            device.rawAttributes = false
            device.udev = ["IIO_SENSOR_PROXY_TYPE": "iio-buffer-accel"]
            device.attributes["trigger/current_trigger"] = ""
            try testbed.add(device.description)
            try testbed.add("P: /devices/platform/fake-accel_3d-\(index)/trigger\(index)\nE: SUBSYSTEM=iio\nA: name=accel_3d-dev\(index)\\n\n\n")
            let bus = try PrivateSystemBus()
            let dir = bus.directory
            let command = daemon == "orientationd"
                ? [Self.productsDirectory + "/orientationd", "--dbus", "--socket", dir + "/d.sock"]
                : ["/usr/sbin/iio-sensor-proxy"]
            let server = try spawn(command, environment: bus.inheritedEnvironment + ["G_MESSAGES_DEBUG=all"], stderr: dir + "/daemon.err",
                                   newProcessGroup: true)
            defer { _ = stopProcess(server) }
            #expect(waitUntil(timeout: 10, every: 0.05) { Self.hasAccelerometer(bus) }, "\(daemon): \(readText(dir + "/daemon.err").suffix(2000))")
            let monitor = try spawn(["/usr/bin/monitor-sensor"], environment: bus.clientEnvironment, stderr: dir + "/monitor.err",
                                    stdout: dir + "/monitor.out", newProcessGroup: true)
            defer { _ = stopProcess(monitor, SIGKILL) }
            let fd = testbed.deviceFD(device.node)
            var time: Int64 = 1_000_000_000
            // Each pose is fed (a second of scans at 100 Hz) until monitor-sensor shows it: the
            // daemons enable the buffer when claimed, which the test cannot await otherwise.
            for (k, raw) in [[0, -100, 0], [-100, 0, 0], [0, 100, 0]].enumerated() {
                let shown = waitUntil(timeout: 8, every: 0.2) {
                    var bytes: [UInt8] = []
                    for _ in 0..<20 {
                        bytes += device.scan(raw, timestampNanoseconds: time)
                        time += 10_000_000
                    }
                    writeAll(fd, bytes)
                    return Self.orientationChanges(readText(dir + "/monitor.out")).count == k + 1
                }
                #expect(shown, "\(daemon) \(raw): \(readText(dir + "/monitor.out")) \(readText(dir + "/daemon.err").suffix(3000))")
            }
            published[daemon] = Self.orientationChanges(readText(dir + "/monitor.out"))
        }
        #expect(published["iio-sensor-proxy"] == ["normal", "right-up", "bottom-up"], "the peer: \(published)")
        #expect(published["orientationd"] == published["iio-sensor-proxy"])
    }
}

extension SensorIIOIntegrationTests {
    /// iio-sensor-proxy's tilt rule (`atan2(z, √(x² + y²))` in whole degrees, ±70 and beyond
    /// face-up/face-down, ±20 the vertical's limit) on one canonical gravity vector. The peer
    /// calls face-up the screen facing the sky, z = +1 g in its frame; orientationd's frame
    /// (ARCHITECTURE.md §3) has the same x and y and the opposite z (face-up: (0, 0, −9.81)).
    static func peersTilt(canonical x: Double, _ y: Double, _ z: Double) -> String {
        let peerZ = -z
        let angle = (atan2(peerZ, (x * x + y * y).squareRoot()) * 180 / Double.pi).rounded()
        if abs(angle) <= 20 { return "vertical" }
        if abs(angle) < 70 { return angle > 0 ? "tilted-up" : "tilted-down" }
        return angle > 0 ? "face-up" : "face-down"
    }

    /// Issue 40: on `data/xio-fusion/handheld.log` replayed with `--dbus`, the facade's
    /// `AccelerometerTilt` said `face-down` on the last face-up stretch while orientationd's
    /// `monitor-sensor` printed `Tilt changed: face-up`. Both are checked against the peer's rule
    /// applied to the recording's own samples of that stretch (its last second).
    @Test(.enabled(if: facadeToolsAvailable, "needs dbus-daemon and gdbus (make setup)"))
    func theFacadesTiltAndMonitorSensorsFollowThePeersRuleOnAReplay() throws {
        let log = PrivateSystemBus.repository + "/data/xio-fusion/handheld.log"
        let rows = readText(log).split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("time") }
            .map { $0.split(separator: ",").compactMap { Double($0) } }.filter { $0.count >= 4 }
        let end = rows.last?[0] ?? 0
        let lastSecond = Set(rows.filter { $0[0] >= end - 1 }.map { Self.peersTilt(canonical: $0[1], $0[2], $0[3]) })
        #expect(lastSecond == ["face-up"], "the peer's rule on the recording's last second: \(lastSecond)")

        let bus = try PrivateSystemBus()
        let dir = bus.directory
        let socket = dir + "/d.sock"
        let server = try spawn([Self.productsDirectory + "/orientationd", "--dbus", "--replay", log, "--speed", "max", "--socket", socket],
                               environment: bus.clientEnvironment, stderr: dir + "/daemon.err", newProcessGroup: true)
        defer { _ = stopProcess(server) }
        #expect(Self.waitForText(dir + "/daemon.err") { $0.contains("serving net.hadess.SensorProxy") }, "\(readText(dir + "/daemon.err"))")
        // orientationctl's monitor-sensor (3.9's lines, with the tilt) subscribes: the replay runs.
        let monitor = try spawn([Self.productsDirectory + "/orientationctl", "monitor-sensor", "--accel", "--socket", socket],
                                environment: ["PATH=/usr/bin:/bin"], stderr: dir + "/monitor.err", stdout: dir + "/monitor.out",
                                newProcessGroup: true)
        defer { _ = stopProcess(monitor, SIGKILL) }
        func sensorState() -> String {
            let get = runProcess([Self.productsDirectory + "/orientationctl", "get", "--socket", socket], environment: ["PATH=/usr/bin:/bin"])
            return get.stdout
        }
        #expect(waitUntil(timeout: 60, every: 0.2) { sensorState().contains("ended") }, "the replay ran to its end: \(sensorState())")
        let printed = readText(dir + "/monitor.out")
        let tilts = printed.split(separator: "\n").compactMap { line -> String? in
            if let range = line.range(ofText: "Tilt changed: ") { return String(line[range.upperBound...]) }
            if let range = line.range(ofText: ", tilt: ") { return String(line[range.upperBound...].dropLast()) }
            return nil
        }
        #expect(tilts.last == "face-up", "monitor-sensor: \(printed)")
        let facade = Self.busProperty(bus, "AccelerometerTilt")
        #expect(facade == "face-up", "the facade's AccelerometerTilt at the replay's end: \(facade ?? "nil") \(readText(dir + "/daemon.err").suffix(1500))")
    }
}
