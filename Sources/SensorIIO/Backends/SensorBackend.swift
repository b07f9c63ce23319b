import Logging
import OrientationCore
import OwnerThreads
import SensorDeviceAccess
import SensorPipeline

/// One way the kernel serves sensors, and one row of ``SensorBackends/all``: which udev devices
/// it looks at, which sensors it finds on them, and how it reads what it found. The analogue of
/// one `drv-*.c` in iio-sensor-proxy's `drivers[]` table (docs/ARCHITECTURE.md §10, "The
/// backend table"; adding a backend is a new file and a row).
///
/// Contract:
/// - ``discover(_:)`` blocks while libudev enumerates, so it runs on an owner thread (never in
///   async code), and every udev handle stays inside the call: only Swift values leave.
/// - A backend marks what it discovers with its ``name`` (`SensorDescription.backend`,
///   `AuxiliarySensorDescription.backend`), and the table hands a sensor back only to the
///   backend that found it: no other code chooses a reader by bus, subsystem or shape.
/// - Readers run on owner threads of their own; a backend's C handles never cross into async
///   code.
/// - The requirements a backend has no use for keep their defaults: an empty discovery, an
///   accelerometer open that throws, no auxiliary reader.
public protocol SensorBackend: Sendable {
    /// The row's name, e.g. `iio`, `input-accelerometer` (in `--list-sensors` and the docs).
    static var name: String { get }
    /// The sensor families it can find (the table asks only those backends for a family).
    static var families: Set<SensorFamily> { get }

    /// The sensors of `family` it finds now, described. Blocks on libudev: call it on an owner
    /// thread.
    static func discover(_ family: SensorFamily) throws(SensorError) -> DiscoveredSensors

    /// The sensors of every family in `families` (those it serves), found in one pass where the
    /// row can (the default asks ``discover(_:)`` once per family).
    static func discover(_ families: Set<SensorFamily>) throws(SensorError) -> DiscoveredSensors

    /// How the accelerometer `opening.sensor` (one this backend discovered) is read for
    /// `--list-sensors` and ``DiscoveringAccelerometerSource``: the plan the reader will follow.
    static func readPlan(_ sensor: SensorDescription, settings: IIOSettings, matrix: MountMatrix.Selection,
                         pollInstead: Bool) -> IIOReadPlan

    /// Work done before each open of an accelerometer it discovered, and at the daemon's start
    /// (iio-sensor-proxy raises a polled IIO device's sampling frequency). On an owner thread:
    /// sysfs I/O blocks.
    static func prepare(_ sensor: SensorDescription, plan: IIOReadPlan, settings: IIOSettings, logger: Logger)

    /// Opens the accelerometer it discovered, its reader on an owner thread of its own.
    static func openAccelerometer(_ opening: AccelerometerOpening) async throws -> any SampleStream

    /// How a light, proximity or compass sensor it discovered is read (``AuxiliaryRead``), or
    /// `nil` when the sensor is not one of its own.
    static func auxiliaryRead(_ sensor: AuxiliarySensorDescription) -> AuxiliaryRead?
}

/// The families of sensors discovery describes: the motion sensors the orientation pipeline
/// reads (accelerometers and gyroscopes, ``SensorDescription``), the light, proximity and
/// compass sensors (``AuxiliarySensorDescription``), a convertible's hinge-angle channels
/// (``HingeAngleChannel``) and the input switches (the lid, tablet-mode switches:
/// `InputSwitchDevice`).
public enum SensorFamily: String, Hashable, Sendable, CaseIterable {
    case motion, auxiliary, hinge, switches
}

extension SensorBackend {
    public static func discover(_ family: SensorFamily) throws(SensorError) -> DiscoveredSensors { DiscoveredSensors() }

    public static func discover(_ families: Set<SensorFamily>) throws(SensorError) -> DiscoveredSensors {
        var found = DiscoveredSensors()
        for family in SensorFamily.allCases where families.contains(family) && self.families.contains(family) {
            found.append(try discover(family))
        }
        return found
    }

    public static func readPlan(_ sensor: SensorDescription, settings: IIOSettings, matrix: MountMatrix.Selection,
                                pollInstead: Bool) -> IIOReadPlan {
        var plan = IIOReadPlan(device: sensor.id, mode: .polled(rate: settings.pollRate), mountMatrix: matrix.matrix,
                               stallTimeout: settings.stallTimeout)
        plan.scale = settings.scale
        return plan
    }

    public static func prepare(_ sensor: SensorDescription, plan: IIOReadPlan, settings: IIOSettings, logger: Logger) {}

    public static func openAccelerometer(_ opening: AccelerometerOpening) async throws -> any SampleStream {
        throw SensorError.noAccelerometer
    }

    public static func auxiliaryRead(_ sensor: AuxiliarySensorDescription) -> AuxiliaryRead? { nil }
}
