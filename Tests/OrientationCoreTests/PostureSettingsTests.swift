import ConfigFileFormat
import OrientationCore
import PostureCore
import Testing

/// The `[posture]` section (issue 30): the posture detector's parameters and
/// `tablet-mode-switch`, every problem named with file and line, as `[detector]`'s are.
@Suite struct PostureSettingsTests {
    static func settings(_ text: String) throws -> PostureSettings {
        let file = try ConfigFile(parsing: text, source: "o.conf", knownSections: ConfigFile.orientationdSections)
        var settings = PostureSettings()
        try settings.apply(file)
        return settings
    }

    @Test func valuesAreApplied() throws {
        let settings = try Self.settings("""
            [detector]
            settle-time = 0.2
            [posture]
            tablet-mode-switch = yes
            hinge-edge = left
            settle-time = 0.5   # s
            tablet-angle = 320
            """)
        var expected = PostureDetector.Configuration()
        expected.hingeEdge = .left
        expected.settleTime = 0.5
        expected.tabletAngle = 320
        #expect(settings.detector == expected)
        #expect(settings.tabletModeSwitch)
    }

    @Test func withoutTheSectionTheDefaults() throws {
        #expect(try Self.settings("[detector]\nsettle-time = 0.2\n") == PostureSettings())
        #expect(PostureSettings().tabletModeSwitch == false)
    }

    /// (the file, every problem it has, in file order)
    static let bad: [(String, String)] = [
        ("[posture]\nsettle-tme = 0.3\n", "o.conf:2: unknown posture parameter settle-tme; did you mean 'settle-time'?"),
        ("[posture]\ntablet-mode-swich = true\n", "o.conf:2: unknown posture parameter tablet-mode-swich; did you mean 'tablet-mode-switch'?"),
        ("[posture]\nwobble = 3\n", "o.conf:2: unknown posture parameter wobble"),
        ("[posture]\ntablet-mode-switch = maybe\n", "o.conf:2: tablet-mode-switch: must be true or false, not \"maybe\""),
        ("[posture]\nhinge-edge = middle\n", "o.conf:2: hinge-edge: \"middle\" is not one of bottom, left, right, top"),
        ("[posture]\nsettle-time = soon\n", "o.conf:2: settle-time: \"soon\" is not a number"),
        ("[posture]\nsettle-time = -1\n", "o.conf:2: settle-time: must be zero or more, not -1.0"),
        ("[posture]\nclosed-angle = 10\n\nflat-lower-angle = 15\n",
         "o.conf:4: flat-lower-angle (15.0) must exceed closed-angle (10.0) by more than hysteresis (10.0), or a posture could never be entered"),
        // A relation is not judged while an entry is bad: its field kept the default.
        ("[posture]\nflat-lower-angle = 25\nclosed-angle = x\n", "o.conf:3: closed-angle: \"x\" is not a number"),
        ("[posture]\nsettle-time = soon\nhinge-edge = up\n",
         "o.conf:2: settle-time: \"soon\" is not a number\no.conf:3: hinge-edge: \"up\" is not one of bottom, left, right, top"),
    ]

    @Test(arguments: bad.indices)
    func everyProblemNamesFileAndLine(_ index: Int) throws {
        let (text, message) = Self.bad[index]
        var problems: [ConfigFileError] = []
        let file = ConfigFile(parsing: text, source: "o.conf", knownSections: ConfigFile.orientationdSections, problems: &problems)
        var settings = PostureSettings()
        settings.apply(file, problems: &problems)
        #expect(ConfigFileErrors(problems).description == message)
    }
}
