import SensorIIO
import Testing

/// Issue 28: which of a driver's `events/` files mean "the device moved", by the kernel's ABI
/// names (Documentation/ABI/testing/sysfs-bus-iio) and the drivers that offer them.
@Suite struct IIOMotionEventTests {
    @Test(arguments: [
        ("in_accel_x_roc_either_en", true),  // a slope ("any motion") per axis, bmc150-like
        ("in_accel_roc_rising_en", true),  // the same, shared by type
        ("in_accel_x&y&z_mag_rising_en", true),  // mma8452's transient (high-pass magnitude)
        ("in_accel_mag_adaptive_rising_en", true),
        ("in_accel_thresh_either_en", true),  // kxcjk-1013's wake-up engine, shared by type
        ("in_accel_x_thresh_rising_en", false),  // an absolute threshold: gravity alone fires it
        ("in_accel_x&y&z_mag_falling_en", false),  // free fall
        ("in_accel_x_roc_rising_value", false),  // a value, not an enable
        ("in_proximity0_thresh_either_en", false),  // not the accelerometer
        ("in_anglvel_x_roc_rising_en", false),
    ])
    func motionEventsAreTheRateAndHighPassOnes(_ name: String, _ motion: Bool) {
        #expect(IIOMotionEvent.isMotion(name) == motion, "\(name)")
    }
}
