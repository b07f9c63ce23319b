import CLibUdev
import Glibc
import Logging
import OrientationCore
import OwnerThreads
import SensorDeviceAccess
import SensorPipeline

/// The IIO row of ``SensorBackends/all``: every device of the `iio` subsystem but a trigger.
///
/// - **Motion**: accelerometers and gyroscopes by their channels (`in_accel_*`, `in_anglvel_*`,
///   as raw attributes or scan elements: ``IIOChannelFamily``), with location
///   (`ACCEL_LOCATION`, else the sysfs `label` or `location`) and mount-matrix candidates (udev
///   `ACCEL_MOUNT_MATRIX`, then the sysfs `*mount_matrix` attributes). Read polled through sysfs
///   or buffered through libiio (``IIOSensorSource``): buffered where the device has a buffer
///   and `mode` allows it, polled otherwise or after a buffer that delivered nothing.
/// - **Light, proximity, compass**: the attribute shapes of ``AuxiliarySensorDescription``,
///   read on the reader's clock through sysfs, or through the buffer where a channel has no raw
///   attribute.
public enum IIOBackend: SensorBackend {
    public static let name = "iio"
    public static let families: Set<SensorFamily> = [.motion, .auxiliary, .hinge]

    public static func discover(_ family: SensorFamily) throws(SensorError) -> DiscoveredSensors {
        try discover([family])
    }

    /// One enumeration of the `iio` subsystem for every family asked.
    public static func discover(_ families: Set<SensorFamily>) throws(SensorError) -> DiscoveredSensors {
        var found = DiscoveredSensors()
        try UdevEnumeration.forEachDevice(subsystems: ["iio"]) { device in
            if families.contains(.motion), let sensor = describeMotion(device) { found.motion.append(sensor) }
            if families.contains(.auxiliary) { found.auxiliary += describeAuxiliary(device) }
            if families.contains(.hinge), let hinge = describeHinge(device) { found.hinges.append(hinge) }
        }
        return found
    }

    /// A hinge-angle channel (``HingeAngleChannel``), if the device is one of the hinge drivers'.
    static func describeHinge(_ device: OpaquePointer) -> HingeAngleChannel? {
        guard let id = udev_device_get_sysname(device).map({ String(cString: $0) }),
              let path = udev_device_get_syspath(device).map({ String(cString: $0) }),
              let name = UdevEnumeration.attribute(device, "name") else { return nil }
        return HingeAngleChannel.describe(id: id, sysfsPath: path, name: name)
    }

    // MARK: Motion sensors

    /// Describes one udev device of the iio subsystem; `nil` for things that are not IIO devices
    /// (triggers: ``UdevDiscovery/isDevice(_:)``).
    static func describeMotion(_ device: OpaquePointer) -> SensorDescription? {
        guard let sysname = udev_device_get_sysname(device).map({ String(cString: $0) }), UdevDiscovery.isDevice(sysname),
              let syspath = udev_device_get_syspath(device).map({ String(cString: $0) }) else { return nil }
        let properties = UdevEnumeration.properties(device)
        let attributes = UdevEnumeration.attributeNames(device)
        func sysattr(_ name: String) -> String? { UdevEnumeration.attribute(device, name) }
        let node = udev_device_get_devnode(device).map { String(cString: $0) }
        let hasBuffer = node != nil && access(syspath + "/scan_elements", F_OK) == 0 && access(syspath + "/buffer/enable", F_OK) == 0
        let family = IIOChannelFamily(attributes: attributes, syspath: syspath, hasBuffer: hasBuffer)
        let accel = family.axes("accel"), gyro = family.axes("anglvel")
        let kind: SensorDescription.Kind = accel.count == 3 ? .accelerometer : (gyro.count == 3 ? .gyroscope : .other)

        var location = SensorDescription.Location.unknown
        var locationSource = "default"
        if let value = properties["ACCEL_LOCATION"] {
            location = value == "base" ? .base : (value == "display" ? .display : .unknown)
            locationSource = "udev ACCEL_LOCATION=\(value)"
        } else if let label = sysattr("label"), label.contains("base") || label.contains("display") {
            location = label.contains("base") ? .base : .display
            locationSource = "sysfs label=\(label)"
        } else if let value = sysattr("location"), ["base", "lid", "display"].contains(value) {
            location = value == "base" ? .base : .display
            locationSource = "sysfs location=\(value)"
        }

        var candidates: [MountMatrixCandidateText] = []
        if let matrix = properties["ACCEL_MOUNT_MATRIX"] {
            candidates.append(MountMatrixCandidateText(source: "udev ACCEL_MOUNT_MATRIX", text: matrix))
        }
        let prefix = kind == .gyroscope ? "in_anglvel" : "in_accel"
        for name in ["\(prefix)_mount_matrix", "mount_matrix", "in_mount_matrix"] {
            if let matrix = sysattr(name) {
                candidates.append(MountMatrixCandidateText(source: "sysfs \(syspath)/\(name)", text: matrix))
            }
        }
        return SensorDescription(id: sysname, name: sysattr("name") ?? sysname, sysfsPath: syspath, deviceNode: node, kind: kind,
                                 location: location, locationSource: locationSource, label: sysattr("label"),
                                 properties: properties, mountMatrixCandidates: candidates, hasBuffer: hasBuffer,
                                 channels: accel + gyro, hasRawAttributes: family.polls(kind == .gyroscope ? "anglvel" : "accel"),
                                 backend: name)
    }

    public static func readPlan(_ accel: SensorDescription, settings: IIOSettings, matrix: MountMatrix.Selection,
                                pollInstead: Bool) -> IIOReadPlan {
        // A buffer-only device (no raw attributes) is read through its buffer whatever the mode.
        let fallback = settings.mode != .buffered && accel.hasBuffer && accel.hasRawAttributes && pollInstead
        let buffered = !accel.hasRawAttributes
            || (!fallback && (settings.mode == .buffered || (settings.mode == .auto && accel.hasBuffer)))
        var plan = IIOReadPlan(device: accel.id, mode: buffered ? .buffered(batch: settings.batch) : .polled(rate: settings.pollRate),
                               samplingFrequency: buffered ? settings.samplingFrequency : nil, mountMatrix: matrix.matrix,
                               readsGyroscope: accel.channels.contains("anglvel_x"), stallTimeout: settings.stallTimeout)
        plan.scale = settings.scale
        plan.sysfsPath = accel.sysfsPath
        // A polled device's "any motion" interrupt lets a still device cost no wake-up at all.
        plan.watchesMotionEvents = !buffered && settings.rateGovernor.isEnabled
        return plan
    }

    /// The plan for a gyroscope on a device of its own, read beside the accelerometer and merged
    /// by timestamp, or `nil` (none, the accelerometer's own IMU channels, or one read the other
    /// way, buffered against polled). ``openAccelerometer(_:)`` and `orientationd --record` both
    /// use it, so a recording holds exactly the samples the detector gets.
    public static func gyroscopePlan(choice: SensorChoice, plan: IIOReadPlan, matrix: MountMatrix.Selection) -> IIOReadPlan? {
        guard let accel = choice.accelerometer, accel.backend == name, let gyro = choice.gyroscope, gyro.id != accel.id,
              gyro.backend == name, gyro.hasBuffer == accel.hasBuffer else { return nil }
        // Its own mount matrix when it has one, else the accelerometer's (same board).
        let own = MountMatrix.select(from: gyro.mountMatrixCandidates.map { .init(source: $0.source, text: $0.text) })
        return IIOReadPlan(device: gyro.id, mode: plan.mode, samplingFrequency: plan.samplingFrequency,
                           mountMatrix: own.source == "identity" ? matrix.matrix : own.matrix, stallTimeout: plan.stallTimeout)
    }

    /// A polled accelerometer gets its sampling frequency raised to 10 Hz or more, as
    /// iio-sensor-proxy does (``PolledSamplingFrequency``), or set as configured.
    public static func prepare(_ accel: SensorDescription, plan: IIOReadPlan, settings: IIOSettings, logger: Logger) {
        guard case .polled = plan.mode else { return }
        let configured = settings.samplingFrequencyIsExplicit ? settings.samplingFrequency : nil
        guard let change = PolledSamplingFrequency.apply(sysfsPath: accel.sysfsPath, configured: configured) else { return }
        let metadata: Logger.Metadata = ["device": "\(accel.id)", "attribute": "\(change.attribute)", "from": "\(change.from)", "to": "\(change.to)"]
        if !change.written {
            logger.warning("the driver refused the sampling frequency; polling it as it is", metadata: metadata)
        } else if configured != nil {
            logger.info("sampling frequency set as configured", metadata: metadata)
        } else {
            logger.notice("sampling frequency below \(SamplingFrequencyFloor.text(SamplingFrequencyFloor.minimum)) Hz raised, as iio-sensor-proxy does", metadata: metadata)
        }
    }

    public static func openAccelerometer(_ opening: AccelerometerOpening) async throws -> any SampleStream {
        let (accel, plan, logger) = (opening.sensor, opening.plan, opening.logger)
        let gyroPlan = gyroscopePlan(choice: opening.choice, plan: plan, matrix: opening.matrix)
        if let gyroPlan, let gyro = opening.choice.gyroscope {
            logger.info("merging gyroscope", metadata: ["gyroscope": "\(gyroPlan.device)", "name": "\(gyro.name)"])
        }
        if opening.settings.mode == .polled, !accel.hasRawAttributes {
            logger.warning("mode = polled, but the device has no raw attributes to poll: reading its buffer", metadata: ["device": "\(accel.id)"])
        }
        logger.info("opening sensor", metadata: [
            "device": "\(accel.id)", "name": "\(accel.name)", "mode": "\(plan.mode)",
            "mount-matrix": "\(opening.matrix.matrix)", "mount-matrix-source": "\(opening.matrix.source)",
        ])
        return try await IIOSensorSource(plan: plan, gyroscope: gyroPlan, name: opening.displayName, clocks: opening.clocks)
            .open(consumer: opening.consumer)
    }

    // MARK: Light, proximity, compass

    /// The light, proximity and compass sensors one IIO device offers
    /// (``AuxiliarySensorDescription/classify(id:name:sysfsPath:subsystem:attributes:properties:value:)``).
    static func describeAuxiliary(_ device: OpaquePointer) -> [AuxiliarySensorDescription] {
        guard let id = udev_device_get_sysname(device).map({ String(cString: $0) }), UdevDiscovery.isDevice(id),
              let path = udev_device_get_syspath(device).map({ String(cString: $0) }) else { return [] }
        var attributes = UdevEnumeration.attributeNames(device)
        // libudev lists the top level only; the buffered shapes live in scan_elements/.
        for channel in ["in_intensity_both", "in_rot_from_north_magnetic_tilt_comp"]
            where access(path + "/scan_elements/\(channel)_en", F_OK) == 0 {
            attributes.insert("scan_elements/\(channel)_en")
        }
        return AuxiliarySensorDescription.classify(
            id: id, name: UdevEnumeration.attribute(device, "name"), sysfsPath: path, subsystem: "iio", attributes: attributes,
            properties: UdevEnumeration.properties(device), value: { UdevEnumeration.attribute(device, $0) })
    }

    public static func auxiliaryRead(_ sensor: AuxiliarySensorDescription) -> AuxiliaryRead? {
        let path = sensor.sysfsPath
        switch sensor.shape {
        case .buffered(let channel):
            // Not polled: the driver's buffer wakes the thread.
            return .wakesItself { owner, onValue in
                AuxiliarySensorReader.readBuffered(owner, device: sensor.id, sysfsPath: path, channel: channel, onValue: onValue)
            }
        case .polled(let value, let scaleName, let offsetName):
            // Scale and offset are constant while the driver is bound: read once per open.
            let scale = scaleName.flatMap { try? AuxiliarySensorReader.readAttribute(path, $0).get() }.flatMap(Double.init) ?? 1
            let offset = offsetName.flatMap { try? AuxiliarySensorReader.readAttribute(path, $0).get() }.flatMap(Double.init) ?? 0
            return .everyPeriod {
                AuxiliarySensorReader.readAttribute(path, value).flatMap { text in
                    Double(text).map { .success(($0 + offset) * (scale == 0 ? 1 : scale)) }
                        ?? .failure(AuxiliaryReadFailure("cannot parse \(value) \"\(text)\""))
                }
            }
        case .hwmonLight, .evdevSwitch:
            return nil
        }
    }
}
