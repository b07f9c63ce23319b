import Glibc
import OrientationCore
import SensorIIO
import SensorInput
import SensorPipeline
import Synchronization
import TestSupport
import Testing

/// Issue 16, item 2: input-subsystem accelerometers (evdev, `ID_INPUT_ACCELEROMETER=1`), as
/// umockdev devices written from the kernel's input ABI (Documentation/input/event-codes.rst:
/// `EV_ABS` `ABS_X/Y/Z`, then `EV_SYN` `SYN_REPORT`).
extension SensorIIOIntegrationTests {
    /// A `lis3lv02d`-like device: the `inputN` parent (NAME) and its `eventN` node.
    struct FakeInputAccelerometer {
        var physical = "/devices/platform/lis3lv02d"
        var number = 5
        var name = "ST LIS3LV02DL Accelerometer"
        var udev: [String: String] = [:]
        var parentProperty = "ID_INPUT_ACCELEROMETER"

        var parentPath: String { "\(physical)/input/input\(number)" }
        var node: String { "/dev/input/event\(number)" }

        var descriptions: [String] {
            let parent = """
            P: \(parentPath)
            E: SUBSYSTEM=input
            E: PRODUCT=19/0/0/0
            E: NAME="\(name)"
            E: ID_INPUT=1
            E: \(parentProperty)=1
            A: name=\(name)\\n

            """
            var event = ["P: \(parentPath)/event\(number)", "N: input/event\(number)", "E: DEVNAME=\(node)", "E: SUBSYSTEM=input",
                         "E: MAJOR=13", "E: MINOR=\(64 + number)", "E: ID_INPUT=1", "E: \(parentProperty)=1"]
            for (key, value) in udev.sorted(by: { $0.key < $1.key }) { event.append("E: \(key)=\(value)") }
            event.append("A: dev=13:\(64 + number)\\n")
            return [parent, event.joined(separator: "\n") + "\n\n"]
        }

        /// One report: the three axes and SYN_REPORT, stamped `seconds`, as `struct input_event`s
        /// of this (64-bit) architecture: a timeval of two 64-bit fields, type, code, value.
        static func report(_ values: (Int32, Int32, Int32), at seconds: Double) -> [UInt8] {
            func event(_ type: UInt16, _ code: UInt16, _ value: Int32) -> [UInt8] {
                let sec = Int64(seconds), usec = Int64(((seconds - Double(sec)) * 1e6).rounded())
                return withUnsafeBytes(of: sec.littleEndian, Array.init) + withUnsafeBytes(of: usec.littleEndian, Array.init)
                    + withUnsafeBytes(of: type.littleEndian, Array.init) + withUnsafeBytes(of: code.littleEndian, Array.init)
                    + withUnsafeBytes(of: value.littleEndian, Array.init)
            }
            return event(3, 0, values.0) + event(3, 1, values.1) + event(3, 2, values.2) + event(0, 0, 0)
        }
    }

    @Test func anInputAccelerometerIsFoundAndReadWithItsMountMatrix() async throws {
        #expect(MemoryLayout<Int>.size == 8, "the fake events are written for a 64-bit timeval")
        let testbed = Testbed()
        var device = FakeInputAccelerometer()
        device.udev["ACCEL_MOUNT_MATRIX"] = "0, 1, 0; -1, 0, 0; 0, 0, 1"  // a sensor turned by 90°
        for description in device.descriptions { try testbed.add(description) }
        let sensors = try UdevDiscovery.sensors()
        let sensor = try #require(sensors.first { $0.bus == .input }, "\(sensors)")
        #expect(sensor.id == "event5" && sensor.name == "ST LIS3LV02DL Accelerometer" && sensor.kind == .accelerometer)
        #expect(sensor.deviceNode == device.node)
        #expect(sensors.filter { $0.bus == .input }.count == 1, "the inputN parent is not a second sensor")
        #expect(SensorChoice.choose(from: sensors).accelerometer?.id == "event5")
        let source = DiscoveringAccelerometerSource(settings: IIOSettings(), logger: Self.quietLogger)
        #expect(await source.isPresent(), "HasAccelerometer")
        let stream = try await source.open()
        // +1 g on the sensor's own x axis; 1 g = 256 counts (no resolution: the PTY has no EVIOCGABS).
        writeAll(testbed.deviceFD(device.node), FakeInputAccelerometer.report((256, 0, 0), at: 100))
        var sample: Sample? = nil
        for _ in 0..<20 where sample == nil {
            if let next = try await stream.next(), next.acceleration.length > 0 { sample = next }
        }
        let read = try #require(sample)
        #expect(abs(read.acceleration.x) < 1e-9 && abs(read.acceleration.y - (-9.80665)) < 1e-9, "M · v: portrait, \(read)")
        // Still: evdev sends nothing new, the reader repeats where it is (no stall).
        let first = read.time
        var repeats = 0
        for _ in 0..<3 { if let next = try await stream.next(), next.time > first, next.acceleration == read.acceleration { repeats += 1 } }
        #expect(repeats == 3)
        // A partial event arrives in pieces: reassembled.
        let bytes = FakeInputAccelerometer.report((0, 256, 0), at: 100.01)
        writeAll(testbed.deviceFD(device.node), Array(bytes[..<10]))
        writeAll(testbed.deviceFD(device.node), Array(bytes[10...]))
        var turned = false
        for _ in 0..<40 where !turned {
            if let next = try await stream.next(), abs(next.acceleration.x - 9.80665) < 1e-9 { turned = true }
        }
        #expect(turned, "(0, 256, 0) through the matrix is +x")
        await stream.close()
    }

    /// A node that gives no values at all (no `EVIOCGABS` on the PTY, no event) is reported
    /// stalled, so the pipeline reopens it and the watchdog sees a failure, not silence.
    @Test func aSilentInputAccelerometerIsReportedStalled() async throws {
        let testbed = Testbed()
        let device = FakeInputAccelerometer()
        for description in device.descriptions { try testbed.add(description) }
        let stream = try await EvdevSensorSource(node: device.node, name: "event5", mountMatrix: .identity, rate: 20, stallTimeout: 0.3).open()
        await #expect {
            while try await stream.next() != nil {}
        } throws: { error in
            "\(error)".contains("stalled")
        }
        await stream.close()
    }

    /// The daemon's pipeline publishes from it.
    @Test func thePipelinePublishesFromAnInputAccelerometer() async throws {
        let testbed = Testbed()
        let device = FakeInputAccelerometer()
        for description in device.descriptions { try testbed.add(description) }
        let log = EventLog()
        let pipeline = try Self.pipeline(log)
        let running = Task { await pipeline.run() }
        pipeline.setClaimed(true)
        #expect(await log.wait { $0 == .sensorActive(true) })
        var bytes: [UInt8] = []
        for k in 0..<50 { bytes += FakeInputAccelerometer.report((-256, 0, 0), at: 10 + Double(k) * 0.01) }  // right edge up
        writeAll(testbed.deviceFD(device.node), bytes)
        #expect(await log.wait { if case .orientation(let e) = $0 { e.orientation == .landscapeLeft } else { false } }, "\(log.all)")
        pipeline.finish()
        await running.value
    }

    /// A game controller's motion sensor (a joystick on the same physical device) is not a
    /// screen's accelerometer.
    @Test func aGameControllersMotionSensorIsSkipped() throws {
        let testbed = Testbed()
        try testbed.add("""
        P: /devices/platform/fake-gamepad
        E: SUBSYSTEM=platform

        """)
        var joystick = FakeInputAccelerometer(physical: "/devices/platform/fake-gamepad", number: 7, name: "Fake Gamepad")
        joystick.parentProperty = "ID_INPUT_JOYSTICK"
        let motion = FakeInputAccelerometer(physical: "/devices/platform/fake-gamepad", number: 8, name: "Fake Gamepad Motion Sensors")
        for description in motion.descriptions { try testbed.add(description) }
        #expect(try UdevDiscovery.sensors().contains { $0.id == "event8" }, "alone, the motion sensor is an accelerometer")
        for description in joystick.descriptions { try testbed.add(description) }
        let sensors = try UdevDiscovery.sensors()
        #expect(!sensors.contains { $0.bus == .input }, "\(sensors)")
    }
}

extension SensorIIOIntegrationTests {
    /// The udev monitor reports an input accelerometer coming and going, and no other input device.
    @Test func hotplugSeesInputAccelerometersOnly() async throws {
        let testbed = Testbed()
        let events = AwaitedLog<String>()
        let monitor = UdevMonitor(logger: Self.quietLogger) { event in events.append("\(event.action) \(event.device)") }
        try await monitor.start()
        var keyboard = FakeInputAccelerometer(physical: "/devices/platform/i8042", number: 3, name: "AT Translated Set 2 keyboard")
        keyboard.parentProperty = "ID_INPUT_KEYBOARD"
        for description in keyboard.descriptions { try testbed.add(description) }
        testbed.uevent("/sys" + keyboard.parentPath + "/event3", "add")  // a syspath: /sys and all
        let device = FakeInputAccelerometer()
        for description in device.descriptions { try testbed.add(description) }
        testbed.uevent("/sys" + device.parentPath + "/event5", "add")
        #expect(await events.wait { $0.contains("add event5") }, "\(events.all)")
        #expect(!events.all.contains("add event3"), "a keyboard is no sensor: \(events.all)")
        await monitor.stop()
    }
}
