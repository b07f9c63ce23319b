import ConfigFileFormat
import OrientationCore

/// The `[sensor]` section: how the daemon picks and reads a real sensor.
public struct IIOSettings: Sendable, Hashable {
    /// How to read the accelerometer.
    public enum Mode: String, Sendable, Hashable {
        /// Buffered when the device has a buffer, polled otherwise.
        case auto, buffered, polled
    }

    /// A device to use instead of the automatic choice: an id, a name, a sysfs path, or a udev
    /// property `KEY=VALUE`.
    public var selector: String? = nil
    /// A mount matrix that beats udev's and the kernel's, with where it was configured.
    public var mountMatrix: (text: String, source: String)? = nil
    public var mode = Mode.auto
    /// Sampling frequency requested from a buffered driver, Hz; from a polled one too when set
    /// explicitly (``samplingFrequencyIsExplicit``).
    public var samplingFrequency: Double = 50
    /// True when the configuration set ``samplingFrequency``: a polled driver then gets exactly
    /// that, never the automatic raise to 10 Hz (``SamplingFrequencyFloor``).
    public var samplingFrequencyIsExplicit = false
    /// m/s² per count, replacing the driver's `in_accel_scale` (a driver that gets it wrong or
    /// has none); `nil`: the driver's.
    public var scale: Double? = nil
    /// Samples per wake-up in buffered mode: the driver batches, the daemon wakes less often.
    public var batch = 5
    /// Reads per second in polled mode.
    public var pollRate: Double = 20
    /// No data for this long: the sensor is reopened and `unknown` published meanwhile.
    public var stallTimeout: Double = 3
    /// How a polled (or evdev) accelerometer is paced while the device lies still
    /// (`still-interval`; ``SampleRateGovernor``).
    public var rateGovernor = SampleRateGovernor.Configuration()

    public init() {}

    /// These settings for a convertible's base accelerometer (issue 36): how to read (mode,
    /// rates, batch, stall timeout, the still pace) as configured, without what names or
    /// corrects the display's sensor (`device`, `mount-matrix`, `scale`).
    public var forBase: IIOSettings {
        var base = self
        base.selector = nil
        base.mountMatrix = nil
        base.scale = nil
        return base
    }

    public static func == (a: IIOSettings, b: IIOSettings) -> Bool {
        a.selector == b.selector && a.mountMatrix?.text == b.mountMatrix?.text && a.mode == b.mode
            && a.samplingFrequency == b.samplingFrequency && a.batch == b.batch && a.pollRate == b.pollRate
            && a.stallTimeout == b.stallTimeout && a.samplingFrequencyIsExplicit == b.samplingFrequencyIsExplicit && a.scale == b.scale
            && a.rateGovernor == b.rateGovernor
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(selector)
        hasher.combine(mode)
    }

    /// The setting names of the `[sensor]` section.
    public static let keys = ["device", "mount-matrix", "mode", "sampling-frequency", "batch", "poll-rate", "stall-timeout", "scale", "still-interval"]

    /// Applies one `[sensor]` entry; returns an error message for a bad value or unknown name.
    public mutating func apply(name: String, value: String, location: String) -> String? {
        switch name {
        // An empty value is the default, none (the sample configuration's uncommented line).
        case "device": selector = value.isEmpty ? nil : value
        case "mount-matrix" where value.isEmpty: mountMatrix = nil
        case "mount-matrix":
            // The daemon's own check (``MountMatrix/init(parsing:)``), now rather than at the
            // first open, so `--check-config` fails on what the daemon would skip (issue 21).
            let matrix: MountMatrix
            do { matrix = try MountMatrix(parsing: value) } catch { return "mount-matrix: \(error)" }
            guard matrix.determinant > 0 else {
                return "mount-matrix: \"\(ControlCharacters.quoted(value))\" is mirrored (determinant \(matrix.determinant)): it would swap left and right, "
                    + "which no way of mounting a sensor does; a matrix from orientationctl calibrate is a rotation, and a sensor "
                    + "that really reports an axis reversed needs a driver or hwdb fix"
            }
            mountMatrix = (value, "config \(location)")
        case "mode":
            guard let mode = Mode(rawValue: value) else { return "mode must be auto, buffered or polled, not \"\(ControlCharacters.quoted(value))\"" }
            self.mode = mode
        case "sampling-frequency" where value.isEmpty:
            // None: 50 Hz for a buffered driver, the 10 Hz floor for a polled one.
            samplingFrequency = IIOSettings().samplingFrequency
            samplingFrequencyIsExplicit = false
        case "sampling-frequency", "poll-rate", "stall-timeout":
            guard let number = ConfigNumber.decimal(value), number > 0, number.isFinite else { return "\(ControlCharacters.quoted(name)) must be a positive number, not \"\(ControlCharacters.quoted(value))\"" }
            if name == "sampling-frequency" {
                samplingFrequency = number
                samplingFrequencyIsExplicit = true
            } else if name == "poll-rate" { pollRate = number } else { stallTimeout = number }
        case "scale" where value.isEmpty: scale = nil
        case "scale":
            guard let number = ConfigNumber.decimal(value), number > 0, number.isFinite else { return "scale must be a positive number (m/s² per count), not \"\(ControlCharacters.quoted(value))\"" }
            scale = number
        case "still-interval":
            var governor = rateGovernor
            guard let number = ConfigNumber.decimal(value) else { return "still-interval must be 0 (off) or a number of seconds up to 5, not \"\(ControlCharacters.quoted(value))\"" }
            governor.stillInterval = number
            if let problem = governor.problem() { return "\(problem.key) \(problem.message), not \"\(ControlCharacters.quoted(value))\"" }
            rateGovernor = governor
        case "batch":
            guard let number = Int(value), number >= 1, number <= 4096 else { return "batch must be a whole number from 1 to 4096, not \"\(ControlCharacters.quoted(value))\"" }
            batch = number
        default:
            return ConfigFile.unknown("sensor setting", name, among: Self.keys)
        }
        return nil
    }
}
