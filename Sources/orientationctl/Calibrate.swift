import ArgumentParser
import Glibc
import Logging
import OrientationCore
import SensorIIO
import SensorLog
import SensorPipeline

/// `orientationctl calibrate`: works out this device's mount matrix from three poses, live from
/// the sensor (read raw, without any matrix) or from a recording, and prints it ready for the
/// configuration and for systemd's hwdb.
struct Calibrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work out the accelerometer's mount matrix from three poses and print it for the configuration and for systemd's hwdb.",
        discussion: """
        Guides you through three poses (upright as you read it; right edge up; flat, screen up) and \
        notices each one once the device is held still for a second: no key to press. Reads the \
        sensor raw (no mount matrix), derives the rotation, refuses a mirrored one with an \
        explanation, and prints a [sensor] mount-matrix line and a hwdb snippet with the steps to \
        install it and to send it upstream. With --from-log, reads the three poses from a \
        recording made the same way (orientationd --record), in the same order. Needs read access to \
        the sensor (root, or stop orientationd first if the sensor allows one reader only).
        """
    )

    @Option(help: ArgumentHelp("Derive the matrix from a recording (v1 log) instead of the live sensor.", valueName: "log"))
    var fromLog: String?

    @Option(help: "The sensor to calibrate: an id (iio:device0), a name, a sysfs path or a udev KEY=VALUE (default: the display accelerometer).")
    var sensor: String?

    @Option(help: "Give up on a pose after this many seconds.")
    var timeout: Double = 60

    func validate() throws {
        guard timeout > 0, timeout <= SecondsConversion.maximum else {
            throw ValidationError("--timeout must be a number of seconds above 0 and at most 1e9, not \(timeout)")
        }
    }

    typealias Pose = MountMatrixCalibration.Pose

    func run() async throws {
        var readings: [Pose: Vector3] = [:]
        var applied = MountMatrix.identity
        var device: SensorDescription? = nil
        if let fromLog {
            (readings, applied) = try Self.poses(fromLog: fromLog)
        } else {
            (readings, device) = try await livePoses()
        }
        let derived: MountMatrix
        do {
            derived = try MountMatrixCalibration.derive(readings)
        } catch {
            throw CleanExit.message("calibrate: \(error)", failing: true)
        }
        // A log whose samples already went through a matrix: the device needs derived × applied.
        let matrix = applied.isIdentity ? derived : derived.multiplied(by: applied)
        printOut(Self.report(matrix: matrix, device: device))
    }

    // MARK: - Live

    private func livePoses() async throws -> ([Pose: Vector3], SensorDescription?) {
        var settings = IIOSettings()
        settings.selector = sensor
        settings.mountMatrix = (text: "1, 0, 0; 0, 1, 0; 0, 0, 1", source: "calibrate (raw readings)")
        settings.mode = .polled  // the raw attributes: no buffer, no trigger, works beside most drivers
        settings.pollRate = 50
        var logger = Logger(label: "orientationctl")
        logger.logLevel = .error
        let source = DiscoveringAccelerometerSource(settings: settings, logger: logger)
        let plan = try await source.plan()
        guard let accelerometer = plan.choice.accelerometer else {
            throw CleanExit.message("calibrate: no accelerometer found (orientationd --list-sensors shows what there is)", failing: true)
        }
        printError("calibrating \(accelerometer.id) (\(accelerometer.name)); its current mount matrix is ignored while reading")
        let stream = try await source.open()
        var readings: [Pose: Vector3] = [:]
        var finder = StillPoseFinder()
        do {
            for (index, pose) in Pose.allCases.enumerated() {
                printOut("\(index + 1)/3: \(pose.instruction)…")
                var first: Double? = nil
                while true {
                    guard let sample = try await stream.next() else { throw CleanExit.message("the sensor stopped", failing: true) }
                    if first == nil { first = sample.time }
                    if let reading = finder.add(sample) {
                        readings[pose] = reading
                        printOut("   got it: \(Self.format(reading))")
                        break
                    }
                    if sample.time - (first ?? sample.time) > timeout {
                        throw CleanExit.message("calibrate: no still \(pose.name) pose within \(timeout) s", failing: true)
                    }
                }
            }
        } catch {
            await stream.close()
            throw error
        }
        await stream.close()
        return (readings, accelerometer)
    }

    // MARK: - From a recording

    static func poses(fromLog path: String) throws -> ([Pose: Vector3], MountMatrix) {
        // Streamed: the finder sees each sample once and only the first three poses are kept
        // (issue 18: reading a 149 MB log whole took 1.09 GB).
        var finder = StillPoseFinder()
        var found: [Vector3] = []
        var foundCount = 0
        let recordedMatrix: String?
        do {
            var reader = try SensorLogReader(path: path)
            recordedMatrix = reader.metadata.mountMatrix
            while let sample = try reader.next() {
                guard let pose = finder.add(sample) else { continue }
                foundCount += 1
                if found.count < 3 { found.append(pose) }
            }
        } catch {
            throw CleanExit.message("calibrate: \(error)", failing: true)
        }
        var applied = MountMatrix.identity
        if let text = recordedMatrix, text.contains("already applied") {
            let matrixText = text.split(separator: "(").first.map(String.init) ?? text
            applied = (try? MountMatrix(parsing: matrixText)) ?? .identity
        }
        guard found.count >= 3 else {
            throw CleanExit.message("calibrate: \(path) holds \(foundCount) still pose\(foundCount == 1 ? "" : "s"), not 3: record the three steps (upright, right edge up, flat screen up), each held still for a second", failing: true)
        }
        if foundCount > 3 {
            printError("\(path): \(foundCount) still poses; using the first three")
        }
        return ([.portrait: found[0], .rightEdgeUp: found[1], .faceUp: found[2]], applied)
    }

    // MARK: - Output

    static func format(_ v: Vector3) -> String {
        func one(_ x: Double) -> String { String((x * 100).rounded() / 100) }
        return "(\(one(v.x)), \(one(v.y)), \(one(v.z)))"
    }

    /// The hwdb match for this device: its bus modalias and the machine's DMI vendor and product.
    static func hwdbMatch(for device: SensorDescription?) -> (match: String, complete: Bool) {
        func read(_ path: String) -> String? {
            guard let file = fopen(path, "r") else { return nil }
            defer { fclose(file) }
            var buffer = [CChar](repeating: 0, count: 512)
            guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
            let text = String(cString: buffer).trimmingTrailingNewline()
            return text.isEmpty ? nil : text
        }
        let modalias = device.flatMap { read($0.sysfsPath + "/../modalias") ?? read($0.sysfsPath + "/device/modalias") }
        let vendor = read("/sys/class/dmi/id/sys_vendor"), product = read("/sys/class/dmi/id/product_name")
        let dmi = vendor.map { v in "*svn\(v)*" + (product.map { ":pn\($0)*" } ?? "") } ?? "*"
        return ("sensor:modalias:\(modalias.map { $0 + "*" } ?? "*"):dmi:\(dmi)", modalias != nil && vendor != nil)
    }

    static func report(matrix: MountMatrix, device: SensorDescription?) -> String {
        let (match, complete) = hwdbMatch(for: device)
        var lines = [
            "mount matrix: \(matrix)",
            "",
            "For orientationd alone, in /etc/orientationd/orientationd.conf:",
            "[sensor]",
            "mount-matrix = \(matrix)",
            "",
            "For every program on this machine (iio-sensor-proxy, mutter, KWin read it too), a hwdb entry in",
            "/etc/udev/hwdb.d/61-sensor-local.hwdb:",
            match,
            " ACCEL_MOUNT_MATRIX=\(matrix)",
        ]
        if !complete {
            lines.append("(no \(device == nil ? "device" : "DMI or modalias") information here: narrow the match to your device by hand, as the entries in /usr/lib/udev/hwdb.d/60-sensor.hwdb do)")
        }
        lines += [
            "then: sudo systemd-hwdb update && sudo udevadm trigger --subsystem-match=iio --action=change",
            "and check with: udevadm info -q property -n /dev/\(device?.id ?? "iio:device0") | grep ACCEL_MOUNT_MATRIX",
            "",
            "Please send the entry upstream, so the next person with this device does not need this:",
            "systemd's hwdb.d/60-sensor.hwdb (https://github.com/systemd/systemd), with the output of",
            "`udevadm info --export-db | grep -B5 -A5 iio` and the device's name.",
        ]
        return lines.joined(separator: "\n")
    }
}

extension String {
    fileprivate func trimmingTrailingNewline() -> String {
        var text = Substring(self)
        while text.last == "\n" || text.last == " " { text = text.dropLast() }
        return String(text)
    }
}

/// A line on standard output, flushed (a guided command must show each step at once).
func printOut(_ line: String) {
    var output = OutputBuffer()
    output.appendLine(line)
    output.flush()
}
