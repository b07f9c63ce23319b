import AmbientSensorCore
import OrientationCore

/// What discovery learned about one light, proximity or compass sensor: which attributes to
/// read, and how. One device may give several (a vcnl4000 or ap3216c is both a light and a
/// proximity sensor).
///
/// The shapes are those iio-sensor-proxy serves (its udev rule and drivers, checked for the
/// names), read through sysfs attributes:
/// - light: `in_illuminance_input`, `in_illuminance0_input` (lux already), else
///   `in_illuminance_raw`, `in_illuminance0_raw`, `in_illuminance_clear_raw`,
///   `in_intensity_clear_raw`, `in_intensity_both_raw` (HID ALS on older kernels, which the peer
///   reads through its buffer) × scale (+ offset where present); hwmon `light` (Apple
///   `applesmc`: `(left,right)`, 0–255 each, published as a percentage, unit `vendor`), or the
///   buffered `in_intensity_both` scan element where there is no raw attribute.
/// - proximity: `in_proximity_raw`, `in_proximity0_raw`, with the near level from udev
///   `PROXIMITY_NEAR_LEVEL`, else sysfs `in_proximity_nearlevel`; without one it is listed and
///   not used (never `HasProximity` without a level to compare with); or an input switch,
///   `SW_FRONT_PROXIMITY` (``EvdevProximitySwitch``).
/// - compass: the HID heading `in_rot_from_north_magnetic_tilt_comp_raw` × scale, degrees.
public struct AuxiliarySensorDescription: Sendable, Hashable {
    /// How the value is read.
    public enum Shape: Sendable, Hashable {
        /// A sysfs attribute read on a clock: `(value + offset) × scale`; `scale` and `offset`
        /// name attributes (`nil`: 1 and 0). Light, proximity and compass alike.
        case polled(value: String, scale: String?, offset: String?)
        /// Apple's hwmon `light` attribute, `(left,right)`.
        case hwmonLight
        /// Only a buffered channel (`in_intensity_both`, a compass without a raw attribute),
        /// read through the device's buffer: `channel` is the scan element's name without
        /// `in_` (libiio's channel id), e.g. `intensity_both`.
        case buffered(channel: String)
        /// An input device's proximity switch (`SW_FRONT_PROXIMITY`), read from its event node:
        /// 1 near, 0 far (the near level is 0.5, so the hysteresis passes it through).
        case evdevSwitch(node: String)
    }

    public var kind: AuxiliarySensorKind
    /// The ``SensorBackends`` row that found it and reads it (`iio`, `hwmon-light`,
    /// `input-switch`).
    public var backend: String
    /// `iio:device2`, `hwmon0`, or a platform device's name.
    public var id: String
    /// The driver's `name` attribute when there is one, else the id.
    public var name: String
    public var sysfsPath: String
    public var shape: Shape
    /// The proximity sensor's near level (``ProximityHysteresis``), with where it came from.
    public var nearLevel: (value: Double, source: String)?
    /// The light sensor's integration time in seconds, when the driver states one: the poll
    /// period then (iio-sensor-proxy's choice too).
    public var integrationTime: Double?
    /// A per-device correction of a light sensor's level from udev (`ORIENTATIOND_LIGHT_SCALE`).
    public var udevLightScale: Double?
    /// udev properties (for matching a configured `KEY=VALUE` selector).
    public var properties: [String: String]

    public init(kind: AuxiliarySensorKind, id: String, name: String, sysfsPath: String, shape: Shape,
                nearLevel: (value: Double, source: String)? = nil, integrationTime: Double? = nil,
                udevLightScale: Double? = nil, properties: [String: String] = [:], backend: String = IIOBackend.name) {
        self.kind = kind
        self.id = id
        self.name = name
        self.sysfsPath = sysfsPath
        self.shape = shape
        self.nearLevel = nearLevel
        self.integrationTime = integrationTime
        self.udevLightScale = udevLightScale
        self.properties = properties
        self.backend = backend
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.kind == b.kind && a.id == b.id && a.name == b.name && a.sysfsPath == b.sysfsPath && a.shape == b.shape
            && a.nearLevel?.value == b.nearLevel?.value && a.integrationTime == b.integrationTime
            && a.udevLightScale == b.udevLightScale && a.properties == b.properties && a.backend == b.backend
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(sysfsPath)
    }

    /// Why the daemon cannot read this one, or `nil` when it can.
    public var unusableReason: String? {
        if kind == .proximity && nearLevel == nil {
            return "no near level: set the udev property PROXIMITY_NEAR_LEVEL (hwdb) or use a driver with in_proximity_nearlevel"
        }
        return nil
    }

    /// The unit its light levels are in.
    public var lightUnit: LightUnit { shape == .hwmonLight ? .vendor : .lux }

    /// Seconds between reads: the light sensor's integration time, else iio-sensor-proxy's
    /// periods (light 0.8 s, hwmon light 8 s, proximity and compass 0.7 s). An evdev switch is
    /// not polled: its events wake the reader.
    public var pollPeriod: Double {
        switch kind {
        case .light: shape == .hwmonLight ? 8 : (integrationTime.map { min(max($0, 0.05), 10) } ?? 0.8)
        case .proximity, .compass: 0.7
        }
    }

    /// Classifies one device from its sysfs attribute names, udev properties and a reader of
    /// attribute values (pure, so table-driven tests need no udev). `subsystem` is `iio`,
    /// `hwmon` or `platform`.
    public static func classify(id: String, name: String?, sysfsPath: String, subsystem: String, attributes: Set<String>,
                                properties: [String: String], value: (String) -> String?) -> [AuxiliarySensorDescription] {
        func make(_ kind: AuxiliarySensorKind, _ shape: Shape) -> AuxiliarySensorDescription {
            AuxiliarySensorDescription(kind: kind, id: id, name: name ?? id, sysfsPath: sysfsPath, shape: shape, properties: properties,
                                       backend: shape == .hwmonLight ? HwmonLightBackend.name : IIOBackend.name)
        }
        func firstPositive(_ names: [String]) -> Double? {
            for name in names where attributes.contains(name) {
                if let number = value(name).flatMap(Double.init), number > 0 { return number }
            }
            return nil
        }
        if subsystem != "iio" {
            return attributes.contains("light") ? [make(.light, .hwmonLight)] : []
        }
        var result: [AuxiliarySensorDescription] = []
        // Light.
        var light: AuxiliarySensorDescription? = nil
        if let input = ["in_illuminance_input", "in_illuminance0_input"].first(where: attributes.contains) {
            light = make(.light, .polled(value: input, scale: nil, offset: nil))
        } else if let prefix = ["in_illuminance", "in_illuminance0", "in_illuminance_clear", "in_intensity_clear", "in_intensity_both"]
                    .first(where: { attributes.contains($0 + "_raw") }) {
            let channel = IIOChannelAttributeName(prefix)
            light = make(.light, .polled(value: prefix + "_raw", scale: channel?.resolve("scale", in: attributes.contains),
                                         offset: channel?.resolve("offset", in: attributes.contains)))
            light?.integrationTime = firstPositive(channel?.candidates(for: "integration_time") ?? [])
        } else if attributes.contains("scan_elements/in_intensity_both_en") {
            light = make(.light, .buffered(channel: "intensity_both"))
        }
        if var found = light {
            if found.integrationTime == nil, case .polled(let input, nil, nil) = found.shape {
                let prefix = String(input.dropLast("_input".count))
                found.integrationTime = firstPositive(IIOChannelAttributeName(prefix)?.candidates(for: "integration_time") ?? [])
            }
            found.udevLightScale = properties["ORIENTATIOND_LIGHT_SCALE"].flatMap(Double.init).flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
            result.append(found)
        }
        // Proximity.
        if let raw = ["in_proximity_raw", "in_proximity0_raw"].first(where: attributes.contains) {
            var found = make(.proximity, .polled(value: raw, scale: nil, offset: nil))
            if let text = properties["PROXIMITY_NEAR_LEVEL"], let level = Double(text), level > 0 {
                found.nearLevel = (level, "udev PROXIMITY_NEAR_LEVEL=\(text)")
            } else if let name = IIOChannelAttributeName(String(raw.dropLast("_raw".count)))?.resolve("nearlevel", in: attributes.contains),
                      let text = value(name), let level = Double(text), level > 0 {
                found.nearLevel = (level, "sysfs \(name)=\(text)")
            }
            result.append(found)
        }
        // Compass.
        // hid-sensor-magn-3d declares the heading's scale and offset shared by type: `in_rot_scale`.
        let heading = "in_rot_from_north_magnetic_tilt_comp"
        if attributes.contains(heading + "_raw"), let channel = IIOChannelAttributeName(heading) {
            result.append(make(.compass, .polled(value: heading + "_raw", scale: channel.resolve("scale", in: attributes.contains),
                                                 offset: channel.resolve("offset", in: attributes.contains))))
        } else if attributes.contains("scan_elements/\(heading)_en") {
            result.append(make(.compass, .buffered(channel: String(heading.dropFirst("in_".count)))))
        }
        return result
    }
}
