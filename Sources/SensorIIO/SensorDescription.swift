/// What discovery learned about one motion sensor (an IIO device, or an input-subsystem
/// accelerometer), and which backend reads it.
public struct SensorDescription: Hashable, Sendable {
    /// What the device measures, by its channels.
    public enum Kind: String, Hashable, Sendable {
        case accelerometer, gyroscope, other
    }

    /// Which kernel interface serves the device.
    public enum Bus: String, Hashable, Sendable {
        /// An IIO device (`iio:deviceN`), read through libiio.
        case iio
        /// An evdev device (`eventN`, udev `ID_INPUT_ACCELEROMETER=1`), read as input events
        /// (``EvdevSensorSource``).
        case input
    }

    /// Where an accelerometer sits on a 2-in-1: in the display (the one that rotates the screen)
    /// or in the base (used for hinge angles, never for screen orientation).
    public enum Location: String, Hashable, Sendable {
        case display, base, unknown
    }

    /// The kernel name, e.g. `iio:device0`.
    public var id: String
    /// The driver's name attribute, e.g. `accel_3d`, `bmc150_accel`.
    public var name: String
    /// The sysfs path, e.g. `/sys/devices/…/iio:device0`.
    public var sysfsPath: String
    /// The device node, e.g. `/dev/iio:device0` (`nil` without one: polled only).
    public var deviceNode: String?
    public var kind: Kind
    public var location: Location
    /// Where ``location`` came from (`udev ACCEL_LOCATION`, `sysfs label`, `sysfs location`,
    /// `default`).
    public var locationSource: String
    /// The sysfs `label`, if any.
    public var label: String?
    /// udev properties (all of them, for matching `--sensor KEY=VALUE`).
    public var properties: [String: String]
    /// Mount-matrix candidates from udev and sysfs, in precedence order.
    public var mountMatrixCandidates: [MountMatrixCandidateText]
    /// True when the device has a buffer (scan elements and a device node).
    public var hasBuffer: Bool
    /// Names of the axis channels found (`accel_x`, …, `anglvel_z`), as raw attributes or scan
    /// elements.
    public var channels: [String]
    /// True when the main family's axes have `in_*_raw` (or `_input`) attributes, so the device
    /// can be polled; false for a buffer-only device, which is read through its buffer only.
    public var hasRawAttributes: Bool
    /// The kernel interface: IIO, or the input subsystem.
    public var bus: Bus
    /// The ``SensorBackends`` row that found it and reads it (`iio`, `input-accelerometer`).
    public var backend: String

    public init(id: String, name: String, sysfsPath: String, deviceNode: String?, kind: Kind, location: Location,
                locationSource: String, label: String?, properties: [String: String],
                mountMatrixCandidates: [MountMatrixCandidateText], hasBuffer: Bool, channels: [String],
                hasRawAttributes: Bool = true, bus: Bus = .iio, backend: String? = nil) {
        self.id = id
        self.name = name
        self.sysfsPath = sysfsPath
        self.deviceNode = deviceNode
        self.kind = kind
        self.location = location
        self.locationSource = locationSource
        self.label = label
        self.properties = properties
        self.mountMatrixCandidates = mountMatrixCandidates
        self.hasBuffer = hasBuffer
        self.channels = channels
        self.hasRawAttributes = hasRawAttributes
        self.bus = bus
        self.backend = backend ?? (bus == .input ? InputAccelerometerBackend.name : IIOBackend.name)
    }
}

/// A mount matrix text and where it was read.
public struct MountMatrixCandidateText: Hashable, Sendable {
    public var source: String
    public var text: String

    public init(source: String, text: String) {
        self.source = source
        self.text = text
    }
}
