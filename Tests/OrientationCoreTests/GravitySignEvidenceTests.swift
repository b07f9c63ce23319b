import OrientationCore
import SensorLog
import Testing

/// Issue 27, item 1: the sign of imported acceleration from evidence that does not need the
/// device upright most of the time, and an honest "cannot tell".
@Suite struct GravitySignEvidenceTests {
    /// Holds: seconds, and the gravity vector (canonical frame) meanwhile, at 100 Hz with a
    /// little noise; a quarter-second turn between holds.
    static func evidence(_ holds: [(seconds: Double, gravity: Vector3)], sign: Double = 1) -> GravitySignEvidence {
        var evidence = GravitySignEvidence()
        var time = 0.0
        var previous: Vector3? = nil
        var k = 0
        for hold in holds {
            if let from = previous {
                for step in 0..<25 {
                    let f = Double(step) / 25
                    evidence.add(time: time, acceleration: (from * (1 - f) + hold.gravity * f) * sign)
                    time += 0.01
                }
            }
            for _ in 0..<Int(hold.seconds * 100) {
                k += 1
                let noise = Vector3(0.03 * Double(k % 7 - 3), 0.02 * Double(k % 5 - 2), 0.03 * Double(k % 3 - 1))
                evidence.add(time: time, acceleration: (hold.gravity + noise) * sign)
                time += 0.01
            }
            previous = hold.gravity
        }
        return evidence
    }

    static let g = 9.81
    static let upright = Vector3(0, -g, 0), landscape = Vector3(-g, 0, 0), faceUp = Vector3(0, 0, -g)

    struct Row: Sendable, CustomStringConvertible {
        let name: String
        let holds: [(seconds: Double, gravity: Vector3)]
        /// The verdict on the gravity vector as given; negated, the opposite (undecided stays).
        let verdict: GravitySignEvidence.Verdict
        var description: String { name }
    }

    static let rows: [Row] = [
        // The Sensor Logger recording: the old check on the mean let its negation pass.
        Row(name: "upright 4 s, landscape 4 s, face up 3 s", holds: [(4, upright), (4, landscape), (3, faceUp)], verdict: .asGiven),
        Row(name: "landscape only", holds: [(10, landscape)], verdict: .undecided),
        Row(name: "upright 1 s, then landscape", holds: [(1, upright), (10, landscape)], verdict: .undecided),
        Row(name: "as long upright as upside down", holds: [(3, upright), (3, -upright)], verdict: .undecided),
        Row(name: "face up 2 s", holds: [(2, faceUp)], verdict: .asGiven),
        Row(name: "mostly face up, a moment upside down", holds: [(20, faceUp), (2, -upright)], verdict: .asGiven),
    ]

    @Test(arguments: rows)
    func decidesBothSigns(_ row: Row) {
        #expect(Self.evidence(row.holds).verdict() == row.verdict)
        let inverted: GravitySignEvidence.Verdict = switch row.verdict {
        case .asGiven: .inverted
        case .inverted: .asGiven
        case .undecided: .undecided
        }
        #expect(Self.evidence(row.holds, sign: -1).verdict() == inverted)
    }

    @Test func theSensorLoggerCaseIsTalliedByPose() {
        let tally = Self.evidence([(4, Self.upright), (4, Self.landscape), (3, Self.faceUp)], sign: -1).tally()
        #expect(abs(tally.tally.inverted - 7) < 0.6, "\(tally.tally)")
        #expect(abs(tally.tally.landscape - 4) < 0.6, "\(tally.tally)")
        #expect(tally.tally.asGiven == 0)
        #expect(abs((tally.gravityReading ?? 0) - Self.g) < 0.05, "\(String(describing: tally.gravityReading))")
    }

    /// The sign is not in the magnitude, nor in a gyroscope: negating every sample leaves the
    /// gravity reading and the cross products of consecutive directions unchanged (why the
    /// evidence is the pose prior only).
    @Test func magnitudeAndTurningAreTheSameForBothSigns() throws {
        let a = Vector3(0.1, -9.7, 1.2), b = Vector3(0.3, -9.6, 1.9)
        #expect((-a).cross(-b) == a.cross(b))
        let holds: [(seconds: Double, gravity: Vector3)] = [(3, Self.upright), (3, Self.faceUp)]
        #expect(Self.evidence(holds).tally().gravityReading == Self.evidence(holds, sign: -1).tally().gravityReading)
    }

    /// Every bundled real recording, as the project's logs hold it (the gravity vector) and
    /// negated: as given or undecided, and its negation inverted or undecided, never the
    /// wrong way round; the hand, pocket and purse logs decided.
    static let recordings: [(path: String, decided: Bool)] = [
        ("data/xio-fusion/handheld.log", true),
        ("data/oxford-step-counter/nexus-jamie-inhand-1.log", true),
        ("data/oxford-step-counter/pixel-jamie-backpocket-1.log", true),
        ("data/oxford-step-counter/pixel-jamie-purse-1.log", true),
        ("data/oxford-step-counter/pixel-jamie-swingingarm-1.log", false),  // 1 s upright, then hangs in landscape
        ("data/oxford-step-counter/s6-user1-frontpocket.log", true),
        ("data/oxford-step-counter/s6-user1-hand.log", true),
        ("data/oxford-step-counter/s6-user2-hand.log", true),
        ("data/oxford-step-counter/samsung-carmelo-armband-1.log", true),
        ("data/oxford-step-counter/samsung-carmelo-frontpocket-1.log", true),
        ("data/oxford-step-counter/samsung-carmelo-neckpouch-1.log", true),
        ("data/oxford-step-counter/samsung-dario-inhand-1.log", true),
        ("data/oxford-step-counter/samsung-dario-purse-1.log", true),
        ("data/oxford-step-counter/samsung-jamie-inhand-1.log", true),
    ]

    static let root = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")

    @Test(arguments: recordings)
    func bundledRecordingsBothWays(_ row: (path: String, decided: Bool)) throws {
        var reader = try SensorLogReader(path: Self.root + "/" + row.path)
        var asGiven = GravitySignEvidence(), negated = GravitySignEvidence()
        while let sample = try reader.next() {
            asGiven.add(time: sample.time, acceleration: sample.acceleration)
            negated.add(time: sample.time, acceleration: -sample.acceleration)
        }
        #expect(asGiven.verdict() == (row.decided ? .asGiven : .undecided), "\(asGiven.tally())")
        #expect(negated.verdict() == (row.decided ? .inverted : .undecided), "\(negated.tally())")
        let reading = try #require(asGiven.tally().gravityReading)
        #expect(abs(reading - 9.80665) < 0.15 * 9.80665, "1 g reads \(reading) m/s²")
    }
}
