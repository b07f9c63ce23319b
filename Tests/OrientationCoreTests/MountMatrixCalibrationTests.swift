import OrientationCore
import Testing

/// `orientationctl calibrate`'s arithmetic: every way a sensor can be mounted on an axis grid.
@Suite struct MountMatrixCalibrationTests {
    typealias Pose = MountMatrixCalibration.Pose

    /// All 48 signed permutation matrices (24 rotations, 24 mirrors), row-major.
    static let signedPermutations: [[Double]] = {
        var result: [[Double]] = []
        for permutation in [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] {
            for signs in 0..<8 {
                var m = [Double](repeating: 0, count: 9)
                for row in 0..<3 { m[row * 3 + permutation[row]] = (signs >> row) & 1 == 1 ? -1 : 1 }
                result.append(m)
            }
        }
        return result
    }()

    static func determinant(_ m: [Double]) -> Double {
        m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
    }

    /// What a sensor mounted with `matrix` (canonical = matrix · raw) reads in each pose: the
    /// transpose takes canonical gravity back to raw; `noise` adds a fixed small error.
    static func readings(mountedWith m: [Double], noise: Double = 0.15) -> [Pose: Vector3] {
        var result: [Pose: Vector3] = [:]
        for (index, pose) in Pose.allCases.enumerated() {
            let g = pose.canonical * 9.81
            let raw = Vector3(m[0] * g.x + m[3] * g.y + m[6] * g.z, m[1] * g.x + m[4] * g.y + m[7] * g.z, m[2] * g.x + m[5] * g.y + m[8] * g.z)
            result[pose] = raw + Vector3(noise, -noise, noise * Double(index))
        }
        return result
    }

    @Test(arguments: signedPermutations)
    func everyAxisAlignedMountingIsFoundOrRefusedAsAMirror(_ matrix: [Double]) throws {
        let readings = Self.readings(mountedWith: matrix)
        if Self.determinant(matrix) > 0 {
            let derived = try MountMatrixCalibration.derive(readings)
            #expect(derived.entries == matrix, "derived \(derived)")
            for pose in Pose.allCases {
                let corrected = derived.apply(readings[pose]!)
                #expect((corrected * (1 / corrected.length) - pose.canonical).length < 0.05, "\(pose)")
            }
        } else {
            #expect(throws: MountMatrixCalibration.Failure.mirrored) { try MountMatrixCalibration.derive(readings) }
        }
    }

    @Test func aSensorTurnedOffTheGridGetsTheExactRotation() throws {
        // 30° about z, then the identity mounting: not snappable, kept to four decimals.
        let c = 0.8660254037844387, s = 0.5
        let matrix = [c, -s, 0, s, c, 0, 0, 0, 1]
        let derived = try MountMatrixCalibration.derive(Self.readings(mountedWith: matrix, noise: 0))
        for (got, want) in zip(derived.entries, matrix) { #expect(abs(got - want) < 1e-3, "\(derived)") }
        #expect(derived.description.contains("0.866"))
    }

    static let refusals: [(String, [Pose: Vector3], MountMatrixCalibration.Failure)] = [
        ("a weak reading", [.portrait: Vector3(0, -3, 0), .rightEdgeUp: Vector3(-9.8, 0, 0), .faceUp: Vector3(0, 0, -9.8)],
         .notGravity(.portrait, magnitude: 3)),
        ("the same pose twice", [.portrait: Vector3(0, -9.8, 0), .rightEdgeUp: Vector3(0, -9.8, 0.3), .faceUp: Vector3(0, 0, -9.8)],
         .notAQuarterTurn(.portrait, .rightEdgeUp, degrees: 1.7537)),
        ("left edge up instead of right", [.portrait: Vector3(0, -9.8, 0), .rightEdgeUp: Vector3(9.8, 0, 0), .faceUp: Vector3(0, 0, -9.8)],
         .mirrored),
    ]

    @Test(arguments: refusals)
    func impossibleReadingsAreRefusedWithAReason(_ row: (String, [Pose: Vector3], MountMatrixCalibration.Failure)) {
        do {
            _ = try MountMatrixCalibration.derive(row.1)
            Issue.record("\(row.0): no refusal")
        } catch {
            switch (error, row.2) {
            case let (.notAQuarterTurn(a, b, got), .notAQuarterTurn(c, d, want)):
                #expect(a == c && b == d && abs(got - want) < 0.01)
            default:
                #expect(error == row.2, "\(row.0)")
            }
            #expect(!error.description.isEmpty)
        }
    }

    // MARK: - Finding still poses in samples

    /// Three held poses with turns between them, held longer than needed, with sensor noise.
    @Test func threeHeldPosesAreFoundOnceEach() {
        var finder = StillPoseFinder()
        var found: [Vector3] = []
        var time = 0.0
        func hold(_ g: Vector3, seconds: Double) {
            var k = 0
            while k < Int(seconds * 100) {
                let wobble = Vector3(0.05 * Double(k % 3 - 1), 0.04 * Double(k % 5 - 2), 0.03 * Double(k % 2))
                if let pose = finder.add(Sample(time: time, acceleration: g + wobble)) { found.append(pose) }
                time += 0.01
                k += 1
            }
        }
        func turn(from a: Vector3, to b: Vector3) {
            for k in 1...30 {
                let t = Double(k) / 30
                let v = a * (1 - t) + b * t
                if let pose = finder.add(Sample(time: time, acceleration: v * (9.81 / v.length))) { found.append(pose) }
                time += 0.01
            }
        }
        let portrait = Vector3(0, -9.81, 0), right = Vector3(-9.81, 0, 0), flat = Vector3(0, 0, -9.81)
        hold(portrait, seconds: 2.5)
        turn(from: portrait, to: right)
        hold(right, seconds: 0.6)  // too short: not a pose
        hold(right, seconds: 1.5)  // …but the still stretch goes on: one pose
        turn(from: right, to: flat)
        hold(flat, seconds: 3)
        #expect(found.count == 3, "\(found)")
        for (pose, want) in zip(found, [portrait, right, flat]) { #expect((pose - want).length < 0.1) }
    }

    @Test func settlingBackIntoThePreviousPoseIsNotANewOne() {
        var finder = StillPoseFinder()
        var found = 0
        var time = 0.0
        for g in [Vector3(0, -9.81, 0), Vector3(0, -9.7, 1.4), Vector3(0, -9.81, 0)] {  // 8° apart, then back
            for _ in 0..<150 {
                if finder.add(Sample(time: time, acceleration: g)) != nil { found += 1 }
                time += 0.01
            }
        }
        #expect(found == 1)
    }
}
