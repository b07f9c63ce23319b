import ConfigFileFormat
import OrientationCore
import PostureCore
import Testing

/// Issue 38: a configuration number is a plain decimal or nothing (``ConfigNumber``).
@Suite struct ConfigNumberTests {
    static let accepted: [(String, Double)] = [
        ("0", 0), ("5", 5), ("-2", -2), ("+3", 3), ("0.25", 0.25), (".5", 0.5), ("5.", 5), ("1e3", 1000), ("2.5E-1", 0.25), ("9.80665", 9.80665),
    ]
    static let refused = [
        "", " ", "0x10", "0X1p4", "0x1p-4", "inf", "-infinity", "nan", "NaN", "1e400", "0\u{0} 5", "5\u{0}", "1,5", "1_000", "e5", ".", "-",
        "1e", "1e+", "0b1", "١٢", "5 s", "\u{FF10}",
    ]

    @Test(arguments: accepted)
    func accepts(_ row: (String, Double)) {
        #expect(ConfigNumber.decimal(row.0) == row.1)
    }

    @Test(arguments: refused)
    func refuses(_ text: String) {
        #expect(ConfigNumber.decimal(text) == nil, "\(text.debugDescription)")
    }

    /// Through the sections' own readers: `[posture]` and `[detector]` refuse what strtod took.
    @Test func theSectionsRefuseHexAndWhatFollowsANul() throws {
        let posture = PostureDetectorConfigurationProbe()
        #expect(posture.refuses("gravity", "0x10"))
        #expect(posture.refuses("settle-time", "0\u{0} 5"))
        var detector = OrientationDetector.Configuration()
        #expect(throws: ConfigurationError.self) { try detector.apply([(name: "gravity", value: "0x10")]) }
    }
}

/// The posture parameters' text syntax, through ``PostureParameter/apply(_:to:)``.
private struct PostureDetectorConfigurationProbe {
    func refuses(_ name: String, _ value: String) -> Bool {
        var configuration = PostureDetector.Configuration()
        guard let parameter = PostureDetector.Configuration.parameter(named: name) else { return false }
        do {
            try parameter.apply(value, to: &configuration)
            return false
        } catch {
            return true
        }
    }
}
