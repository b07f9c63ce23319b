// The C math library is the only thing OrientationCore takes from the platform: no Foundation,
// no libiio, no NIO (docs/ARCHITECTURE.md §2).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Degrees per radian.
@usableFromInline let degreesPerRadian = 180.0 / Double.pi

@inlinable func degrees(_ radians: Double) -> Double { radians * degreesPerRadian }
@inlinable func radians(_ degrees: Double) -> Double { degrees / degreesPerRadian }
@inlinable func cMath_expm1(_ x: Double) -> Double { expm1(x) }
@inlinable func cMath_asin(_ x: Double) -> Double { asin(x) }
@inlinable func cMath_atan2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
@inlinable func cMath_sin(_ x: Double) -> Double { sin(x) }
@inlinable func cMath_cos(_ x: Double) -> Double { cos(x) }
@inlinable func cMath_log(_ x: Double) -> Double { log(x) }
@inlinable func cMath_exp(_ x: Double) -> Double { exp(x) }
