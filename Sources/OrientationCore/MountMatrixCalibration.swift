/// Derives a mount matrix from three poses the user holds the device in (`orientationctl
/// calibrate`): the fix for the most common complaint about rotation on a particular tablet,
/// a wrong or missing `ACCEL_MOUNT_MATRIX`.
///
/// Contract: given the raw gravity readings (before any mount matrix) in the three ``Pose``s,
/// ``derive(_:)`` returns the rotation `M` with `M · raw = canonical` (ARCHITECTURE.md §3) for
/// each pose, snapped to whole numbers when every row is within 20° of an axis (as nearly every
/// hwdb entry is). It refuses, with a reason a user can act on: a reading too weak or too strong
/// to be gravity, two poses that are not a quarter turn apart, and a mirrored result (a mount
/// matrix must be a proper rotation; a mirror means the poses were not the ones asked for, or
/// an axis is wired backwards, which no rotation can describe).
public enum MountMatrixCalibration {
    /// The three poses, in the order the user is asked for them.
    public enum Pose: Int, CaseIterable, Sendable {
        case portrait, rightEdgeUp, faceUp

        /// What to tell the user.
        public var instruction: String {
            switch self {
            case .portrait: "hold it upright, as you read it (portrait, the way it boots), and keep it still"
            case .rightEdgeUp: "now turn it a quarter turn counter-clockwise, so that its right edge points up, and keep it still"
            case .faceUp: "now lay it flat on a table, screen up, and leave it still"
            }
        }

        /// Gravity in the canonical frame for this pose, as a unit vector.
        public var canonical: Vector3 {
            switch self {
            case .portrait: Vector3(0, -1, 0)
            case .rightEdgeUp: Vector3(-1, 0, 0)
            case .faceUp: Vector3(0, 0, -1)
            }
        }
    }

    /// Why no matrix could be derived.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// A reading whose magnitude is not close to gravity (the device moved, or a wrong scale).
        case notGravity(Pose, magnitude: Double)
        /// Two poses that should be a quarter turn apart are `degrees` apart.
        case notAQuarterTurn(Pose, Pose, degrees: Double)
        /// The three readings describe a mirrored frame.
        case mirrored

        public var description: String {
            switch self {
            case let .notGravity(pose, magnitude):
                "the \(pose.name) reading is \(Self.format(magnitude)) m/s², not gravity (about 9.8): keep the device still, and check the sensor's scale"
            case let .notAQuarterTurn(a, b, degrees):
                "the \(a.name) and \(b.name) poses are \(Self.format(degrees))° apart, not 90°: repeat the steps, turning a quarter turn each time"
            case .mirrored:
                "the readings describe a mirror image, which no mount matrix (a rotation) can correct: either a pose was not the one asked for (right edge up, not left; screen up, not down), or the sensor reports an axis reversed, which needs a driver or hwdb fix of its own; nothing was changed"
            }
        }

        static func format(_ value: Double) -> String {
            let tenths = (value * 10).rounded() / 10
            return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
        }
    }

    /// Gravity's magnitude range accepted as a still reading (m/s²).
    public static let gravityRange = 7.0...12.5
    /// Poses further than this from a quarter turn apart are refused (degrees).
    public static let quarterTurnTolerance = 25.0
    /// Rows within this angle of an axis are snapped to it (degrees).
    public static let snapAngle = 20.0

    /// The matrix for `readings` (raw gravity per pose, any unit-consistent scale).
    public static func derive(_ readings: [Pose: Vector3]) throws(Failure) -> MountMatrix {
        var unit: [Pose: Vector3] = [:]
        for pose in Pose.allCases {
            let reading = readings[pose] ?? .zero
            let magnitude = reading.length
            guard gravityRange.contains(magnitude) else { throw .notGravity(pose, magnitude: magnitude) }
            unit[pose] = reading * (1 / magnitude)
        }
        for (a, b) in [(Pose.portrait, Pose.rightEdgeUp), (.portrait, .faceUp), (.rightEdgeUp, .faceUp)] {
            let angle = degrees(cMath_atan2(unit[a]!.cross(unit[b]!).length, unit[a]!.dot(unit[b]!)))
            guard abs(angle - 90) <= quarterTurnTolerance else { throw .notAQuarterTurn(a, b, degrees: angle) }
        }
        // Orthonormal raw frame: face-up first (a table is the steadiest pose), then portrait,
        // then right-edge-up, each made perpendicular to those before (Gram-Schmidt), keeping
        // the handedness the readings have.
        let u3 = unit[.faceUp]!
        let u1 = normalized(unit[.portrait]! - u3 * unit[.portrait]!.dot(u3))
        let u2 = normalized(unit[.rightEdgeUp]! - u3 * unit[.rightEdgeUp]!.dot(u3) - u1 * unit[.rightEdgeUp]!.dot(u1))
        // M · u_i = e_i for each pose, so M = E · Rᵀ with R = [u1 u2 u3] and E = [e1 e2 e3].
        let (e1, e2, e3) = (Pose.portrait.canonical, Pose.rightEdgeUp.canonical, Pose.faceUp.canonical)
        var entries = [Double](repeating: 0, count: 9)
        let es = [e1, e2, e3], us = [u1, u2, u3]
        for row in 0..<3 {
            for column in 0..<3 {
                entries[row * 3 + column] = (0..<3).reduce(0.0) { sum, k in sum + component(es[k], row) * component(us[k], column) }
            }
        }
        guard MountMatrix.determinant(entries) > 0 else { throw .mirrored }
        let snapped = snap(entries)
        // A proper rotation by construction (orthonormal, det +1); validated as any other matrix.
        return (try? MountMatrix(rowMajor: snapped)) ?? (try? MountMatrix(rowMajor: entries)) ?? .identity
    }

    /// Rounds to a signed permutation when every row is within ``snapAngle`` of an axis (and the
    /// result is one), else to four decimals.
    static func snap(_ entries: [Double]) -> [Double] {
        let threshold = cMath_cos(radians(snapAngle))
        var snapped = [Double](repeating: 0, count: 9)
        var columns = Set<Int>()
        for row in 0..<3 {
            let cells = entries[(row * 3)..<(row * 3 + 3)]
            guard let (column, value) = cells.enumerated().max(by: { abs($0.element) < abs($1.element) }).map({ ($0.offset, $0.element) }),
                  abs(value) >= threshold else {
                return entries.map { ($0 * 10_000).rounded() / 10_000 }
            }
            snapped[row * 3 + column] = value > 0 ? 1 : -1
            columns.insert(column)
        }
        return columns.count == 3 ? snapped : entries.map { ($0 * 10_000).rounded() / 10_000 }
    }

    private static func component(_ v: Vector3, _ index: Int) -> Double { index == 0 ? v.x : index == 1 ? v.y : v.z }
    private static func normalized(_ v: Vector3) -> Vector3 { v * (1 / v.length) }
}

extension MountMatrixCalibration.Pose {
    /// A short name for messages.
    public var name: String {
        switch self {
        case .portrait: "portrait"
        case .rightEdgeUp: "right-edge-up"
        case .faceUp: "face-up"
        }
    }
}
