/// Which sensors orientationd uses, and why: the logic behind `orientationd --list-sensors`.
///
/// Rules:
/// - A configured selector (`--sensor`) wins when it matches: an id (`iio:device3`), a name
///   (`bmc150_accel`), a sysfs path, or a udev property `KEY=VALUE`. A configured selector that
///   matches no accelerometer chooses none (with a warning): the user named a sensor, and
///   reading another one instead would be a silent wrong answer (issue 27); the daemon reports
///   the sensor absent until the named one appears.
/// - Otherwise: accelerometers only; a `base` accelerometer is never used for screen
///   orientation (it is listed, with that reason); an explicit `display` location beats an
///   unknown one; then a device with a buffer beats one without; then the lowest id.
/// - A gyroscope is used alongside when there is one that is not in the base.
public struct SensorChoice: Hashable, Sendable {
    /// The accelerometer to read, if any.
    public var accelerometer: SensorDescription?
    /// A gyroscope to merge, if any.
    public var gyroscope: SensorDescription?
    /// The accelerometer in the base of a convertible (`ACCEL_LOCATION=base`, the first by
    /// number), read beside the display's for the posture (issue 30); `nil` without one, or
    /// without a display accelerometer to pair it with.
    public var base: SensorDescription? = nil
    /// One line per device: why it was chosen or skipped.
    public var reasons: [String: String]
    /// Problems to warn about (a selector that matched nothing).
    public var warnings: [String]

    public static func choose(from sensors: [SensorDescription], selector: String? = nil) -> SensorChoice {
        var choice = chooseDisplay(from: sensors, selector: selector)
        guard let display = choice.accelerometer else { return choice }
        let ordered = sensors.sorted { Self.number($0.id) < Self.number($1.id) }
        choice.base = ordered.first { $0.kind == .accelerometer && $0.location == .base && $0.id != display.id }
        if let base = choice.base, let why = choice.reasons[base.id] {
            choice.reasons[base.id] = why + "; the base of a convertible: read with \(display.id) for the posture while it is wanted"
        }
        return choice
    }

    private static func chooseDisplay(from sensors: [SensorDescription], selector: String?) -> SensorChoice {
        var reasons: [String: String] = [:]
        var warnings: [String] = []
        let ordered = sensors.sorted { Self.number($0.id) < Self.number($1.id) }
        if let selector {
            if let match = ordered.first(where: { Self.matches($0, selector) }) {
                guard match.kind == .accelerometer else {
                    warnings.append("--sensor \(selector) matches \(match.id) (\(match.name)), which is not an accelerometer; no sensor is used")
                    for sensor in ordered { reasons[sensor.id] = sensor == match ? "configured with --sensor \(selector), but not an accelerometer" : "not the configured sensor (\(selector))" }
                    return SensorChoice(accelerometer: nil, gyroscope: nil, reasons: reasons, warnings: warnings)
                }
                for sensor in ordered where sensor != match { reasons[sensor.id] = "not the configured sensor (\(selector))" }
                reasons[match.id] = "configured with --sensor \(selector)"
                let gyro = Self.gyroscope(in: ordered, reasons: &reasons)
                return SensorChoice(accelerometer: match, gyroscope: gyro, reasons: reasons, warnings: warnings)
            }
            warnings.append("--sensor \(selector) matches no sensor; none is used until one that matches appears (orientationd --list-sensors lists them)")
            for sensor in ordered { reasons[sensor.id] = "not the configured sensor (\(selector))" }
            return SensorChoice(accelerometer: nil, gyroscope: nil, reasons: reasons, warnings: warnings)
        }
        var best: SensorDescription? = nil
        for sensor in ordered {
            switch sensor.kind {
            case .other:
                reasons[sensor.id] = "not an accelerometer or gyroscope"
            case .gyroscope:
                continue
            case .accelerometer:
                if sensor.location == .base {
                    reasons[sensor.id] = "accelerometer in the base (\(sensor.locationSource)): never used for screen orientation"
                } else if let current = best {
                    if Self.rank(sensor) > Self.rank(current) {
                        reasons[current.id] = "another accelerometer is preferred (\(sensor.id))"
                        best = sensor
                    } else {
                        reasons[sensor.id] = "another accelerometer is preferred (\(current.id))"
                    }
                } else {
                    best = sensor
                }
            }
        }
        if let best {
            var why = "display accelerometer"
            why += best.location == .display ? " (\(best.locationSource))" : " (location not stated: assumed display)"
            why += best.bus == .input ? ", input events (evdev)" : (best.hasBuffer ? ", buffered" : ", polled (no buffer)")
            reasons[best.id] = why
        }
        let gyro = Self.gyroscope(in: ordered, reasons: &reasons)
        return SensorChoice(accelerometer: best, gyroscope: gyro, reasons: reasons, warnings: warnings)
    }

    private static func gyroscope(in sensors: [SensorDescription], reasons: inout [String: String]) -> SensorDescription? {
        var chosen: SensorDescription? = nil
        for sensor in sensors where sensor.kind == .gyroscope {
            if sensor.location == .base {
                reasons[sensor.id] = "gyroscope in the base: not used"
            } else if chosen == nil {
                chosen = sensor
                reasons[sensor.id] = "gyroscope, merged with the accelerometer"
            } else {
                reasons[sensor.id] = "another gyroscope is used (\(chosen!.id))"
            }
        }
        return chosen
    }

    /// Display beats unknown, buffered beats polled.
    private static func rank(_ s: SensorDescription) -> Int {
        (s.location == .display ? 2 : 0) + (s.hasBuffer ? 1 : 0)
    }

    static func matches(_ sensor: SensorDescription, _ selector: String) -> Bool {
        DeviceSelector.matches(selector, id: sensor.id, name: sensor.name, sysfsPath: sensor.sysfsPath, properties: sensor.properties)
    }

    /// `iio:device12` → 12, for ordering (10 after 9).
    static func number(_ id: String) -> Int {
        Int(id.reversed().prefix { $0.isNumber }.reversed().map(String.init).joined()) ?? Int.max
    }
}
