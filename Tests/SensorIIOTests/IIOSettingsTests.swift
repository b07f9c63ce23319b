import OrientationCore
import SensorIIO
import Testing

/// Issue 36: a convertible's base accelerometer is read with the `[sensor]` settings of how to
/// read, never with what names or corrects the display's sensor.
@Suite struct IIOSettingsTests {
    @Test func theBaseKeepsHowToReadAndDropsTheDisplaysOwn() {
        var display = IIOSettings()
        display.selector = "iio:device0"
        display.mountMatrix = (text: "0, 1, 0; -1, 0, 0; 0, 0, 1", source: "/etc/orientationd.conf:3")
        display.scale = 0.0024
        display.mode = .polled
        display.samplingFrequency = 25
        display.batch = 3
        display.pollRate = 12
        display.stallTimeout = 7
        display.rateGovernor.stillInterval = 0.8
        let base = display.forBase
        #expect(base.selector == nil && base.mountMatrix == nil && base.scale == nil)
        #expect(base.mode == .polled && base.samplingFrequency == 25 && base.batch == 3 && base.pollRate == 12
                && base.stallTimeout == 7 && base.rateGovernor.stillInterval == 0.8)
    }
}
