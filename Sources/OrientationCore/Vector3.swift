/// A three-component vector of `Double`s: an acceleration in m/s² or an angular rate in rad/s.
///
/// In this project a sample's acceleration is always expressed in the *canonical device frame*
/// (docs/ARCHITECTURE.md §3): the gravity vector in screen axes, x toward the right edge, y toward
/// the top edge, z out of the screen toward the viewer. A device standing upright in portrait reads
/// about (0, −9.81, 0).
public struct Vector3: Hashable, Sendable {
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    @inlinable
    public init(x: Double, y: Double, z: Double) {
        self.init(x, y, z)
    }

    public static let zero = Vector3(0, 0, 0)

    /// The Euclidean length.
    @inlinable
    public var length: Double { (x * x + y * y + z * z).squareRoot() }

    /// The squared Euclidean length (no square root).
    @inlinable
    public var lengthSquared: Double { x * x + y * y + z * z }

    /// True when every component is finite (neither NaN nor ±infinity).
    @inlinable
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    @inlinable
    public func dot(_ other: Vector3) -> Double { x * other.x + y * other.y + z * other.z }

    @inlinable
    public func cross(_ o: Vector3) -> Vector3 {
        Vector3(y * o.z - z * o.y, z * o.x - x * o.z, x * o.y - y * o.x)
    }

    @inlinable
    public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }

    @inlinable
    public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }

    @inlinable
    public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }

    @inlinable
    public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }

    @inlinable
    public static func * (s: Double, a: Vector3) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }

    @inlinable
    public static func += (a: inout Vector3, b: Vector3) { a = a + b }
}

extension Vector3: CustomStringConvertible {
    public var description: String { "(\(x), \(y), \(z))" }
}
