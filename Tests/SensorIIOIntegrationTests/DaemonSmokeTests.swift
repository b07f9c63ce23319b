import Glibc
import Testing
import TestSupport

/// The real `orientationd` binary under `umockdev-run`, with a fixture accelerometer whose
/// /dev/iio:device0 plays a scripted feed: a subscriber over the socket sees the turns it holds.
extension SensorIIOIntegrationTests {
    static var productsDirectory: String {
        var parts = CommandLine.arguments[0].split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        while !parts.isEmpty, access(parts.joined(separator: "/") + "/orientationd", X_OK) != 0 { parts.removeLast() }
        return parts.joined(separator: "/")
    }

    /// umockdev's script format: `r <delay ms> <bytes>`; bytes below 32 are written `^` + (b + 64)
    /// and `^` itself as `` ^` `` (../shared/NOTES-umockdev.md).
    static func scriptLine(delay: Int, _ bytes: [UInt8]) -> [UInt8] {
        var out = Array("r \(delay) ".utf8)
        for b in bytes {
            if b < 32 { out += [UInt8(ascii: "^"), b + 64] } else if b == UInt8(ascii: "^") { out += [UInt8(ascii: "^"), UInt8(ascii: "`")] } else { out.append(b) }
        }
        out.append(UInt8(ascii: "\n"))
        return out
    }

    @Test func theDaemonPublishesWhatAScriptedSensorFeeds() throws {
        guard access("/usr/bin/umockdev-run", X_OK) == 0 else {
            Issue.record("umockdev-run is missing (make setup installs umockdev)")
            return
        }
        var template = Array("/tmp/orientationd-smoke-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        let device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        let descriptionPath = dir + "/accel.umockdev", scriptPath = dir + "/feed.script"
        writeBytes(descriptionPath, Array(device.description.utf8))
        // 2 s portrait, 2 s landscape-left (right edge up), 2 s portrait, at 100 Hz.
        var script: [UInt8] = []
        let poses: [[Int]] = [[0, -100, 0], [-100, 0, 0], [0, -100, 0]]
        for (p, raw) in poses.enumerated() {
            for k in 0..<200 {
                let ns = Int64(p * 200 + k) * 10_000_000
                script += Self.scriptLine(delay: 10, device.scan(raw, timestampNanoseconds: ns))
            }
        }
        writeBytes(scriptPath, script)
        let socket = dir + "/d.sock"
        let arguments = ["/usr/bin/umockdev-run", "-d", descriptionPath, "-s", "/dev/iio:device0=\(scriptPath)", "--",
                         Self.productsDirectory + "/orientationd", "--socket", socket, "--log-level", "info"]
        // A clean environment: this test process itself runs under umockdev's preload.
        let environment = ["PATH=/usr/bin:/bin"]
        let pid = try spawn(arguments, environment: environment, stderr: dir + "/daemon.err", newProcessGroup: true)
        defer {
            kill(-pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        var client: Int32 = -1
        for _ in 0..<500 where client < 0 {
            client = connectUnix(socket)
            if client < 0 { usleep(10_000) }
        }
        #expect(client >= 0, "daemon socket never appeared: \(readText(dir + "/daemon.err"))")
        guard client >= 0 else { return }
        defer { close(client) }
        sendLine(client, "{\"op\":\"subscribe\"}")
        var lines: [String] = []
        let deadline = monotonicNow() + 20
        while monotonicNow() < deadline, lines.filter({ $0.contains("\"type\":\"orientation\"") }).count < 3 {
            guard let line = readLine(client, timeout: deadline - monotonicNow()) else { break }
            lines.append(line)
        }
        let orientations = lines.filter { $0.contains("\"type\":\"orientation\"") }.compactMap { line -> String? in
            guard let range = line.range(of: "\"orientation\":\"", options: []) else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }
        #expect(orientations == ["portrait", "landscape-left", "portrait"], "daemon log: \(readText(dir + "/daemon.err"))")
        #expect(readText(dir + "/daemon.err").contains("opening sensor"))
    }

    /// Runs `orientationd ARGS` under umockdev-run with the given devices (and a feed for
    /// /dev/iio:device0), waits for it to exit, returns (status, stdout, stderr).
    static func runDaemon(devices: [FakeIIODevice], feed: [UInt8]?, moreFeeds: [(node: String, script: [UInt8])] = [],
                          moreDevices: [String] = [],
                          arguments: [String], interruptAfterSamples: Int? = nil) throws -> (status: Int32, out: String, err: String, log: String) {
        var template = Array("/tmp/orientationd-run-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
        writeBytes(dir + "/devices.umockdev", Array((devices.map(\.description) + moreDevices).joined().utf8))
        var command = ["/usr/bin/umockdev-run", "-d", dir + "/devices.umockdev"]
        if let feed {
            writeBytes(dir + "/feed.script", feed)
            command += ["-s", "/dev/iio:device0=\(dir)/feed.script"]
        }
        for (k, extra) in moreFeeds.enumerated() {
            writeBytes(dir + "/feed\(k).script", extra.script)
            command += ["-s", "\(extra.node)=\(dir)/feed\(k).script"]
        }
        command += ["--", productsDirectory + "/orientationd"] + arguments.map { $0.replacingDirectory(dir) }
        let pid = try spawn(command, environment: ["PATH=/usr/bin:/bin"], stderr: dir + "/err.txt", stdout: dir + "/out.txt", newProcessGroup: true)
        if let interruptAfterSamples {
            // Ctrl-C once the recording holds that many samples: to orientationd itself, not to
            // umockdev-run, which would die of it and leave the daemon behind. Polling the file is
            // the only way to see a recording grow.
            let deadline = time(nil) + 20
            while readText(dir + "/recorded.log").split(separator: "\n").filter({ $0.first?.isNumber == true }).count < interruptAfterSamples,
                  time(nil) < deadline {
                usleep(20_000)
            }
            if let daemon = descendant(of: pid, named: "orientationd") { kill(daemon, SIGINT) }
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return ((status >> 8) & 0xff, readText(dir + "/out.txt"), readText(dir + "/err.txt"), readText(dir + "/recorded.log"))
    }

    @Test func listSensorsExplainsTheChoice() throws {
        let display = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665",
                                    udev: ["ACCEL_MOUNT_MATRIX": "0, 1, 0; 1, 0, 0; 0, 0, 1"])
        let base = FakeIIODevice(index: 1, name: "bmc150_accel", format: "le:s12/16>>4", scale: "0.009582",
                                 udev: ["ACCEL_LOCATION": "base", "ACCEL_MOUNT_MATRIX": "1, 0, 0; 0, -1, 0; 1, 0, 0"])
        let (status, out, err, _) = try Self.runDaemon(devices: [display, base], feed: nil, arguments: ["--list-sensors"])
        #expect(status == 0, "\(err)")
        #expect(out.contains("* iio:device0  accel_3d  accelerometer, buffered"), "\(out)")
        #expect(out.contains("iio:device1  bmc150_accel") && out.contains("never used for screen orientation"), "\(out)")
        #expect(out.contains("using iio:device0, buffered(batch: 5), mount matrix 0, 1, 0; 1, 0, 0; 0, 0, 1 from udev ACCEL_MOUNT_MATRIX"), "\(out)")
        #expect(out.contains("while still: one reading every 0.5 s (still-interval)"), "\(out)")
        #expect(out.contains("posture: available: display iio:device0 (accel_3d), base iio:device1 (bmc150_accel); read only while"), "\(out)")
        let configured = try Self.runDaemon(devices: [display, base], feed: nil, arguments: ["--list-sensors", "--sensor", "nothing-like-it"])
        #expect(configured.1.contains("warning: --sensor nothing-like-it matches no sensor; none is used until one that matches appears"), "\(configured.1)")
    }

    /// Issue 28: a polled accelerometer whose driver has a motion event says it waits for it.
    @Test func listSensorsSaysHowAStillDeviceIsRead() throws {
        var device = FakeIIODevice(index: 0, name: "mma8452", format: "be:s12/16>>4", scale: "0.009577", buffered: false, raw: (0, -1024, 0))
        device.attributes["events/in_accel_x&y&z_mag_rising_en"] = "0"
        let (status, out, err, _) = try Self.runDaemon(devices: [device], feed: nil, arguments: ["--list-sensors"])
        #expect(status == 0, "\(err)")
        #expect(out.contains("while still: waits for the driver's motion event (in_accel_x&y&z_mag_rising_en), reading at least every 2.0 s"), "\(out)")
    }

    @Test func recordWritesAReplayableLogWithMetadata() throws {
        let device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665",
                                   udev: ["ACCEL_MOUNT_MATRIX": "-1, 0, 0; 0, -1, 0; 0, 0, 1"])
        var feed: [UInt8] = []
        for k in 0..<150 { feed += Self.scriptLine(delay: 10, device.scan([0, 100, 0], timestampNanoseconds: Int64(k) * 10_000_000)) }
        let (status, _, err, text) = try Self.runDaemon(devices: [device], feed: feed,
                                                       arguments: ["--record", "{dir}/recorded.log", "--duration", "1"])
        #expect(status == 0, "\(err)")
        #expect(text.hasPrefix("# orientationd-log v1\n"))
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("# device: accel_3d (iio:device0)"), "\(text.prefix(400))")
        #expect(lines.contains { $0.hasPrefix("# mount-matrix: -1, 0, 0; 0, -1, 0; 0, 0, 1 (from udev ACCEL_MOUNT_MATRIX") })
        #expect(lines.contains("# sample-rate: 50"))
        // Raw +1 g on y through the upside-down mount matrix: portrait, (0, −g, 0).
        let data = lines.filter { $0.first?.isNumber == true }
        #expect(data.count >= 90 && data.count <= 110, "\(data.count) samples for 1 s at 100 Hz")
        #expect(data.first?.split(separator: ",").dropFirst().prefix(3).joined(separator: ",") == "0.00000,-9.80665,0.00000")
    }

    /// Issue 17: `--list-sensors` covers light, proximity and compass, with why each is (not) used.
    @Test func listSensorsCoversLightProximityAndCompass() throws {
        let light = FakeAuxiliaryDevice.iio(0, name: "als", attributes: ["in_illuminance_raw": "10", "in_illuminance_scale": "0.5"])
        let proximity = FakeAuxiliaryDevice.iio(1, name: "stk3310", attributes: ["in_proximity_raw": "10"])
        let (status, out, err, _) = try Self.runDaemon(devices: [], feed: nil, moreDevices: [light.description, proximity.description],
                                                      arguments: ["--list-sensors"])
        #expect(status == 0, "\(err)")
        #expect(out.contains("* iio:device0  als  light, polled in_illuminance_raw × in_illuminance_scale, level × 1.0 (default)"), "\(out)")
        #expect(out.contains("  iio:device1  stk3310  proximity, polled in_proximity_raw"), "\(out)")
        #expect(out.contains("not used: no near level: set the udev property PROXIMITY_NEAR_LEVEL"), "\(out)")
        #expect(out.contains("no compass found"), "\(out)")
    }

    /// Issue 17: with a light and a proximity sensor present, the recording carries them too
    /// (log v2): each reading in the row of the next accelerometer sample.
    @Test func recordCarriesLightAndProximity() throws {
        let device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        var feed: [UInt8] = []
        for k in 0..<150 { feed += Self.scriptLine(delay: 10, device.scan([0, -100, 0], timestampNanoseconds: Int64(k) * 10_000_000)) }
        let sensor = FakeAuxiliaryDevice.iio(1, name: "vcnl4000", attributes: ["in_illuminance_input": "312", "in_proximity_raw": "40",
                                                                               "in_proximity_nearlevel": "1000"])
        let (status, _, err, text) = try Self.runDaemon(devices: [device], feed: feed, moreDevices: [sensor.description],
                                                       arguments: ["--record", "{dir}/recorded.log", "--duration", "1"])
        #expect(status == 0, "\(err)")
        #expect(text.hasPrefix("# orientationd-log v2\n"), "\(text.prefix(300))")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("# light-unit: lux") && lines.contains("# proximity-near-level: 1000.0"), "\(text.prefix(500))")
        #expect(lines.contains("time,accel_x,accel_y,accel_z,light,proximity"))
        let data = lines.filter { $0.first?.isNumber == true }
        // Read at once on open, then every 0.8 s (light) and 0.7 s (proximity): one or two each in 1 s.
        let light = data.filter { $0.hasSuffix(",312.000,") || $0.hasSuffix(",312.000,40.000") }
        let proximity = data.filter { $0.hasSuffix(",40.000") }
        #expect((1...2).contains(light.count) && (1...2).contains(proximity.count), "\(light) \(proximity)")
        #expect(data.filter { $0.hasSuffix(",,") }.count >= data.count - 4, "rows without a new reading leave the cells empty")
    }

    /// Ctrl-C ends a recording with no `--duration` cleanly: exit status 0, every line whole, the
    /// samples up to then kept. SIGINT reaches the recorder as every signal reaches the daemon
    /// (``ProcessSignals``: blocked in every thread, taken by the main thread with `sigwait`).
    @Test func ctrlCFinishesARecording() throws {
        let device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        var feed: [UInt8] = []
        for k in 0..<1000 { feed += Self.scriptLine(delay: 10, device.scan([0, 100, 0], timestampNanoseconds: Int64(k) * 10_000_000)) }
        let (status, _, err, text) = try Self.runDaemon(devices: [device], feed: feed, arguments: ["--record", "{dir}/recorded.log"],
                                                       interruptAfterSamples: 30)
        #expect(status == 0, "\(err)")
        #expect(err.contains("finishing the recording") && err.contains("signal=SIGINT"), "\(err)")
        #expect(text.hasSuffix("\n"), "the last line is whole")
        let data = text.split(separator: "\n").filter { $0.first?.isNumber == true }
        #expect(data.count >= 30 && data.count < 1000, "\(data.count) samples")
        #expect(data.allSatisfy { $0.split(separator: ",", omittingEmptySubsequences: false).count == 4 }, "every row whole")
        #expect(err.contains("samples=\(data.count)"), "the log line counts what the file holds: \(err)")
    }

    /// A gyroscope on a device of its own is recorded with the accelerometer, merged as the
    /// detector gets it (issue 10, item 5: the recording used to drop it).
    @Test func recordKeepsASeparateGyroscope() throws {
        let accel = FakeIIODevice(index: 0, name: "bmc150_accel", format: "le:s12/16>>4", scale: "0.009582")
        let gyro = FakeIIODevice(index: 1, name: "bmg160", kind: "anglvel", format: "le:s16/16>>0", scale: "0.001065")
        var accelFeed: [UInt8] = [], gyroFeed: [UInt8] = []
        for k in 0..<150 {
            let ns = Int64(k) * 10_000_000
            accelFeed += Self.scriptLine(delay: 10, accel.scan([0, -1024, 0], timestampNanoseconds: ns))
            gyroFeed += Self.scriptLine(delay: 10, gyro.scan([500, 0, -500], timestampNanoseconds: ns))
        }
        let (status, _, err, text) = try Self.runDaemon(devices: [accel, gyro], feed: accelFeed, moreFeeds: [(gyro.node, gyroFeed)],
                                                       arguments: ["--record", "{dir}/recorded.log", "--duration", "1"])
        #expect(status == 0, "\(err)")
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("# gyroscope: bmg160 (iio:device1), merged by timestamp"), "\(text.prefix(400))")
        #expect(lines.contains("time,accel_x,accel_y,accel_z,gyro_x,gyro_y,gyro_z"))
        let data = lines.filter { $0.first?.isNumber == true }
        let withRate = data.filter { !$0.hasSuffix(",,,") }
        #expect(data.count >= 80, "\(data.count) samples")
        #expect(withRate.count * 2 >= data.count, "most samples carry the gyroscope: \(withRate.count) of \(data.count)")
        #expect(withRate.first?.split(separator: ",").suffix(3).joined(separator: ",") == "0.53250,0.00000,-0.53250", "\(withRate.first ?? "")")
        let times = data.compactMap { Double($0.split(separator: ",")[0]) }
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })
    }
}

// MARK: - Small process and socket helpers (this target has no Foundation)

/// The first process named `name` (its `comm`) among `pid`'s descendants, from /proc.
func descendant(of pid: pid_t, named name: String) -> pid_t? {
    var queue = [pid]
    while !queue.isEmpty {
        let parent = queue.removeFirst()
        let children = readText("/proc/\(parent)/task/\(parent)/children").split(separator: " ").compactMap { pid_t($0) }
        for child in children {
            if readText("/proc/\(child)/comm").split(separator: "\n").first.map(String.init) == name { return child }
            queue.append(child)
        }
    }
    return nil
}

extension String {
    fileprivate func range(of needle: String, options: [Int]) -> Range<String.Index>? {
        var index = startIndex
        while index < endIndex {
            if self[index...].hasPrefix(needle) { return index..<self.index(index, offsetBy: needle.count) }
            index = self.index(after: index)
        }
        return nil
    }
}

extension String {
    /// `{dir}` in a test's arguments stands for its temporary directory.
    fileprivate func replacingDirectory(_ dir: String) -> String {
        guard let range = range(of: "{dir}", options: []) else { return self }
        return String(self[..<range.lowerBound]) + dir + String(self[range.upperBound...])
    }
}
