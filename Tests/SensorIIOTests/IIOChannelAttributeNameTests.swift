import SensorIIO
import Testing

/// The kernel's four places for a channel attribute (per channel, shared by type, by direction,
/// by all), looked up the same way for every sensor kind (issue 29).
@Suite struct IIOChannelAttributeNameTests {
    struct Row: Sendable, CustomStringConvertible {
        let channel: String
        let attribute: String
        /// The files the device has.
        let files: Set<String>
        let expected: String?
        var description: String { "\(channel) \(attribute) in \(files.sorted())" }
    }

    static let rows: [Row] = [
        // Accelerometer: per axis, by type (most drivers), by direction, by all.
        Row(channel: "in_accel_x", attribute: "scale", files: ["in_accel_x_scale", "in_accel_scale"], expected: "in_accel_x_scale"),
        Row(channel: "in_accel_x", attribute: "scale", files: ["in_accel_scale", "in_scale"], expected: "in_accel_scale"),
        Row(channel: "in_accel_y", attribute: "offset", files: ["in_offset", "offset"], expected: "in_offset"),
        Row(channel: "in_accel_z", attribute: "scale", files: ["scale"], expected: "scale"),
        Row(channel: "in_accel_z", attribute: "raw", files: ["in_accel_z_raw", "in_accel_x_raw"], expected: "in_accel_z_raw"),
        Row(channel: "in_accel_z", attribute: "scale", files: ["in_anglvel_scale", "in_accel_x_scale"], expected: nil),
        // Gyroscope: `anglvel`, not `angl`.
        Row(channel: "in_anglvel_x", attribute: "scale", files: ["in_angl_scale", "in_anglvel_scale"], expected: "in_anglvel_scale"),
        // Light: indexed and modified channels, shared by type.
        Row(channel: "in_illuminance0", attribute: "scale", files: ["in_illuminance_scale"], expected: "in_illuminance_scale"),
        Row(channel: "in_illuminance0", attribute: "integration_time", files: ["integration_time"], expected: "integration_time"),
        Row(channel: "in_intensity_clear", attribute: "scale", files: ["in_intensity_scale", "in_illuminance_scale"], expected: "in_intensity_scale"),
        Row(channel: "in_intensity_both", attribute: "offset", files: ["in_intensity_both_offset", "in_intensity_offset"],
            expected: "in_intensity_both_offset"),
        // Proximity: a near level per channel or by type.
        Row(channel: "in_proximity0", attribute: "nearlevel", files: ["in_proximity_nearlevel"], expected: "in_proximity_nearlevel"),
        // Compass: hid-sensor-magn-3d shares the heading's scale and offset by type (issue 29).
        Row(channel: "in_rot_from_north_magnetic_tilt_comp", attribute: "scale", files: ["in_rot_scale", "in_rot_offset"], expected: "in_rot_scale"),
        Row(channel: "in_rot_from_north_magnetic_tilt_comp", attribute: "offset", files: ["in_rot_scale", "in_rot_offset"], expected: "in_rot_offset"),
        Row(channel: "in_rot_from_north_magnetic_tilt_comp", attribute: "scale",
            files: ["in_rot_from_north_magnetic_tilt_comp_scale", "in_rot_scale"], expected: "in_rot_from_north_magnetic_tilt_comp_scale"),
        // Output channels keep their direction.
        Row(channel: "out_voltage0", attribute: "scale", files: ["in_scale", "out_scale"], expected: "out_scale"),
    ]

    @Test(arguments: rows)
    func resolvesTheMostSpecificFileThatExists(_ row: Row) {
        let name = IIOChannelAttributeName(row.channel)
        #expect(name != nil)
        #expect(name?.resolve(row.attribute, in: row.files.contains) == row.expected)
    }

    @Test func candidatesAreInTheKernelsOrderWithoutRepeats() {
        #expect(IIOChannelAttributeName("in_accel_x")?.candidates(for: "scale") == ["in_accel_x_scale", "in_accel_scale", "in_scale", "scale"])
        #expect(IIOChannelAttributeName("in_accel")?.candidates(for: "scale") == ["in_accel_scale", "in_scale", "scale"])
        #expect(IIOChannelAttributeName("in_voltage0-voltage1")?.type == "voltage")
    }

    /// A name that is no IIO channel finds nothing, rather than a shared file of another.
    @Test(arguments: ["accel_x", "in_", "in_foo_x", "in_accelerometer", "inaccel_x", "", "in_rotx"])
    func aNameThatIsNoChannelParsesToNothing(_ text: String) {
        #expect(IIOChannelAttributeName(text) == nil)
    }
}
