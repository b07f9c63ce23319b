import Logging
import OrientationCore
import OwnerThreads
import SensorDeviceAccess
import SensorIIO
import SensorLog
import Synchronization

/// The light and proximity sensors read beside the accelerometer during `orientationd
/// --record` (``Recorder``): each one's newest value waits here until the next accelerometer
/// sample's row takes it.
final class AuxiliaryRecording: Sendable {
    let light: Bool
    let proximity: Bool
    private let readers: [AuxiliarySensorReader]
    private let pending: Pending

    /// The newest values, written by the readers' threads, taken by the recording's loop. (A
    /// class around the Mutex: `Mutex` is `~Copyable`, so closures cannot capture a local one.)
    final class Pending: Sendable {
        let values = Mutex<(light: Double?, proximity: Double?)>((nil, nil))
    }

    private init(light: Bool, proximity: Bool, readers: [AuxiliarySensorReader], pending: Pending) {
        self.light = light
        self.proximity = proximity
        self.readers = readers
        self.pending = pending
    }

    /// Finds the light and proximity sensors the daemon would use, notes them in `metadata` and
    /// starts reading them. None found: nothing is read and the log stays v1.
    static func start(settings: AuxiliarySettings, metadata: inout SensorLogMetadata, logger: Logger) async throws -> AuxiliaryRecording {
        let sensors = (try? await OwnerThread.run(name: "od-udev-scan") { () throws(SensorError) in try AuxiliaryDiscovery.sensors() }) ?? []
        let light = AuxiliaryChoice.choose(.light, from: sensors, selector: settings.devices[.light]).chosen
        let proximity = AuxiliaryChoice.choose(.proximity, from: sensors, selector: settings.devices[.proximity]).chosen
        let pending = Pending()
        var readers: [AuxiliarySensorReader] = []
        if let light {
            let scale = settings.lightScale(for: light)
            metadata.append(key: "light-device", value: "\(light.name) (\(light.id)), level × \(scale.factor) (\(scale.source))")
            metadata.append(key: "light-unit", value: light.lightUnit.rawValue)
            readers.append(AuxiliarySensorReader(sensor: light, onValue: { value in pending.values.withLock { $0.light = value * scale.factor } },
                                                 onFailure: { logger.warning("light sensor failed; recording goes on without it", metadata: ["reason": "\($0)"]) }))
        }
        if let proximity, let near = proximity.nearLevel {
            metadata.append(key: "proximity-device", value: "\(proximity.name) (\(proximity.id))")
            metadata.append(key: "proximity-near-level", value: "\(near.value)")
            readers.append(AuxiliarySensorReader(sensor: proximity, onValue: { value in pending.values.withLock { $0.proximity = value } },
                                                 onFailure: { logger.warning("proximity sensor failed; recording goes on without it", metadata: ["reason": "\($0)"]) }))
        }
        for reader in readers { try reader.start() }
        return AuxiliaryRecording(light: light != nil, proximity: proximity?.nearLevel != nil, readers: readers, pending: pending)
    }

    /// The values read since the last call (`nil`: none).
    func take() -> (Double?, Double?) {
        pending.values.withLock { values in
            defer { values = (nil, nil) }
            return (values.light, values.proximity)
        }
    }

    /// Asks the readers to stop (they hold nothing open between reads).
    func stop() {
        for reader in readers { reader.requestStop() }
    }
}
