import ConfigFileFormat
import OrientationCore
import Testing

/// Issue 27, items 2, 3 and 9 (did you mean): values with the units the docs print, every
/// problem of a file in one run, and near misses named.
@Suite struct ConfigurationUnitsAndProblemsTests {
    /// `--set`, as a user would type it after reading `parameters` or orientationd.conf(5).
    static let accepted: [(text: String, name: String, value: String)] = [
        ("dead-band = 45 deg", "dead-band", "45"),
        ("dead-band=45deg", "dead-band", "45"),
        ("dead-band=45°", "dead-band", "45"),
        ("settle-time=0.1 s", "settle-time", "0.1"),
        ("settle-time=0.1s", "settle-time", "0.1"),
        ("settle-time=250 ms", "settle-time", "0.25"),
        ("gravity=9.8 m/s²", "gravity", "9.8"),
        ("gravity=9.8 m/s2", "gravity", "9.8"),
        ("gyro-hold-rate=120 deg/s", "gyro-hold-rate", "120"),
        ("gyro-hold-rate=120°/s", "gyro-hold-rate", "120"),
        ("portrait-tilt=-50..72 deg", "portrait-tilt", "-50..72"),
        ("settle-time=1e-1 s", "settle-time", "0.1"),
    ]

    @Test(arguments: accepted)
    func aValueMayCarryItsUnit(_ row: (text: String, name: String, value: String)) throws {
        var configuration = OrientationDetector.Configuration()
        try configuration.apply(assignments: [row.text])
        let parameter = try #require(OrientationDetector.Configuration.parameter(named: row.name))
        #expect(parameter.value(in: configuration) == row.value)
    }

    static let refused: [(text: String, message: String)] = [
        ("dead-band=45 s", "dead-band: \"45 s\": dead-band is in deg, not s"),
        ("settle-time=0.1 deg", "settle-time: \"0.1 deg\": settle-time is in s, not deg"),
        ("gyro-hold-rate=120 deg", "gyro-hold-rate: \"120 deg\": gyro-hold-rate is in deg/s, not deg"),
        ("gravity=9.8 s", "gravity: \"9.8 s\": gravity is in m/s², not s"),
        ("portrait-tilt=-50..72 s", "portrait-tilt: \"-50..72 s\": portrait-tilt is in deg, not s"),
        ("dead-band=45 furlongs", "dead-band: \"45 furlongs\" is not a number (in deg, such as 45 or 45 deg)"),
    ]

    @Test(arguments: refused)
    func aWrongUnitIsRefusedByName(_ row: (text: String, message: String)) {
        var configuration = OrientationDetector.Configuration()
        #expect(throws: ConfigurationError.self) { try configuration.apply(assignments: [row.text]) }
        do {
            try configuration.apply(assignments: [row.text])
        } catch {
            #expect(error.description == row.message)
        }
    }

    /// Every value `parameters` prints, with its unit, reads back as the same configuration:
    /// the docs' own spelling is accepted.
    @Test func everyPrintedValueWithItsUnitIsAccepted() throws {
        let defaults = OrientationDetector.Configuration()
        var configuration = OrientationDetector.Configuration()
        let printed = OrientationDetector.Configuration.parameters.map { "\($0.name)=\($0.value(in: defaults)) \($0.unit)" }
        try configuration.apply(assignments: printed)
        #expect(configuration == defaults)
    }

    /// The file: eight problems, among them a reversed range and face-up-enter-tilt below
    /// face-up-exit-tilt, which came only on later runs. All in one, in file order.
    @Test func everyProblemOfTheDetectorSectionInOneRun() {
        let text = """
        [detector]
        portrait-tilt = 72..-50
        face-up-enter-tilt = 40
        face-up-exit-tilt = 60
        dead-band = 95
        settle-time = soon
        sttle-time = 1
        still-angle = 30
        swing-angle = 20
        landscape-left-tilt = -50..
        """
        var problems: [ConfigFileError] = []
        let file = ConfigFile(parsing: text, source: "t.conf", knownSections: ConfigFile.orientationdSections, problems: &problems)
        var configuration = OrientationDetector.Configuration()
        configuration.apply(file, problems: &problems)
        let lines = ConfigFileErrors(problems).errors.map(\.description)
        #expect(lines == [
            "t.conf:2: portrait-tilt: must be lower..upper with -90 <= lower < upper <= 90, not 72..-50",
            "t.conf:4: face-up-exit-tilt (60.0) must be above 0 and below face-up-enter-tilt (40.0), or face-up could never be left",
            "t.conf:5: dead-band: must be at least 0 and below 90 degrees, not 95.0",
            "t.conf:6: settle-time: \"soon\" is not a number (in s, such as 0.2 or 0.2 s)",
            "t.conf:7: unknown detector parameter sttle-time; did you mean 'settle-time'?",
            "t.conf:8: still-angle (30.0) must be below swing-angle (20.0)",
            "t.conf:10: landscape-left-tilt: \"-50..\" is not a tilt range such as -50..72 or -50..72 deg",
        ], "\(lines)")
    }

    /// A relation is not blamed on a value the file does not hold: with face-up-enter-tilt
    /// unreadable, face-up-exit-tilt = 80 is not compared with the default 78.
    @Test func aRelationWithABadEntryIsLeftOut() {
        var problems: [ConfigFileError] = []
        let file = ConfigFile(parsing: "[detector]\nface-up-enter-tilt = high\nface-up-exit-tilt = 80\n", source: "t.conf",
                              knownSections: ConfigFile.orientationdSections, problems: &problems)
        var configuration = OrientationDetector.Configuration()
        configuration.apply(file, problems: &problems)
        #expect(problems.map(\.line) == [2], "\(problems)")
    }

    @Test func validateStillThrowsTheFirstProblem() {
        var configuration = OrientationDetector.Configuration()
        configuration.deadBand = 95
        configuration.swingAngle = 1
        #expect(configuration.problems().map(\.field) == ["dead-band", "still-angle"])
        #expect(throws: ConfigurationError(field: "dead-band", message: "must be at least 0 and below 90 degrees, not 95.0")) { try configuration.validate() }
    }

    /// Not a configuration file at all (a sensor log): a screenful, and what it is not.
    @Test func aFileThatIsNoConfigurationStopsAfterAFewProblems() {
        let log = "# orientationd-log v1\ntime,accel_x,accel_y,accel_z\n" + (0..<5000).map { "\(Double($0) / 100),0,-9.8,0" }.joined(separator: "\n")
        var problems: [ConfigFileError] = []
        _ = ConfigFile(parsing: log, source: "x.log", knownSections: ConfigFile.orientationdSections, problems: &problems)
        #expect(problems.count == ConfigFile.problemLimit + 1)
        #expect(problems.last?.message.contains("this is not an orientationd configuration file") == true, "\(problems.last!)")
    }

    static let nearMisses: [(text: String, message: String)] = [
        ("[sensors]\n", "t.conf:1: unknown section [sensors]; did you mean [sensor]? known sections: [compass], [dbus], [detector], [light], [posture], [proximity], [sensor], [server]"),
        ("[Detector]\n", "t.conf:1: unknown section [Detector]; did you mean [detector]? known sections: [compass], [dbus], [detector], [light], [posture], [proximity], [sensor], [server]"),
        ("[nothing-alike]\n", "t.conf:1: unknown section [nothing-alike]; known sections: [compass], [dbus], [detector], [light], [posture], [proximity], [sensor], [server]"),
    ]

    @Test(arguments: nearMisses)
    func aNearMissSectionGetsDidYouMean(_ row: (text: String, message: String)) {
        var problems: [ConfigFileError] = []
        _ = ConfigFile(parsing: row.text, source: "t.conf", knownSections: ConfigFile.orientationdSections, problems: &problems)
        #expect(problems.map(\.description) == [row.message])
    }

    @Test func unknownSettingsNameTheNearestKnownOne() {
        #expect(ConfigFile.unknown("server setting", "sockt", among: ["socket", "socket-mode"])
                == "unknown server setting sockt; did you mean 'socket'? known: socket, socket-mode")
        #expect(ConfigFile.unknown("dbus setting", "zzz", among: ["enable"]) == "unknown dbus setting zzz; known: enable")
    }
}
