/// Where the kernel puts an attribute of an IIO channel, for every sensor kind: the one place
/// that turns "the scale of `in_rot_from_north_magnetic_tilt_comp`" into the sysfs file that
/// holds it.
///
/// A driver declares each attribute of a channel in one of four masks (include/linux/iio/iio.h:
/// `info_mask_separate`, `info_mask_shared_by_type`, `info_mask_shared_by_dir`,
/// `info_mask_shared_by_all`), and the IIO core names the file after the mask
/// (drivers/iio/industrialio-core.c, `__iio_device_attr_init`; Documentation/ABI/testing/sysfs-bus-iio):
///
/// | mask | file | e.g. |
/// |---|---|---|
/// | separate | `<dir>_<type>[<index>][_<modifier>]_<attribute>` | `in_accel_x_scale`, `in_illuminance0_offset` |
/// | shared by type | `<dir>_<type>_<attribute>` | `in_accel_scale`, `in_rot_scale` (hid-sensor-magn-3d's heading) |
/// | shared by direction | `<dir>_<attribute>` | `in_scale` |
/// | shared by all | `<attribute>` | `scale`, `integration_time` |
///
/// So an attribute is looked up in that order, the most specific first; ``candidates(for:)``
/// lists the names and ``resolve(_:in:)`` picks the first that exists. The channel's own
/// value files (`_raw`, `_input`) are always separate; asking for them is the same lookup.
///
/// Contract: parsing never guesses a type it does not know (``init(_:)`` fails), so a name
/// that is no IIO channel finds nothing rather than a wrong shared file.
public struct IIOChannelAttributeName: Sendable, Hashable, CustomStringConvertible {
    /// `in` or `out`.
    public let direction: String
    /// The channel type as the kernel spells it (`accel`, `rot`, `illuminance`, ...).
    public let type: String
    /// The channel's own prefix, `in_rot_from_north_magnetic_tilt_comp`: type, index and
    /// modifier (or extended name) as the separate attributes carry them.
    public let channel: String

    /// The kernel's channel type names (industrialio-core.c, `iio_chan_type_name_spec`).
    static let types: [String] = [
        "voltage", "current", "power", "accel", "anglvel", "magn", "illuminance", "intensity", "proximity", "temp", "incli",
        "rot", "angl", "timestamp", "capacitance", "altvoltage", "cct", "pressure", "humidityrelative", "activity", "steps",
        "energy", "distance", "velocity", "concentration", "resistance", "ph", "uvindex", "electricalconductivity", "count",
        "index", "gravity", "positionrelative", "phase", "massconcentration", "deltaangl", "deltavelocity", "colortemp",
        "chromaticity", "attention",
    ].sorted { $0.count > $1.count }  // the longest first: `anglvel` before `angl`

    /// Parses a channel prefix (`in_accel_x`, `in_illuminance0`, `in_rot_from_north_magnetic_tilt_comp`);
    /// `nil` when it is not `in_`/`out_` followed by a kernel channel type.
    public init?(_ channel: String) {
        let direction: String
        if channel.hasPrefix("in_") { direction = "in" } else if channel.hasPrefix("out_") { direction = "out" } else { return nil }
        let rest = channel.dropFirst(direction.count + 1)
        let type = Self.types.first { type in
            guard rest.hasPrefix(type) else { return false }
            // What follows the type: nothing, an index, a modifier, or a differential pair.
            guard let next = rest.dropFirst(type.count).first else { return true }
            return next.isNumber || next == "_" || next == "-"
        }
        guard let type else { return nil }
        self.direction = direction
        self.type = type
        self.channel = channel
    }

    /// The file names that may hold `attribute` for this channel, the most specific first:
    /// separate, shared by type, shared by direction, shared by all (duplicates dropped: for
    /// `in_accel` the separate and by-type names are the same).
    public func candidates(for attribute: String) -> [String] {
        var names: [String] = []
        for name in ["\(channel)_\(attribute)", "\(direction)_\(type)_\(attribute)", "\(direction)_\(attribute)", attribute]
        where !names.contains(name) {
            names.append(name)
        }
        return names
    }

    /// The first of ``candidates(for:)`` that `exists` says is there, or `nil`.
    public func resolve(_ attribute: String, in exists: (String) -> Bool) -> String? {
        candidates(for: attribute).first(where: exists)
    }

    public var description: String { channel }
}
