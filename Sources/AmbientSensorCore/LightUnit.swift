/// The unit of an ambient light level, with iio-sensor-proxy's `LightLevelUnit` names.
public enum LightUnit: String, Sendable, Hashable {
    /// Lux: IIO illuminance (and intensity channels, which HID sensors report in lux, as the
    /// peer assumes too).
    case lux
    /// A vendor scale, 0–100 (a percentage): Apple's hwmon `light` attribute.
    case vendor
}
