import AmbientSensorCore
import Logging
import OrientationCore
import SensorLog
import SensorPipeline
import Synchronization

/// The light and proximity levels a v2 log recorded (`orientationd --record` beside a light or
/// proximity sensor), turned into what clients get as the live sensors' are: the light level
/// through ``LightLevelFilter`` (unit from the log's `light-unit`, default lux), the proximity
/// level through ``ProximityHysteresis`` with the log's `proximity-near-level` (without one the
/// column is ignored, with a warning, as a live sensor without a near level is).
///
/// A replay runs while the orientation is subscribed (the pipeline's claim), so its light and
/// proximity values arrive then; subscribers of those topics see the replayed sensors as present
/// from the start.
final class ReplayedReadings: Sendable {
    private struct Inner {
        var filter = LightLevelFilter()
        var hysteresis: ProximityHysteresis?
    }

    private let inner: Mutex<Inner>
    private let unit: LightUnit
    /// The states the replay starts with (present when the log has the column).
    let initial: [AuxiliarySensorState]
    private let publish: @Sendable (AuxiliarySensorState) -> Void

    init?(replay: ReplaySource, logger: Logger, publish: @escaping @Sendable (AuxiliarySensorState) -> Void) {
        let hasLight = replay.samples.contains { $0.light != nil }
        var hasProximity = replay.samples.contains { $0.proximity != nil }
        guard hasLight || hasProximity else { return nil }
        var hysteresis: ProximityHysteresis? = nil
        if hasProximity {
            if let text = replay.metadata["proximity-near-level"], let level = Double(text), level > 0 {
                hysteresis = ProximityHysteresis(nearLevel: level)
            } else {
                logger.warning("the log has proximity levels but no proximity-near-level: they are not replayed")
                hasProximity = false
            }
        }
        unit = replay.metadata["light-unit"].flatMap(LightUnit.init(rawValue:)) ?? .lux
        inner = Mutex(Inner(hysteresis: hysteresis))
        initial = [AuxiliarySensorState(kind: .light, present: hasLight), AuxiliarySensorState(kind: .proximity, present: hasProximity)]
        self.publish = publish
    }

    /// One sample's recorded values.
    func take(light: Double?, proximity: Double?) {
        inner.withLock { inner in
            if let light, let level = inner.filter.admit(light) {
                publish(AuxiliarySensorState(kind: .light, present: true, reading: .light(level: level, unit: unit)))
            }
            if let proximity, var hysteresis = inner.hysteresis {
                let near = hysteresis.update(level: proximity)
                inner.hysteresis = hysteresis
                publish(AuxiliarySensorState(kind: .proximity, present: true, reading: .proximity(near: near)))
            }
        }
    }
}
