// The C math library, as in OrientationCore: no Foundation here either.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

@inlinable func asinDegrees(_ x: Double) -> Double { asin(x) * 180 / Double.pi }
@inlinable func atan2Degrees(_ y: Double, _ x: Double) -> Double { atan2(y, x) * 180 / Double.pi }
