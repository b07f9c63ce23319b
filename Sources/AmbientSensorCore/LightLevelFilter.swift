/// Which ambient light readings are worth publishing: the first at once, then only a change
/// of at least ``relativeStep`` of the last published level and of more than ``absoluteStep``
/// in the sensor's unit.
///
/// Why: a light sensor polled every 0.8 s wobbles by a few percent (mains flicker beating with
/// the integration time, a hand's shadow, sensor noise), and iio-sensor-proxy publishes every
/// different value, so automatic brightness (gsd-power, KWin) re-targets the backlight about
/// twice a second. Perceived brightness is roughly logarithmic in lux, so a relative step is
/// the right measure: 10 % is a barely noticeable change of light, and the absolute floor keeps
/// the noise of a dark room (0 ↔ 1 lx) quiet. A real change (a lamp, a window, a pocket) is
/// several times larger and is published at the next reading, with no delay added.
public struct LightLevelFilter: Sendable, Hashable {
    public var relativeStep: Double
    public var absoluteStep: Double
    /// The level published last (`nil` before the first).
    public private(set) var published: Double?

    public init(relativeStep: Double = 0.1, absoluteStep: Double = 1) {
        self.relativeStep = relativeStep
        self.absoluteStep = absoluteStep
    }

    /// Takes one reading; returns the level to publish, or `nil` to keep the last one.
    public mutating func admit(_ level: Double) -> Double? {
        guard level.isFinite else { return nil }
        if let last = published {
            let change = abs(level - last)
            guard change >= abs(last) * relativeStep, change > absoluteStep else { return nil }
        }
        published = level
        return level
    }

    /// Forgets the last level (the sensor was closed: the next reading is published at once).
    public mutating func reset() {
        published = nil
    }
}
