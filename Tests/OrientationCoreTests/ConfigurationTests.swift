import ConfigFileFormat
import OrientationCore
import Testing

@Suite struct ConfigurationTests {
    @Test func defaultsAreValid() throws {
        try OrientationDetector.Configuration().validate()
    }

    struct Bad: Sendable, CustomStringConvertible {
        let assignments: [String: String]
        let message: String
        var description: String { assignments.map { "\($0)=\($1)" }.sorted().joined(separator: " ") }
    }

    static let bad: [Bad] = [
        Bad(assignments: ["settle-time": "-1"], message: "settle-time: must be zero or more, not -1.0"),
        Bad(assignments: ["filter-time-constant": "0"], message: "filter-time-constant: must be a positive number, not 0.0"),
        Bad(assignments: ["fast-filter-time-constant": "0.5"], message: "fast-filter-time-constant (0.5) must be below filter-time-constant (0.15)"),
        Bad(assignments: ["dead-band": "95"], message: "dead-band: must be at least 0 and below 90 degrees, not 95.0"),
        Bad(assignments: ["face-up-exit-tilt": "80"],
            message: "face-up-exit-tilt (80.0) must be above 0 and below face-up-enter-tilt (78.0), or face-up could never be left"),
        Bad(assignments: ["face-down-enter-tilt": "91"], message: "face-down-enter-tilt: must be above 0 and at most 90 degrees, not 91.0"),
        Bad(assignments: ["portrait-tilt": "40..10"], message: "portrait-tilt: must be lower..upper with -90 <= lower < upper <= 90, not 40..10"),
        Bad(assignments: ["landscape-left-tilt": "-95..10"], message: "landscape-left-tilt: must be lower..upper with -90 <= lower < upper <= 90, not -95..10"),
        Bad(assignments: ["recede-angle": "181"], message: "recede-angle: must be from 0 to 180 degrees (180: off), not 181.0"),
        Bad(assignments: ["recede-angle": "-1"], message: "recede-angle: must be from 0 to 180 degrees (180: off), not -1.0"),
        Bad(assignments: ["arrive-angle": "181"], message: "arrive-angle: must be from 0 to 180 degrees (180: off), not 181.0"),
        Bad(assignments: ["arrive-angle": "-1"], message: "arrive-angle: must be from 0 to 180 degrees (180: off), not -1.0"),
        Bad(assignments: ["still-angle": "30"], message: "still-angle (30.0) must be below swing-angle (25.0)"),
        Bad(assignments: ["gyro-quiet-rate": "100"], message: "gyro-quiet-rate (100.0) must not exceed gyro-hold-rate (60.0)"),
        Bad(assignments: ["minimum-magnitude": "12"], message: "minimum-magnitude (12.0) must be below gravity (9.80665), or no sample would ever count"),
        Bad(assignments: ["settle-time": "fast"], message: "settle-time: \"fast\" is not a number (in s, such as 0.2 or 0.2 s)"),
        Bad(assignments: ["settle-time": "nan"], message: "settle-time: \"nan\" is not a number (in s, such as 0.2 or 0.2 s)"),
        Bad(assignments: ["portrait-tilt": "10"], message: "portrait-tilt: \"10\" is not a tilt range such as -50..72 or -50..72 deg"),
        Bad(assignments: ["setle-time": "0.1"], message: "setle-time: unknown detector parameter; did you mean 'settle-time'?"),
        Bad(assignments: ["colour": "blue"], message: "colour: unknown detector parameter (orientationctl parameters lists them)"),
    ]

    @Test("rejects, naming the field", arguments: bad)
    func rejects(_ row: Bad) {
        var configuration = OrientationDetector.Configuration()
        #expect {
            try configuration.apply(row.assignments.map { (name: $0.key, value: $0.value) })
        } throws: { error in
            (error as? ConfigurationError)?.description == row.message
        }
    }

    @Test func everyParameterRoundTripsThroughItsText() throws {
        let defaults = OrientationDetector.Configuration()
        var copy = OrientationDetector.Configuration()
        copy.settleTime = 99  // prove apply really writes
        for parameter in OrientationDetector.Configuration.parameters {
            try parameter.apply(parameter.value(in: defaults), to: &copy)
        }
        copy.settleTime = defaults.settleTime
        #expect(copy == defaults)
        #expect(Set(OrientationDetector.Configuration.parameters.map(\.name)).count == OrientationDetector.Configuration.parameters.count)
    }

    @Test func assignmentsApplyInOrder() throws {
        var configuration = OrientationDetector.Configuration()
        try configuration.apply([("settle-time", "0.3"), ("portrait-tilt", " -30..60 "), ("settle-time", "0.2")])
        #expect(configuration.settleTime == 0.2)
        #expect(configuration.portraitTilt == TiltRange(-30, 60))
        #expect(throws: ConfigurationError.self) { try OrientationDetector(configuration: { var c = configuration; c.deadBand = -1; return c }()) }
    }
}
