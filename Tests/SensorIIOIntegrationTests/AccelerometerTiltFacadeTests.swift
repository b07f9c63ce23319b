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
    /// attributes; identity matrix). The peer's z sign: raw z = +1 g is its face-up (its own
    /// acceptance suite), the opposite of orientationd's frame.
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
        let poses: [(raw: (Int, Int, Int), tilt: String)] = [
            ((0, -100, 0), "vertical"),
            ((0, -71, 71), "tilted-up"),       // 45°
            ((0, -17, 98), "face-up"),         // 80°
            ((0, -71, -71), "tilted-down"),
            ((0, -17, -98), "face-down"),
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
