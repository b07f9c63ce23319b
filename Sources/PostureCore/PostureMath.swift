// Like OrientationCore, PostureCore takes only the C math library from the platform: no
// Foundation, no libiio, no NIO (docs/ARCHITECTURE.md §2, §11). OrientationCore's helpers of the
// same names are internal to it; these are this module's.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Degrees per radian.
@usableFromInline let degreesPerRadian = 180.0 / Double.pi

@inlinable func radians(_ degrees: Double) -> Double { degrees / degreesPerRadian }
@inlinable func cMath_expm1(_ x: Double) -> Double { expm1(x) }
@inlinable func cMath_atan2(_ y: Double, _ x: Double) -> Double { atan2(y, x) }
@inlinable func cMath_acos(_ x: Double) -> Double { acos(x) }
@inlinable func cMath_sin(_ x: Double) -> Double { sin(x) }

/// A number as the parameter tables print it: integers without a decimal point (`30`, not `30.0`),
/// as ``OrientationDetector``'s parameters do.
func formatParameter(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : "\(v)"
}
