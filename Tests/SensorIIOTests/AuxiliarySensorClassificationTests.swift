import AmbientSensorCore
import OrientationCore
import SensorIIO
import Testing

/// Which light, proximity and compass shapes a device's attributes make (the kernel ABI's
/// names; iio-sensor-proxy's udev rule for which it serves), and which one is used.
@Suite struct AuxiliarySensorClassificationTests {
    struct Row: Sendable, CustomStringConvertible {
        let name: String
        var subsystem = "iio"
        let attributes: [String: String]
        var properties: [String: String] = [:]
        /// kind: shape summary
        let expected: [String]
        var description: String { name }
    }

    static func summary(_ sensor: AuxiliarySensorDescription) -> String {
        var text = "\(sensor.kind): "
        switch sensor.shape {
        case .polled(let value, let scale, let offset): text += [value, scale ?? "-", offset ?? "-"].joined(separator: " ")
        case .hwmonLight: text += "hwmon"
        case .buffered(let channel): text += "buffered \(channel)"
        case .evdevSwitch(let node): text += "evdev \(node)"
        }
        if let near = sensor.nearLevel { text += " near \(near.value) (\(near.source))" }
        if let time = sensor.integrationTime { text += " every \(time)" }
        if let unusable = sensor.unusableReason { text += " unusable: \(unusable.prefix(13))" }
        return text
    }

    static let rows: [Row] = [
        Row(name: "HID light: illuminance input", attributes: ["in_illuminance_input": "312"], expected: ["light: in_illuminance_input - -"]),
        Row(name: "indexed input", attributes: ["in_illuminance0_input": "3"], expected: ["light: in_illuminance0_input - -"]),
        Row(name: "raw × scale + offset, integration time", attributes: ["in_illuminance_raw": "100", "in_illuminance_scale": "0.5",
                                                                      "in_illuminance_offset": "2", "in_illuminance_integration_time": "0.2"],
            expected: ["light: in_illuminance_raw in_illuminance_scale in_illuminance_offset every 0.2"]),
        Row(name: "input beats raw", attributes: ["in_illuminance_input": "1", "in_illuminance_raw": "2"], expected: ["light: in_illuminance_input - -"]),
        Row(name: "clear channel with the family's scale", attributes: ["in_illuminance_clear_raw": "7", "in_illuminance_scale": "2"],
            expected: ["light: in_illuminance_clear_raw in_illuminance_scale -"]),
        Row(name: "intensity clear", attributes: ["in_intensity_clear_raw": "7"], expected: ["light: in_intensity_clear_raw - -"]),
        Row(name: "HID ALS's intensity_both read through its raw attribute", attributes: ["in_intensity_both_raw": "70", "in_intensity_scale": "0.1",
                                                                                    "scan_elements/in_intensity_both_en": "0"],
            expected: ["light: in_intensity_both_raw in_intensity_scale -"]),
        Row(name: "buffered-only light is read through its buffer", attributes: ["scan_elements/in_intensity_both_en": "0"],
            expected: ["light: buffered intensity_both"]),
        Row(name: "hwmon light", subsystem: "hwmon", attributes: ["light": "(1,2)"], expected: ["light: hwmon"]),
        Row(name: "hwmon without light", subsystem: "hwmon", attributes: ["temp1_input": "3"], expected: []),
        Row(name: "proximity, udev near level beats sysfs", attributes: ["in_proximity_raw": "5", "in_proximity_nearlevel": "300"],
            properties: ["PROXIMITY_NEAR_LEVEL": "200"], expected: ["proximity: in_proximity_raw - - near 200.0 (udev PROXIMITY_NEAR_LEVEL=200)"]),
        Row(name: "proximity, sysfs near level", attributes: ["in_proximity0_raw": "5", "in_proximity_nearlevel": "300"],
            expected: ["proximity: in_proximity0_raw - - near 300.0 (sysfs in_proximity_nearlevel=300)"]),
        Row(name: "proximity without a near level is unusable", attributes: ["in_proximity_raw": "5"],
            expected: ["proximity: in_proximity_raw - - unusable: no near level"]),
        Row(name: "a zero near level is none", attributes: ["in_proximity_raw": "5"], properties: ["PROXIMITY_NEAR_LEVEL": "0"],
            expected: ["proximity: in_proximity_raw - - unusable: no near level"]),
        Row(name: "light and proximity in one device (vcnl4000)", attributes: ["in_illuminance_raw": "1", "in_illuminance_scale": "0.25",
                                                                              "in_proximity_raw": "2", "in_proximity_nearlevel": "1000"],
            expected: ["light: in_illuminance_raw in_illuminance_scale -", "proximity: in_proximity_raw - - near 1000.0 (sysfs in_proximity_nearlevel=1000)"]),
        Row(name: "HID compass", attributes: ["in_rot_from_north_magnetic_tilt_comp_raw": "271", "in_rot_from_north_magnetic_tilt_comp_scale": "0.1"],
            expected: ["compass: in_rot_from_north_magnetic_tilt_comp_raw in_rot_from_north_magnetic_tilt_comp_scale -"]),
        // hid-sensor-magn-3d: scale and offset shared by type (issue 29).
        Row(name: "HID compass with the heading's scale shared by type", attributes: ["in_rot_from_north_magnetic_tilt_comp_raw": "2700",
                                                                                 "in_rot_scale": "0.1", "in_rot_offset": "0"],
            expected: ["compass: in_rot_from_north_magnetic_tilt_comp_raw in_rot_scale in_rot_offset"]),
        Row(name: "light with the scale shared by all", attributes: ["in_illuminance0_raw": "10", "scale": "0.5"],
            expected: ["light: in_illuminance0_raw scale -"]),
        Row(name: "proximity near level per channel", attributes: ["in_proximity0_raw": "5", "in_proximity0_nearlevel": "70"],
            expected: ["proximity: in_proximity0_raw - - near 70.0 (sysfs in_proximity0_nearlevel=70)"]),
        Row(name: "an accelerometer is none of them", attributes: ["in_accel_x_raw": "1", "in_accel_y_raw": "1", "in_accel_z_raw": "1"], expected: []),
    ]

    @Test(arguments: rows)
    func classifies(_ row: Row) {
        let found = AuxiliarySensorDescription.classify(
            id: row.subsystem == "iio" ? "iio:device1" : "hwmon0", name: "dev", sysfsPath: "/sys/x", subsystem: row.subsystem,
            attributes: Set(row.attributes.keys), properties: row.properties, value: { row.attributes[$0] })
        #expect(found.map(Self.summary) == row.expected)
    }

    static let periods: [(Row, Double)] = [
        (rows[0], 0.8), (rows[2], 0.2), (rows[8], 8), (rows[10], 0.7), (rows[15], 0.7),
    ]

    @Test(arguments: periods.indices)
    func pollsAtTheIntegrationTimeElseThePeersPeriod(_ index: Int) throws {
        let (row, period) = Self.periods[index]
        let sensor = try #require(AuxiliarySensorDescription.classify(
            id: "x", name: nil, sysfsPath: "/sys/x", subsystem: row.subsystem, attributes: Set(row.attributes.keys),
            properties: row.properties, value: { row.attributes[$0] }).first)
        #expect(sensor.pollPeriod == period)
    }

    static let switchBitmaps: [(String, Bool)] = [
        ("800", true), ("0", false), ("1", false), ("801", true), ("4800", true), ("1000", false), ("800 0", false), ("0 800", true),
        ("zz", false), ("", false),
    ]

    @Test(arguments: switchBitmaps.indices)
    func findsSwFrontProximityInTheCapabilityBitmap(_ index: Int) {
        let (text, has) = Self.switchBitmaps[index]
        #expect(EvdevProximitySwitch.bitmap(text, has: EvdevProximitySwitch.code) == has, "\(text)")
    }

    static let hwmonTexts: [(String, Double?)] = [
        ("(0,0)", 0), ("(255,0)", 100), ("(51,102)", 40), ("(12, 40)\n", 40 / 255 * 100), ("153", 60), ("(a,b)", nil), ("", nil), ("(1,2,3)", nil),
    ]

    @Test(arguments: hwmonTexts.indices)
    func hwmonLightIsThePercentOfTheBrighterSide(_ index: Int) {
        let (text, percent) = Self.hwmonTexts[index]
        #expect(AuxiliarySensorReader.hwmonLightPercent(text) == percent, "\(text)")
    }

    static func sensor(_ kind: AuxiliarySensorKind, _ id: String, near: Bool = true) -> AuxiliarySensorDescription {
        AuxiliarySensorDescription(kind: kind, id: id, name: "n-\(id)", sysfsPath: "/sys/\(id)", shape: .polled(value: "v", scale: nil, offset: nil),
                                   nearLevel: near ? (100, "test") : nil, properties: ["ID": id])
    }

    @Test func choosesTheFirstUsableOrTheConfiguredOne() {
        let sensors = [Self.sensor(.proximity, "iio:device0", near: false), Self.sensor(.proximity, "iio:device1"),
                       Self.sensor(.proximity, "iio:device2"), Self.sensor(.light, "iio:device3")]
        let automatic = AuxiliaryChoice.choose(.proximity, from: sensors, selector: nil)
        #expect(automatic.chosen?.id == "iio:device1")
        #expect(automatic.reasons["/sys/iio:device0"]?.hasPrefix("not used: no near level") == true)
        #expect(automatic.reasons["/sys/iio:device2"] == "another proximity sensor is used (iio:device1)")
        #expect(AuxiliaryChoice.choose(.proximity, from: sensors, selector: "ID=iio:device2").chosen?.id == "iio:device2")
        let unusable = AuxiliaryChoice.choose(.proximity, from: sensors, selector: "iio:device0")
        #expect(unusable.chosen?.id == "iio:device1" && unusable.warnings.count == 1)
        let nothing = AuxiliaryChoice.choose(.light, from: sensors, selector: "nope")
        #expect(nothing.chosen?.id == "iio:device3" && nothing.warnings == ["light device nope matches no ambient light sensor; choosing automatically"])
        #expect(AuxiliaryChoice.choose(.compass, from: sensors, selector: nil).chosen == nil)
    }

    @Test func lightScaleComesFromConfigThenUdev() {
        var sensor = Self.sensor(.light, "iio:device0")
        var settings = AuxiliarySettings()
        #expect(settings.lightScale(for: sensor).factor == 1)
        sensor.udevLightScale = 2.5
        #expect(settings.lightScale(for: sensor) == (2.5, "udev ORIENTATIOND_LIGHT_SCALE"))
        #expect(settings.apply(.light, name: "scale", value: "0.8") == nil)
        #expect(settings.lightScale(for: sensor) == (0.8, "config [light] scale"))
        #expect(settings.apply(.light, name: "scale", value: "-1") == "scale must be a positive number, not \"-1\"")
        #expect(settings.apply(.proximity, name: "scale", value: "2")?.hasPrefix("unknown proximity setting scale") == true)
        #expect(settings.apply(.compass, name: "device", value: "iio:device4") == nil && settings.devices[.compass] == "iio:device4")
    }
}
