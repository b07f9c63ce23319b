import Glibc
import OrientationCore
import SensorIIO
import SensorPipeline
import Testing

/// libudev and libiio for real, against umockdev testbeds. One serialized parent suite: umockdev's
/// state is process-global. `scripts/run-tests.sh` runs this target alone under
/// `umockdev-wrapper`; outside it the tests are skipped with that reason.
@Suite("SensorIIO with umockdev", .serialized, .enabled(if: Testbed.isAvailable, "needs umockdev-wrapper (make test runs it)"))
struct SensorIIOIntegrationTests {
    // MARK: Discovery

    @Test func discoveryClassifiesAndChoosesTheDisplayAccelerometer() throws {
        let testbed = Testbed()
        let display = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.098066500",
                                    udev: ["ACCEL_MOUNT_MATRIX": "0, 1, 0; 1, 0, 0; 0, 0, 1"])
        let base = FakeIIODevice(index: 1, name: "bmc150_accel", format: "le:s12/16>>4", scale: "0.009582",
                                 udev: ["ACCEL_LOCATION": "base"])
        let gyro = FakeIIODevice(index: 2, name: "bmg160", kind: "anglvel", format: "le:s16/16>>0", scale: "0.001065")
        let polled = FakeIIODevice(index: 3, name: "da280", format: "le:s14/16>>2", scale: "0.002394", buffered: false,
                                   attributes: ["label": "accel-display"])
        for device in [display, base, gyro, polled] { try testbed.add(device.description) }

        let sensors = try UdevDiscovery.sensors()
        #expect(sensors.map(\.id) == ["iio:device0", "iio:device1", "iio:device2", "iio:device3"])
        #expect(sensors.map(\.kind) == [.accelerometer, .accelerometer, .gyroscope, .accelerometer])
        #expect(sensors.map(\.hasBuffer) == [true, true, true, false])
        #expect(sensors[1].location == .base && sensors[1].locationSource == "udev ACCEL_LOCATION=base")
        #expect(sensors[3].location == .display && sensors[3].locationSource == "sysfs label=accel-display")
        #expect(sensors[0].mountMatrixCandidates.first == MountMatrixCandidateText(source: "udev ACCEL_MOUNT_MATRIX", text: "0, 1, 0; 1, 0, 0; 0, 0, 1"))

        let choice = SensorChoice.choose(from: sensors)
        // device3 states "display" explicitly and so beats device0, whose location is unstated.
        #expect(choice.accelerometer?.id == "iio:device3")
        #expect(choice.gyroscope?.id == "iio:device2")
        #expect(choice.reasons["iio:device1"]?.contains("never used for screen orientation") == true)
        #expect(SensorChoice.choose(from: sensors, selector: "accel_3d").accelerometer?.id == "iio:device0")
        #expect(SensorChoice.choose(from: sensors, selector: "ACCEL_MOUNT_MATRIX=0, 1, 0; 1, 0, 0; 0, 0, 1").accelerometer?.id == "iio:device0")
    }

    /// iio-sensor-proxy's own suite (and other umockdev users) names devices freely
    /// (`iio-accel`) and writes values without the kernel's newline: such a device is found and
    /// read right; a trigger beside it is no sensor.
    @Test func aDeviceNotNamedIioDeviceNWithValuesWithoutNewlinesIsFoundAndRead() async throws {
        let testbed = Testbed()
        try testbed.add("""
            P: /devices/iio-accel
            E: SUBSYSTEM=iio
            A: name=IIO Test Accelerometer
            A: in_accel_x_raw=0
            A: in_accel_y_raw=-25.6
            A: in_accel_z_raw=0
            A: in_accel_scale=0.5

            P: /devices/trigger0
            E: SUBSYSTEM=iio
            A: name=accel_3d-dev0

            """)
        let sensors = try UdevDiscovery.sensors()
        #expect(sensors.map(\.id) == ["iio-accel"])
        #expect(sensors.first?.kind == .accelerometer)
        var plan = IIOReadPlan(device: "iio-accel", mode: .polled(rate: 100))
        plan.sysfsPath = sensors.first?.sysfsPath  // as discovery gives it: polled values are then read from sysfs directly
        let source = IIOSensorSource(plan: plan, name: "IIO Test Accelerometer")
        let stream = try await source.open()
        let first = try #require(try await stream.next())
        #expect(first.acceleration == Vector3(0, -12.8, 0))
        await stream.close()
    }

    @Test func mountMatrixPrecedenceUdevOverSysfsAndInvalidFallsThrough() throws {
        let testbed = Testbed()
        var device = FakeIIODevice(index: 0, name: "mma8452", format: "be:s14/16>>2", scale: "0.002394",
                                   udev: ["ACCEL_MOUNT_MATRIX": "0, -1, 0; 1, 0, 0; 0, 0, 1"],
                                   attributes: ["in_accel_mount_matrix": "-1, 0, 0; 0, -1, 0; 0, 0, 1"])
        try testbed.add(device.description)
        let sensor = try #require(try UdevDiscovery.sensors().first)
        #expect(sensor.mountMatrixCandidates.map(\.source) == ["udev ACCEL_MOUNT_MATRIX", "sysfs \(device.syspath)/in_accel_mount_matrix"])
        let candidates = sensor.mountMatrixCandidates.map { MountMatrix.Candidate(source: $0.source, text: $0.text) }
        #expect(MountMatrix.select(from: candidates).source == "udev ACCEL_MOUNT_MATRIX")
        // Config beats both.
        let configured = MountMatrix.select(from: [MountMatrix.Candidate(source: "config", text: "1, 0, 0; 0, 1, 0; 0, 0, -1")] + candidates)
        #expect(configured.source == "config")
        // An invalid udev matrix is reported and the sysfs one used.
        device.index = 1
        device.udev["ACCEL_MOUNT_MATRIX"] = "1, 0, 0; 0, -1, 0; 1, 0, 0"
        try testbed.add(device.description)
        let second = try #require(try UdevDiscovery.sensors().first { $0.id == "iio:device1" })
        let selection = MountMatrix.select(from: second.mountMatrixCandidates.map { MountMatrix.Candidate(source: $0.source, text: $0.text) })
        #expect(selection.source.hasSuffix("in_accel_mount_matrix"))
        #expect(selection.rejected.map(\.source) == ["udev ACCEL_MOUNT_MATRIX"])
    }

    // MARK: Polled

    @Test func aPolledSensorReadsScaledAttributes() async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "da280", format: "le:s14/16>>2", scale: "0.002394", offset: "10",
                                   buffered: false, raw: (-10, -4106, 0))
        try testbed.add(device.description)
        var plan = IIOReadPlan(device: device.id, mode: .polled(rate: 100))
        plan.sysfsPath = device.syspath  // as discovery gives it: the values are read from sysfs directly
        let source = IIOSensorSource(plan: plan, name: "da280")
        let stream = try await source.open()
        let first = try #require(try await stream.next())
        #expect(abs(first.acceleration.x - 0) < 1e-9)
        #expect(abs(first.acceleration.y - (-4096 * 0.002394)) < 1e-9)
        // A new reading appears in the next samples.
        // Written without the kernel's trailing newline, as iio-sensor-proxy's own suite writes
        // them: libiio 0.24 would drop the last byte ("4086" read as 408); the polled reader
        // reads sysfs itself (SysfsAttribute) and gets 4086.
        testbed.setAttribute(device.syspath, "in_accel_x_raw", "4086")
        var seen = false
        for _ in 0..<50 {
            if let sample = try await stream.next(), abs(sample.acceleration.x - 4096 * 0.002394) < 1e-9 { seen = true; break }
        }
        #expect(seen)
        await stream.close()
    }

    // MARK: Buffered

    struct Driver: Sendable, CustomStringConvertible {
        let name: String
        let format: String
        let scale: Double
        let offset: Double?
        let raw: [Int]
        var description: String { "\(name) \(format)" }
    }

    static let drivers: [Driver] = [
        Driver(name: "accel_3d", format: "le:s16/32>>0", scale: 0.0980665, offset: nil, raw: [12, -100, -30000]),
        Driver(name: "bmc150_accel", format: "le:s12/16>>4", scale: 0.009582, offset: nil, raw: [-2048, 1023, 17]),
        Driver(name: "mma8452", format: "be:s14/16>>2", scale: 0.002394, offset: nil, raw: [-8192, 4095, -1]),
        Driver(name: "kxsd9", format: "be:u12/16>>4", scale: 0.011978, offset: -2048, raw: [2048 + 100, 2048 - 819, 4095]),
    ]

    @Test(arguments: drivers)
    func aBufferedSensorDecodesTheDriversScanFormat(_ driver: Driver) async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: driver.name, format: driver.format, scale: "\(driver.scale)",
                                   offset: driver.offset.map { "\(Int($0))" })
        try testbed.add(device.description)
        let source = IIOSensorSource(plan: IIOReadPlan(device: device.id, mode: .buffered(batch: 1)), name: driver.name)
        #expect(testbed.attribute(device.syspath, "buffer/enable")?.hasPrefix("0") == true, "closed before open")
        let stream = try await source.open()
        let fd = testbed.deviceFD(device.node)
        #expect(fd >= 0)
        writeAll(fd, device.scan(driver.raw, timestampNanoseconds: 1_500_000_000))
        let sample = try #require(try await stream.next())
        let expected = driver.raw.map { (Double($0) + (driver.offset ?? 0)) * driver.scale }
        #expect(abs(sample.acceleration.x - expected[0]) < 1e-9, "x \(sample.acceleration.x) vs \(expected[0])")
        #expect(abs(sample.acceleration.y - expected[1]) < 1e-9, "y \(sample.acceleration.y) vs \(expected[1])")
        #expect(abs(sample.acceleration.z - expected[2]) < 1e-9, "z \(sample.acceleration.z) vs \(expected[2])")
        // Kernel stamps are mapped onto the monotonic clock (KernelClockMapper): this one arrived now.
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        #expect(abs(sample.time - (Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9)) < 1, "\(sample.time)")
        #expect(testbed.attribute(device.syspath, "buffer/enable")?.hasPrefix("1") == true, "enabled while open")
        await stream.close()
        #expect(testbed.attribute(device.syspath, "buffer/enable")?.hasPrefix("0") == true, "disabled after close")
    }

    @Test func anIMUDeliversAccelerationAndAngularRateTogether() async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "bmi160", format: "le:s16/16>>0", scale: "0.000598",
                                   gyro: (format: "le:s16/16>>0", scale: "0.001065"))
        try testbed.add(device.description)
        let source = IIOSensorSource(plan: IIOReadPlan(device: device.id, mode: .buffered(batch: 1), readsGyroscope: true), name: "bmi160")
        let stream = try await source.open()
        writeAll(testbed.deviceFD(device.node), device.scan([100, -16384, 200, 1000, -2000, 3], timestampNanoseconds: 7_000_000))
        let sample = try #require(try await stream.next())
        #expect(abs(sample.acceleration.y - (-16384 * 0.000598)) < 1e-9)
        let rate = try #require(sample.angularRate)
        #expect(abs(rate.x - 1000 * 0.001065) < 1e-9 && abs(rate.y - (-2000 * 0.001065)) < 1e-9)
        await stream.close()
    }

    @Test func aMountMatrixIsAppliedAsMatrixTimesVector() async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "bmc150_accel", format: "le:s12/16>>4", scale: "1")
        try testbed.add(device.description)
        let matrix = try MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1")  // non-symmetric
        let source = IIOSensorSource(plan: IIOReadPlan(device: device.id, mode: .buffered(batch: 1), mountMatrix: matrix), name: "x")
        let stream = try await source.open()
        writeAll(testbed.deviceFD(device.node), device.scan([1, 2, 3], timestampNanoseconds: 1))
        let sample = try #require(try await stream.next())
        #expect(sample.acceleration == Vector3(2, -1, 3))
        await stream.close()
    }

    @Test func aSilentSensorIsReportedAsStalled() async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665")
        try testbed.add(device.description)
        let source = IIOSensorSource(plan: IIOReadPlan(device: device.id, mode: .buffered(batch: 1), stallTimeout: 0.5), name: "x")
        let stream = try await source.open()
        await #expect {
            _ = try await stream.next()
        } throws: { error in
            "\(error)".contains("stalled")
        }
        await stream.close()
        #expect(testbed.attribute(device.syspath, "buffer/enable")?.hasPrefix("0") == true)
    }
}

extension SensorIIOIntegrationTests {
    @Test func theDevicesOwnTriggerIsSelected() async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "accel_3d", format: "le:s16/32>>0", scale: "0.0980665",
                                   attributes: ["trigger/current_trigger": ""])
        try testbed.add(device.description)
        try testbed.add("""
        P: /devices/platform/fake-accel_3d-0/trigger0
        E: SUBSYSTEM=iio
        A: name=accel_3d-dev0\\n

        """)
        let source = IIOSensorSource(plan: IIOReadPlan(device: device.id, mode: .buffered(batch: 1)), name: "x")
        let stream = try await source.open()
        writeAll(testbed.deviceFD(device.node), device.scan([0, -100, 0], timestampNanoseconds: 1))
        _ = try await stream.next()
        #expect(testbed.attribute(device.syspath, "trigger/current_trigger")?.hasPrefix("accel_3d-dev0") == true,
                "current_trigger: \(testbed.attribute(device.syspath, "trigger/current_trigger") ?? "nil")")
        await stream.close()
    }

    /// A bmc150 accelerometer and a bmg160 gyroscope, separate buffered devices, added to
    /// `testbed`, and a source reading both (batches of 1).
    static func accelerometerWithSeparateGyroscope(_ testbed: Testbed) throws -> (FakeIIODevice, FakeIIODevice, IIOSensorSource) {
        let accel = FakeIIODevice(index: 0, name: "bmc150_accel", format: "le:s12/16>>4", scale: "0.009582")
        let gyro = FakeIIODevice(index: 1, name: "bmg160", kind: "anglvel", format: "le:s16/16>>0", scale: "0.001065")
        try testbed.add(accel.description)
        try testbed.add(gyro.description)
        let source = IIOSensorSource(plan: IIOReadPlan(device: accel.id, mode: .buffered(batch: 1)),
                                     gyroscope: IIOReadPlan(device: gyro.id, mode: .buffered(batch: 1)), name: "x")
        return (accel, gyro, source)
    }

    @Test func aSeparateGyroscopeIsMergedByTimestamp() async throws {
        let testbed = Testbed()
        let (accel, gyro, source) = try Self.accelerometerWithSeparateGyroscope(testbed)
        let stream = try await source.open()
        // The gyroscope's reading first (so it is the newest when the accelerometer's arrives),
        // 10 ms apart: within the merge window. The gyroscope's reader thread keeps its reading
        // for the merge; under load the accelerometer's thread can run first, so the first
        // accelerometer samples can overtake it: up to 400 of
        // them, 0.1 ms apart, all within the 50 ms window (40 at 1 ms apart ran out under a
        // loaded build in test-repeat).
        writeAll(testbed.deviceFD(gyro.node), gyro.scan([500, 0, -500], timestampNanoseconds: 1_000_000_000))
        var merged: Sample? = nil
        for k in 0..<400 where merged == nil {
            writeAll(testbed.deviceFD(accel.node), accel.scan([0, -1024, 0], timestampNanoseconds: 1_010_000_000 + Int64(k) * 100_000))
            if let sample = try await stream.next(), sample.angularRate != nil { merged = sample }
        }
        let sample = try #require(merged)
        #expect(abs(sample.acceleration.y - (-1024 * 0.009582)) < 1e-9)
        let rate = try #require(sample.angularRate)
        #expect(abs(rate.x - 500 * 0.001065) < 1e-9 && abs(rate.z - (-500 * 0.001065)) < 1e-9)
        await stream.close()
        #expect(testbed.attribute(gyro.syspath, "buffer/enable")?.hasPrefix("0") == true)
    }
}

extension SensorIIOIntegrationTests {
    /// Some drivers calibrate each axis: `in_accel_x_scale` and so on instead of one shared scale.
    @Test func perAxisScalesAreApplied() async throws {
        let testbed = Testbed()
        let device = FakeIIODevice(index: 0, name: "lis3dh", format: "le:s12/16>>4", scale: "", axisScales: ["0.01", "0.02", "0.04"])
        try testbed.add(device.description)
        let stream = try await IIOSensorSource(plan: IIOReadPlan(device: device.id, mode: .buffered(batch: 1)), name: "x").open()
        writeAll(testbed.deviceFD(device.node), device.scan([100, 100, 100], timestampNanoseconds: 1))
        let sample = try #require(try await stream.next())
        #expect(abs(sample.acceleration.x - 1) < 1e-12 && abs(sample.acceleration.y - 2) < 1e-12 && abs(sample.acceleration.z - 4) < 1e-12,
                "\(sample.acceleration)")
        await stream.close()
    }
}
