import OrientationCore
import PostureCore
import Testing

/// The hinge angle's geometry (docs/ARCHITECTURE.md §11), against machines built independently
/// of the implementation: the base placed by an arbitrary rotation, the display turned by θ
/// about the base's hinge axis (Rodrigues' formula), gravity read in each half's axes.
@Suite struct HingeAngleTests {
    static let g = 9.80665

    /// `v` rotated by `degrees` about unit `axis` (right-handed).
    static func rotate(_ v: Vector3, about axis: Vector3, degrees: Double) -> Vector3 {
        let a = degrees * Double.pi / 180
        let c = _cos(a), s = _sin(a)
        return v * c + axis.cross(v) * s + axis * (axis.dot(v) * (1 - c))
    }

    /// Gravity (pointing down) in the axes of a base placed by `place` and of its display opened
    /// by `hinge` degrees about the hinge along `edge`.
    static func readings(hinge: Double, edge: HingeEdge = .bottom, place: (Vector3) -> Vector3) -> (display: Vector3, base: Vector3) {
        // Before placing, base axes are the world's; the display's are the base's turned about
        // the hinge axis (the hwdb convention: identical while closed).
        let axis = edge.axis
        let baseAxes = [Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1)].map(place)
        let displayAxes = baseAxes.map { rotate($0, about: place(axis), degrees: hinge) }
        let down = Vector3(0, 0, -g)
        func read(_ axes: [Vector3]) -> Vector3 { Vector3(down.dot(axes[0]), down.dot(axes[1]), down.dot(axes[2])) }
        return (read(displayAxes), read(baseAxes))
    }

    struct Placement: Sendable, CustomStringConvertible {
        let description: String
        let axis: Vector3
        let degrees: Double
    }

    /// Attitudes of the whole machine; none puts the hinge axis within 30° of vertical.
    static let placements: [Placement] = [
        Placement(description: "keyboard up, hinge level", axis: Vector3(1, 0, 0), degrees: 180),
        Placement(description: "keyboard down", axis: Vector3(1, 0, 0), degrees: 0),
        Placement(description: "stood on the front edge", axis: Vector3(1, 0, 0), degrees: 120),
        Placement(description: "skewed", axis: Vector3(0.3, 0.5, 0.81).normalisedForTest, degrees: 47),
        Placement(description: "rolled 40°", axis: Vector3(0, 1, 0), degrees: 40),
    ]
    static let hinges: [Double] = [0, 5, 30, 90, 110, 135, 179, 180, 181, 225, 270, 300, 330, 355]

    @Test("measures the angle it was opened by", arguments: placements, hinges)
    func measuresTheOpening(placement: Placement, hinge: Double) throws {
        for edge in HingeEdge.allCases {
            let r = Self.readings(hinge: hinge, edge: edge) { Self.rotate($0, about: placement.axis, degrees: placement.degrees) }
            let angle = try #require(HingeAngle.measure(display: r.display, base: r.base, edge: edge))
            let error = abs((angle.degrees - hinge + 540).truncatingRemainder(dividingBy: 360) - 180)
            #expect(error < 1e-9, "\(placement) \(edge): \(angle.degrees) for \(hinge)")
            #expect(angle.degrees >= 0 && angle.degrees < 360)
            #expect(angle.clearance > 0.49)
        }
    }

    /// What a person sees, in the project's canonical frame (upright portrait reads (0, −g, 0),
    /// face up (0, 0, −g)), with the hwdb's base frame (z down through the keyboard).
    struct Seen: Sendable, CustomStringConvertible {
        let description: String
        let display: Vector3
        let base: Vector3
        let degrees: Double
    }

    static let seen: [Seen] = [
        Seen(description: "lid shut on a table: both read the same (the hwdb's definition)",
             display: Vector3(0, 0, g), base: Vector3(0, 0, g), degrees: 0),
        Seen(description: "laptop: display upright, leaned back 20°",
             display: Vector3(0, -g * 0.9396926207859084, -g * 0.3420201433256687), base: Vector3(0, 0, g), degrees: 110),
        Seen(description: "opened at right angles", display: Vector3(0, -g, 0), base: Vector3(0, 0, g), degrees: 90),
        Seen(description: "flat on a table: the display faces up", display: Vector3(0, 0, -g), base: Vector3(0, 0, g), degrees: 180),
        Seen(description: "stand: keyboard down, display upright", display: Vector3(0, -g, 0), base: Vector3(0, 0, -g), degrees: 270),
        Seen(description: "tent at 300°: display upside down, base on its front edge, each 30° off vertical",
             display: Vector3(0, g * 0.8660254037844386, -g * 0.5), base: Vector3(0, g * 0.8660254037844386, g * 0.5), degrees: 300),
    ]

    @Test("readings as a person sees them", arguments: seen)
    func readingsAsSeen(row: Seen) throws {
        let angle = try #require(HingeAngle.measure(display: row.display, base: row.base))
        let error = abs((angle.degrees - row.degrees + 540).truncatingRemainder(dividingBy: 360) - 180)
        #expect(error < 1e-9, "\(angle.degrees)")
    }

    @Test func theAngleDoesNotDependOnMagnitudeOrLength() throws {
        let a = try #require(HingeAngle.measure(display: Vector3(0, -9.2, -3.3), base: Vector3(0, 0.2, 9.8)))
        let b = try #require(HingeAngle.measure(display: Vector3(0, -9.2, -3.3) * 3, base: Vector3(0, 0.2, 9.8) * 0.5))
        #expect(abs(a.degrees - b.degrees) < 1e-9)
    }

    @Test func clearanceFallsAsTheHingeTurnsVertical() throws {
        var previous = 2.0
        for fromVertical in [80.0, 60, 40, 30, 20, 10, 5, 1] {
            let r = Self.readings(hinge: 110) { v in
                // Tip the hinge (x) up toward vertical: about y by 90 − fromVertical.
                Self.rotate(v, about: Vector3(0, 1, 0), degrees: -(90 - fromVertical))
            }
            let angle = try #require(HingeAngle.measure(display: r.display, base: r.base))
            let expected = _sin(fromVertical * Double.pi / 180)
            #expect(abs(angle.clearance - expected) < 1e-9, "\(fromVertical)° from vertical: \(angle.clearance)")
            #expect(angle.clearance < previous)
            previous = angle.clearance
        }
    }

    @Test func noAngleWithoutTwoDirectionsAcrossTheHinge() {
        #expect(HingeAngle.measure(display: Vector3(9.8, 0, 0), base: Vector3(0, 0, 9.8)) == nil)  // hinge exactly vertical
        #expect(HingeAngle.measure(display: .zero, base: Vector3(0, 0, 9.8)) == nil)
        #expect(HingeAngle.measure(display: Vector3(0, .nan, 1), base: Vector3(0, 0, 9.8)) == nil)
        #expect(HingeAngle.measure(display: Vector3(0, 0, 9.8), base: Vector3(.infinity, 0, 9.8)) == nil)
    }

    @Test func mountMatricesBringBothSensorsIntoTheConvention() throws {
        // Raw readings of a laptop at 110° through two differently mounted chips.
        let displayMount = try MountMatrix(parsing: "0, -1, 0; 1, 0, 0; 0, 0, 1")
        let baseMount = try MountMatrix(parsing: "0, 1, 0; 1, 0, 0; 0, 0, -1")
        let seen = Self.seen[1]
        // Raw = Mᵀ·canonical for these orthonormal matrices.
        func raw(_ v: Vector3, _ m: MountMatrix) -> Vector3 {
            Vector3(m[0, 0] * v.x + m[1, 0] * v.y + m[2, 0] * v.z, m[0, 1] * v.x + m[1, 1] * v.y + m[2, 1] * v.z,
                    m[0, 2] * v.x + m[1, 2] * v.y + m[2, 2] * v.z)
        }
        let d = displayMount.apply(raw(seen.display, displayMount)), b = baseMount.apply(raw(seen.base, baseMount))
        let angle = try #require(HingeAngle.measure(display: d, base: b))
        #expect(abs(angle.degrees - 110) < 1e-9)
        // Without the base's matrix the same chips give nonsense.
        let wrong = try #require(HingeAngle.measure(display: d, base: raw(seen.base, baseMount)))
        #expect(abs(wrong.degrees - 110) > 10)
    }
}

extension Vector3 {
    var normalisedForTest: Vector3 { self * (1 / length) }
}
