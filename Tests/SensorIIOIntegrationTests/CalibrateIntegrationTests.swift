import Glibc
import OrientationCore
import Testing
import TestSupport

/// Issue 8, item 5: `orientationctl calibrate` on a umockdev accelerometer mounted rotated
/// (and one mirrored), posed by rewriting its raw attributes as the command asks; the printed
/// matrix, given to the daemon, makes it publish the right orientation.
extension SensorIIOIntegrationTests {
    /// Raw attribute values (scale 0.0980665: 100 ≈ 9.8 m/s²) for a canonical pose on a sensor
    /// mounted with `m` (canonical = m · raw, so raw = mᵀ · canonical).
    static func raw(_ pose: MountMatrixCalibration.Pose, mountedWith m: [Double]) -> [Int] {
        let g = pose.canonical * 100
        return [m[0] * g.x + m[3] * g.y + m[6] * g.z, m[1] * g.x + m[4] * g.y + m[7] * g.z, m[2] * g.x + m[5] * g.y + m[8] * g.z]
            .map { Int($0.rounded()) }
    }

    static func calibrationFixture(_ testbed: Testbed) throws -> FakeIIODevice {
        // The parent carries the bus modalias the hwdb snippet matches on.
        try testbed.add("P: /devices/platform/fake-accel_3d-0\nE: SUBSYSTEM=platform\nA: modalias=acpi:BOSC0200:\\n\n\n")
        var device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        device.buffered = false
        try testbed.add(device.description)
        return device
    }

    /// Runs calibrate, posing the fixture each time the command asks; returns its output.
    func calibrate(_ testbed: Testbed, _ device: FakeIIODevice, mountedWith m: [Double], in dir: String) throws -> (status: Int32, out: String, err: String) {
        func pose(_ p: MountMatrixCalibration.Pose) {
            for (axis, value) in zip(["x", "y", "z"], Self.raw(p, mountedWith: m)) {
                testbed.setAttribute(device.syspath, "in_accel_\(axis)_raw", "\(value)\n")
            }
        }
        pose(.portrait)
        let pid = try spawn([Self.productsDirectory + "/orientationctl", "calibrate", "--timeout", "20"],
                            environment: PrivateSystemBus.processEnvironment, stderr: dir + "/cal.err", stdout: dir + "/cal.out", newProcessGroup: true)
        for (count, next) in [(1, MountMatrixCalibration.Pose.rightEdgeUp), (2, .faceUp)] {
            let got = Self.waitForText(dir + "/cal.out", timeout: 20) { $0.components("got it") >= count || $0.contains("mirror") }
            #expect(got, "\(readText(dir + "/cal.out")) \(readText(dir + "/cal.err"))")
            pose(next)
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return ((status >> 8) & 0xff, readText(dir + "/cal.out"), readText(dir + "/cal.err"))
    }

    @Test func calibrateFindsARotatedMountingAndTheDaemonThenPublishesTheTruth() throws {
        let testbed = Testbed()
        let device = try Self.calibrationFixture(testbed)
        let dir = temporaryDirectory("calibrate")
        let mounted: [Double] = [0, -1, 0, 1, 0, 0, 0, 0, 1]
        let result = try calibrate(testbed, device, mountedWith: mounted, in: dir)
        #expect(result.status == 0, "\(result.out) \(result.err)")
        #expect(result.out.contains("1/3: hold it upright") && result.out.contains("3/3: now lay it flat"), "\(result.out)")
        #expect(result.out.contains("mount matrix: 0, -1, 0; 1, 0, 0; 0, 0, 1"), "\(result.out)")
        #expect(result.out.contains("sensor:modalias:acpi:BOSC0200:*:dmi:"), "the hwdb match names the device: \(result.out)")

        // The daemon with that matrix, the device turned right edge up: landscape-left.
        for (axis, value) in zip(["x", "y", "z"], Self.raw(.rightEdgeUp, mountedWith: mounted)) {
            testbed.setAttribute(device.syspath, "in_accel_\(axis)_raw", "\(value)\n")
        }
        let line = result.out.split(separator: "\n").first { $0.hasPrefix("mount-matrix = ") }.map(String.init) ?? ""
        writeBytes(dir + "/o.conf", Array("[sensor]\n\(line)\n".utf8))
        let daemon = try spawn([Self.productsDirectory + "/orientationd", "--config", dir + "/o.conf", "--socket", dir + "/d.sock"],
                               environment: PrivateSystemBus.processEnvironment, stderr: dir + "/d.err", newProcessGroup: true)
        defer { _ = stopProcess(daemon) }
        #expect(Self.waitForText(dir + "/d.err") { $0.contains("listening") }, "\(readText(dir + "/d.err"))")
        let client = connectUnix(dir + "/d.sock")
        defer { close(client) }
        _ = readLine(client, timeout: 5)
        sendLine(client, "{\"op\":\"subscribe\"}")
        var published: String? = nil
        let deadline = monotonicNow() + 15
        while published == nil, monotonicNow() < deadline, let text = readLine(client, timeout: max(0, deadline - monotonicNow())) {
            if text.contains("\"type\":\"orientation\""), !text.contains("\"orientation\":\"unknown\"") { published = text }
        }
        #expect(published?.contains("\"orientation\":\"landscape-left\"") == true, "\(published ?? "nothing") \(readText(dir + "/d.err"))")
    }

    @Test func calibrateRefusesAMirroredSensorAndSaysWhy() throws {
        let testbed = Testbed()
        let device = try Self.calibrationFixture(testbed)
        let dir = temporaryDirectory("calibrate-mirror")
        let result = try calibrate(testbed, device, mountedWith: [-1, 0, 0, 0, 1, 0, 0, 0, 1], in: dir)
        #expect(result.status == 1)
        #expect(result.err.contains("mirror image"), "\(result.err)")
        #expect(!result.out.contains("ACCEL_MOUNT_MATRIX"))
    }
}

extension String {
    func components(_ needle: String) -> Int {
        var count = 0
        var rest = Substring(self)
        while let range = rest.range(ofText: needle) {
            count += 1
            rest = rest[range.upperBound...]
        }
        return count
    }
}

/// Issue 8, item 3: a reload changes the sensor settings of a running daemon (here the mount
/// matrix, as after a calibration) without dropping the subscribed client.
extension SensorIIOIntegrationTests {
    @Test func aReloadedMountMatrixTakesEffectWithoutDroppingTheClient() throws {
        let testbed = Testbed()
        let device = try Self.calibrationFixture(testbed)
        let dir = temporaryDirectory("reload-sensor")
        // The device upright in portrait, on a sensor mounted a quarter turn off.
        let mounted: [Double] = [0, -1, 0, 1, 0, 0, 0, 0, 1]
        for (axis, value) in zip(["x", "y", "z"], Self.raw(.portrait, mountedWith: mounted)) {
            testbed.setAttribute(device.syspath, "in_accel_\(axis)_raw", "\(value)\n")
        }
        writeBytes(dir + "/o.conf", Array("[sensor]\nmount-matrix = 1, 0, 0; 0, 1, 0; 0, 0, 1\n".utf8))
        let daemon = try spawn([Self.productsDirectory + "/orientationd", "--config", dir + "/o.conf", "--socket", dir + "/d.sock"],
                               environment: PrivateSystemBus.processEnvironment, stderr: dir + "/d.err", newProcessGroup: true)
        defer { _ = stopProcess(daemon) }
        #expect(Self.waitForText(dir + "/d.err") { $0.contains("listening") }, "\(readText(dir + "/d.err"))")
        let client = connectUnix(dir + "/d.sock")
        defer { close(client) }
        _ = readLine(client, timeout: 5)
        sendLine(client, "{\"op\":\"subscribe\"}")
        func nextOrientation() -> String? {
            let deadline = monotonicNow() + 15
            while monotonicNow() < deadline, let text = readLine(client, timeout: max(0, deadline - monotonicNow())) {
                if text.contains("\"type\":\"orientation\""), !text.contains("\"orientation\":\"unknown\"") { return text }
            }
            return nil
        }
        // Identity: the wrong answer a badly mounted sensor gives.
        #expect(nextOrientation()?.contains("\"orientation\":\"landscape") == true)
        writeBytes(dir + "/o.conf", Array("[sensor]\nmount-matrix = 0, -1, 0; 1, 0, 0; 0, 0, 1\n".utf8))
        kill(daemon, SIGHUP)
        #expect(Self.waitForText(dir + "/d.err") { $0.contains("configuration reloaded") }, "\(readText(dir + "/d.err"))")
        let corrected = nextOrientation()
        #expect(corrected?.contains("\"orientation\":\"portrait\"") == true, "\(corrected ?? "nothing") \(readText(dir + "/d.err"))")
    }
}
