import OrientationCore
import SensorDeviceAccess
import SensorInput
import SensorPipeline

/// The input-accelerometer row of ``SensorBackends/all``: evdev nodes udev marks
/// `ID_INPUT_ACCELEROMETER=1` (lis3lv02d on HP laptops, older tablets), found by
/// ``InputAccelerometerDiscovery`` and read as `EV_ABS` events (``EvdevSensorSource``), at the
/// configured poll rate when the device is still.
public enum InputAccelerometerBackend: SensorBackend {
    public static let name = "input-accelerometer"
    public static let families: Set<SensorFamily> = [.motion]

    public static func discover(_ family: SensorFamily) throws(SensorError) -> DiscoveredSensors {
        DiscoveredSensors(motion: InputAccelerometerDiscovery.sensors())
    }

    // readPlan: the protocol's default (polled at the poll rate, the configured scale): the plan
    // only describes the reading for --list-sensors.

    public static func openAccelerometer(_ opening: AccelerometerOpening) async throws -> any SampleStream {
        let (accel, settings) = (opening.sensor, opening.settings)
        guard let node = accel.deviceNode else { throw SensorError.deviceGone(opening.displayName) }
        opening.logger.info("opening sensor", metadata: [
            "device": "\(accel.id)", "name": "\(accel.name)", "mode": "evdev \(node)",
            "mount-matrix": "\(opening.matrix.matrix)", "mount-matrix-source": "\(opening.matrix.source)",
        ])
        return try await EvdevSensorSource(node: node, name: opening.displayName, mountMatrix: opening.matrix.matrix,
                                           rate: settings.pollRate, scale: settings.scale, stallTimeout: settings.stallTimeout,
                                           clocks: opening.clocks).open(consumer: opening.consumer)
    }
}
