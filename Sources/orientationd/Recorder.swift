import Glibc
import Synchronization
import Logging
import OrientationDaemon
import SensorIIO
import SensorLog
import SensorPipeline
import SensorDeviceAccess

/// `orientationd --record FILE`: writes what the sensor reports (already in the canonical frame)
/// as a v1 log, with the device, mount matrix and sample rate in its metadata, so a user can attach
/// "it rotated when it should not have" to a bug report and anyone can replay it.
///
/// On a convertible (issue 30) the base accelerometer and the lid switch are recorded beside the
/// display's samples, as a v3 log (``ConvertibleRecording``).
///
/// With an ambient light or proximity sensor present (issue 17), it records those too, as a v2
/// log: each reading (light after the per-device scale, before the filter; proximity raw) in the
/// row of the next accelerometer sample, with `light-unit` and `proximity-near-level` in the
/// metadata, so auto-brightness and call blanking can be studied as rotation is.
enum Recorder {
    static func record(source: DiscoveringAccelerometerSource, auxiliary settings: AuxiliarySettings = AuxiliarySettings(), to path: String,
                       duration: Double?, logger: Logger) async throws {
        let (_, choice, plan, matrix) = try await source.plan()
        guard let plan, let accel = choice.accelerometer, let matrix else {
            throw source.settings.selector.map { SensorError.noConfiguredSensor($0) } ?? SensorError.noAccelerometer
        }
        var metadata = SensorLogMetadata()
        metadata.append(key: "device", value: "\(accel.name) (\(accel.id))")
        metadata.append(key: "mount-matrix", value: "\(matrix.matrix) (from \(matrix.source); already applied)")
        switch plan.mode {
        case .buffered: metadata.append(key: "sample-rate", value: "\(Int(plan.samplingFrequency ?? 0))")
        case .polled(let rate): metadata.append(key: "sample-rate", value: "\(Int(rate))")
        }
        // A gyroscope of its own is recorded too, merged as the detector gets it (issue 10).
        let gyroPlan = IIOBackend.gyroscopePlan(choice: choice, plan: plan, matrix: matrix)
        if let gyroPlan, let gyro = choice.gyroscope {
            metadata.append(key: "gyroscope", value: "\(gyro.name) (\(gyroPlan.device)), merged by timestamp")
        }
        let sides = try await AuxiliaryRecording.start(settings: settings, metadata: &metadata, logger: logger)
        defer { sides.stop() }
        // A convertible's base accelerometer and lid switch (issue 30): a v3 log.
        let convertible = await ConvertibleRecording.start(source: source, choice: choice, metadata: &metadata, logger: logger)
        metadata.append(key: "source", value: "orientationd --record")
        var writer: SensorLogWriter
        do {
            writer = try SensorLogWriter(path: path, metadata: metadata, includesGyroscope: plan.readsGyroscope || gyroPlan != nil,
                                         includesLight: sides.light, includesProximity: sides.proximity,
                                         includesBase: convertible.hasBase, includesLid: convertible.hasLid)
        } catch {
            await convertible.stop()
            throw error
        }
        let stream = try await source.open()
        var first: Double? = nil
        var count = 0
        // SIGINT (Ctrl-C) or SIGTERM ends the recording cleanly with the next sample: the log is
        // finished, not cut. A second one (a sensor that has stopped delivering) ends the process
        // at once, keeping what was written.
        let interrupts = ProcessSignals.stream(SIGINT, SIGTERM)
        let interrupted = Atomic<Bool>(false)
        let watcher = Task {
            for await signal in interrupts {
                if !interrupted.exchange(true, ordering: .relaxed) {
                    logger.notice("finishing the recording", metadata: ["signal": "\(ProcessSignals.name(signal))",
                                                                         "hint": "send it again to stop without waiting for the next sample"])
                } else {
                    logger.warning("recording abandoned", metadata: ["signal": "\(ProcessSignals.name(signal))", "file": "\(path)"])
                    exit(128 + signal)
                }
            }
        }
        defer { watcher.cancel() }
        var flushed = -Double.infinity
        do {
            while !interrupted.load(ordering: .relaxed), var sample = try await stream.next() {
                if first == nil { first = sample.time }
                (sample.light, sample.proximity) = sides.take()
                if convertible.hasBase {
                    for row in convertible.rows(with: sample) { try writer.write(row) }
                } else {
                    try writer.write(sample)
                }
                count += 1
                if let duration, let first, sample.time - first >= duration { break }
                // At most a second of samples waits in memory.
                if sample.time - flushed >= 1 {
                    try writer.flush()
                    flushed = sample.time
                }
            }
        } catch {
            await stream.close()
            await convertible.stop()
            // What was recorded before the failure (a sensor that vanished or stalled) is kept.
            for row in convertible.rows(with: nil, final: true) { try? writer.write(row) }
            try? writer.finish()
            logger.error("recording ended early", metadata: ["samples": "\(count)", "file": "\(path)", "reason": "\(error)"])
            throw error
        }
        await stream.close()
        await convertible.stop()
        for row in convertible.rows(with: nil, final: true) { try writer.write(row) }
        try writer.finish()
        if convertible.dropped > 0 {
            logger.warning("base readings or lid changes came too late to be written in order", metadata: ["dropped": "\(convertible.dropped)"])
        }
        if let stopped = convertible.baseStopped {
            logger.warning("the base accelerometer's columns end before the recording does", metadata: ["file": "\(path)", "reason": "\(stopped)"])
        }
        logger.notice("recorded", metadata: ["samples": "\(count)", "file": "\(path)"])
    }
}

