import Glibc
import OrientationCore
import SensorLog
import Testing
import TestSupport

/// `orientationctl monitor --light --proximity` and `monitor-sensor --light --proximity` against
/// the real daemon replaying a v2 log (issue 17).
@Suite struct AuxiliaryCommandTests {
    static func writeLog(_ path: String) throws {
        var metadata = SensorLogMetadata()
        metadata.append(key: "proximity-near-level", value: "1000")
        var writer = try SensorLogWriter(path: path, metadata: metadata, includesGyroscope: false, includesLight: true, includesProximity: true)
        let rows: [(Double?, Double?)] = [(300, 10), (310, nil), (600, 1200), (nil, 500)]
        for (k, (light, proximity)) in rows.enumerated() {
            try writer.write(Sample(time: Double(k) * 0.1, acceleration: Vector3(0, -9.81, 0), light: light, proximity: proximity))
        }
        try writer.finish()
    }

    @Test func monitorPrintsLightAndProximity() throws {
        let dir = temporaryDirectory()
        try Self.writeLog(dir + "/r.log")
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", dir + "/r.log", "--speed", "max", "--exit-when-done", "--socket", socket],
                                      directory: dir)
        let monitor = try ChildProcess([Build.orientationctl, "monitor", "--light", "--proximity", "--once", "--wait", "20", "--socket", socket],
                                       directory: dir)
        #expect(monitor.wait() == 0, "\(monitor.stderr)")
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
        let lines = monitor.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("light") || $0.hasPrefix("proximity") }
        #expect(lines == ["light: no reading yet", "proximity: no reading yet", "light 300.0 lux", "proximity far", "light 600.0 lux",
                          "proximity near", "proximity far"], "\(monitor.stdout)")
    }

    /// monitor-sensor's lines as 3.9 prints them (the default: the tilt with the orientation)
    /// and as 3.0 (Debian bookworm's) printed them.
    @Test(arguments: [
        ([String](), """
                Waiting for iio-sensor-proxy to appear
            +++ iio-sensor-proxy appeared
            === Has accelerometer (orientation: undefined, tilt: undefined)
            === Has ambient light sensor (value: 300.000000, unit: lux)
            === Has proximity sensor (near: 0)
                Accelerometer orientation changed: normal
                Tilt changed: vertical
                Light changed: 600.000000 (lux)
                Proximity value changed: 1
                Proximity value changed: 0
            --- iio-sensor-proxy vanished, waiting for it to appear

            """),
        (["--format", "3.0"], """
                Waiting for iio-sensor-proxy to appear
            +++ iio-sensor-proxy appeared
            === Has accelerometer (orientation: undefined)
            === Has ambient light sensor (value: 300.000000, unit: lux)
            === Has proximity sensor (near: 0)
                Accelerometer orientation changed: normal
                Light changed: 600.000000 (lux)
                Proximity value changed: 1
                Proximity value changed: 0
            --- iio-sensor-proxy vanished, waiting for it to appear

            """),
    ])
    func monitorSensorPrintsThePeersLinesForThem(_ format: [String], _ expected: String) throws {
        let dir = temporaryDirectory()
        try Self.writeLog(dir + "/r.log")
        let socket = dir + "/d.sock"
        let daemon = try ChildProcess([Build.orientationd, "--replay", dir + "/r.log", "--speed", "max", "--exit-when-done", "--socket", socket],
                                      directory: dir)
        #expect(waitForSocket(socket))
        let monitor = try ChildProcess([Build.orientationctl, "monitor-sensor", "--accel", "--light", "--proximity"] + format + ["--socket", socket],
                                       directory: dir)
        #expect(daemon.wait() == 0, "\(daemon.stderr)")
        #expect(waitUntil(timeout: 20) { monitor.stdout.contains("vanished") }, "\(monitor.stdout)")
        kill(monitor.pid, SIGTERM)
        _ = monitor.wait()
        #expect(monitor.stdout == expected, "\(monitor.stdout)")
    }
}
