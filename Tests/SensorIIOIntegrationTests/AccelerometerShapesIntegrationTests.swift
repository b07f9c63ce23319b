import Glibc
import Logging
import OrientationCore
import SensorIIO
import SensorPipeline
import Testing

/// Issue 16: the accelerometer shapes iio-sensor-proxy serves, as umockdev devices written from
/// the kernel's IIO ABI (Documentation/ABI/testing/sysfs-bus-iio).
extension SensorIIOIntegrationTests {
    static var quietLogger: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }

    /// An attribute as the testbed holds it, without the newline or libiio's trailing NUL.
    static func value(_ testbed: Testbed, _ device: FakeIIODevice, _ name: String) -> String? {
        testbed.attribute(device.syspath, name).map { String($0.prefix { $0 != "\n" && $0 != "\0" }) }
    }

    // MARK: Item 1: buffer-only accelerometers

    /// Scan elements and a buffer, no `in_accel_*_raw`: an accelerometer (HasAccelerometer),
    /// read through its buffer, with its own trigger or none, and whatever `mode` says.
    @Test(arguments: [true, false])
    func aBufferOnlyAccelerometerIsFoundAndRead(withTrigger: Bool) async throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        device.rawAttributes = false
        if withTrigger { device.attributes["trigger/current_trigger"] = "" }
        try testbed.add(device.description)
        if withTrigger {
            try testbed.add("""
            P: /devices/platform/fake-accel_3d-0/trigger0
            E: SUBSYSTEM=iio
            A: name=accel_3d-dev0\\n

            """)
        }
        let sensors = try UdevDiscovery.sensors()
        let sensor = try #require(sensors.first { $0.id == device.id })
        #expect(sensor.kind == .accelerometer && sensor.hasBuffer && !sensor.hasRawAttributes, "\(sensor)")
        #expect(sensor.channels == ["accel_x", "accel_y", "accel_z"])
        #expect(SensorChoice.choose(from: sensors).accelerometer?.id == device.id)
        // `mode = polled` cannot poll it: the buffer is read anyway (with a warning).
        var settings = IIOSettings()
        settings.mode = .polled
        settings.batch = 1
        let source = DiscoveringAccelerometerSource(settings: settings, logger: Self.quietLogger)
        #expect(await source.isPresent())
        let stream = try await source.open()
        writeAll(testbed.deviceFD(device.node), device.scan([0, -100, 0], timestampNanoseconds: 1))
        let sample = try #require(try await stream.next())
        #expect(abs(sample.acceleration.y - (-100 * 0.0980665)) < 1e-9, "\(sample)")
        #expect(Self.value(testbed, device, "buffer/enable") == "1")
        if withTrigger { #expect(Self.value(testbed, device, "trigger/current_trigger") == "accel_3d-dev0") }
        await stream.close()
        #expect(Self.value(testbed, device, "buffer/enable") == "0")
    }

    /// Scan elements without a device node (no `N:` line and no `DEVNAME`, from which libudev
    /// would name one) cannot be read: not an accelerometer.
    @Test func scanElementsWithoutABufferAreNoAccelerometer() throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        device.rawAttributes = false
        let withoutNode = device.description.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("N: ") && !$0.hasPrefix("E: DEVNAME=") }
        try testbed.add(withoutNode.joined(separator: "\n"))
        let sensor = try #require(try UdevDiscovery.sensors().first)
        #expect(sensor.kind == .other && sensor.channels.isEmpty, "\(sensor)")
    }

    // MARK: Item 4: slow polled accelerometers

    struct FrequencyCase: Sendable, CustomStringConvertible {
        let current: String
        let available: String?
        let configured: Double?
        let expected: String
        var description: String { "\(current) Hz, available \(available ?? "none"), configured \(configured.map { "\($0)" } ?? "none")" }
    }

    static let frequencyCases: [FrequencyCase] = [
        FrequencyCase(current: "5.200000", available: "1.562500 3.125000 6.250000 12.500000 25.000000", configured: nil, expected: "12.5"),
        FrequencyCase(current: "1", available: "1 10 100", configured: nil, expected: "10"),
        FrequencyCase(current: "1", available: nil, configured: nil, expected: "10"),
        FrequencyCase(current: "50", available: "1 10 50 100", configured: nil, expected: "50"),
        FrequencyCase(current: "5", available: "1 5 10", configured: 4, expected: "4"),  // the user's value, never raised
    ]

    /// The driver's `sampling_frequency` after the sensor opened polled, as libiio wrote it.
    @Test(arguments: frequencyCases)
    func aSlowPolledAccelerometerIsRaisedToTenHertz(_ row: FrequencyCase) async throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "da280", format: "le:s14/16>>2", scale: "0.002394", buffered: false, raw: (0, -4096, 0))
        device.samplingFrequency = row.current
        if let available = row.available { device.attributes["sampling_frequency_available"] = available }
        try testbed.add(device.description)
        var settings = IIOSettings()
        if let configured = row.configured { #expect(settings.apply(name: "sampling-frequency", value: "\(configured)", location: "test") == nil) }
        let source = DiscoveringAccelerometerSource(settings: settings, logger: Self.quietLogger)
        // At the daemon's start, before any claim (iio-sensor-proxy does it when it starts)…
        await source.prepare()
        let written = try #require(Self.value(testbed, device, "sampling_frequency"))
        #expect(Double(written) == Double(row.expected), "\(row): \(written)")
        if row.expected != row.current {
            #expect(written == row.expected, "written as the peer writes it: the number alone")
        }
        // …and at every open: a driver that went back to its default is raised again.
        testbed.setAttribute(device.syspath, "sampling_frequency", row.current + "\n")
        let stream = try await source.open()
        _ = try #require(try await stream.next())
        #expect(Double(try #require(Self.value(testbed, device, "sampling_frequency"))) == Double(row.expected))
        await stream.close()
    }

    // MARK: Item 3: a missing or wrong scale

    /// A driver with no `in_accel_scale` (raw counts taken as m/s²) or one 26× too large: the
    /// daemon's pipeline still publishes the orientation.
    @Test(arguments: [nil, "2.549729"])  // 26 × 0.0980665
    func aMissingOrWrongScaleStillRotates(scale: String?) async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: scale)
        try testbed.add(device.description)
        let log = EventLog()
        let pipeline = try Self.pipeline(log)
        let running = Task { await pipeline.run() }
        pipeline.setClaimed(true)
        #expect(await log.wait { $0 == .sensorActive(true) })
        Self.feed(testbed, device, raw: [-100, 0, 0], seconds: 1)  // landscape-left (right edge up)
        #expect(await log.wait { if case .orientation(let e) = $0 { e.orientation == .landscapeLeft } else { false } }, "\(log.all)")
        #expect(log.all.contains(.tilt(.vertical)), "\(log.all)")
        pipeline.finish()
        await running.value
    }

    /// `[sensor] scale` replaces the driver's.
    @Test func aConfiguredScaleReplacesTheDrivers() async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "2.549729")
        try testbed.add(device.description)
        var settings = IIOSettings()
        #expect(settings.apply(name: "scale", value: "0.0980665", location: "test") == nil)
        settings.batch = 1
        let stream = try await DiscoveringAccelerometerSource(settings: settings, logger: Self.quietLogger).open()
        writeAll(testbed.deviceFD(device.node), device.scan([0, -100, 0], timestampNanoseconds: 1))
        let sample = try #require(try await stream.next())
        #expect(abs(sample.acceleration.y - (-9.80665)) < 1e-9, "\(sample)")
        await stream.close()
    }

    /// Attribute values without the kernel's trailing newline and a device not named
    /// `iio:deviceN` (as hand-made fixtures write them, iio-sensor-proxy's acceptance suite
    /// among them: `iio-accel`): libiio would read `-25.` for `-25.6`, `1` for a scale of `10`
    /// and fail on `0`; the polled reader reads the files itself.
    @Test func aPolledSensorReadsValuesWithoutTheTrailingNewline() async throws {
        let testbed = Testbed()
        try testbed.add("""
        P: /devices/iio-accel
        E: DEVTYPE=iio_device
        E: SUBSYSTEM=iio
        A: name=IIO Test Accelerometer
        A: in_accel_x_raw=0
        A: in_accel_y_raw=-25.6
        A: in_accel_z_raw=0
        A: in_accel_scale=10
        A: sampling_frequency=5.2

        """)
        let sensor = try #require(try UdevDiscovery.sensors().first)
        #expect(sensor.id == "iio-accel" && sensor.kind == .accelerometer, "\(sensor)")
        let log = EventLog()
        let pipeline = try Self.pipeline(log)
        let running = Task { await pipeline.run() }
        pipeline.setClaimed(true)
        #expect(await log.wait { if case .orientation(let e) = $0 { e.orientation == .portrait } else { false } }, "\(log.all)")
        testbed.setAttribute("/sys/devices/iio-accel", "in_accel_x_raw", "-25.6")
        testbed.setAttribute("/sys/devices/iio-accel", "in_accel_y_raw", "0")
        #expect(await log.wait { if case .orientation(let e) = $0 { e.orientation == .landscapeLeft } else { false } }, "\(log.all)")
        pipeline.finish()
        await running.value
    }
}
