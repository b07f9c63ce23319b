import Logging
import OrientationCore
import SensorDeviceAccess
import SensorPipeline

/// Everything a backend needs to open the accelerometer it discovered
/// (``SensorBackend/openAccelerometer(_:)``), as values taken by
/// ``DiscoveringAccelerometerSource`` from one snapshot of the settings.
public struct AccelerometerOpening: Sendable {
    /// The accelerometer, as its backend described it.
    public var sensor: SensorDescription
    /// What the whole discovery chose (the gyroscope on a device of its own, if any).
    public var choice: SensorChoice
    /// The backend's own ``SensorBackend/readPlan(_:settings:matrix:pollInstead:)``.
    public var plan: IIOReadPlan
    /// The mount matrix and where it came from.
    public var matrix: MountMatrix.Selection
    public var settings: IIOSettings
    /// Handed every sample on the reader's thread (``SampleConsumer``), or `nil`.
    public var consumer: (any SampleConsumer)?
    public var clocks: SystemClocks
    public var logger: Logger

    /// `iio:device0 (accel_3d)`: the name the stream and the status line carry.
    public var displayName: String { "\(sensor.id) (\(sensor.name))" }
}
