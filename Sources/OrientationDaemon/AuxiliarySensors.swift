import AmbientSensorCore
import Logging
import OrientationCore
import OwnerThreads
import SensorDeviceAccess
import SensorIIO
import SensorLifecycle
import Synchronization

/// The daemon's light, proximity and compass sensors (issue 17): one
/// ``AuxiliarySensorService`` each, discovery (at start, on every udev event, after a reload),
/// and the one closure every state change goes through.
///
/// Wiring (``OrientationService``): socket topics claim with ``AuxiliarySensorService/setClaimed(_:_:)``
/// as `"socket"`; `onChange` publishes to the hub. The D-Bus facade claims as `"dbus"` on the
/// same services and publishes from the same closure.
public final class AuxiliarySensors: Sendable {
    /// One service per kind, every kind (`AuxiliarySensorKind.allCases`): a new kind needs no
    /// change here.
    private let services: [AuxiliarySensorKind: AuxiliarySensorService]
    public var light: AuxiliarySensorService { service(.light) }
    public var proximity: AuxiliarySensorService { service(.proximity) }
    public var compass: AuxiliarySensorService { service(.compass) }
    private let settings: Mutex<AuxiliarySettings>
    private let logger: Logger
    /// Warnings already logged (a proximity sensor without a near level, a selector matching
    /// nothing): each is logged once, not at every hotplug event.
    private let warned = Mutex<Set<String>>([])

    /// - Parameter onChange: every change of any of the three states (presence, reading), in
    ///   order per sensor; called under no lock (``CallbackQueue``), but on whichever thread
    ///   made the change (a reader's, the udev monitor's, a loop's), so it must not block.
    /// - Parameter sleeper: how the release delay's timer waits (the daemon's event loops).
    public init(settings: AuxiliarySettings, logger: Logger, sleeper: Sleeper = .task,
                onChange: @escaping @Sendable (AuxiliarySensorState) -> Void) {
        self.settings = Mutex(settings)
        self.logger = logger
        services = Dictionary(uniqueKeysWithValues: AuxiliarySensorKind.allCases.map {
            ($0, AuxiliarySensorService(kind: $0, logger: logger, sleeper: sleeper, onChange: onChange))
        })
    }

    /// The service of `kind` (every kind has one, made in `init`).
    public func service(_ kind: AuxiliarySensorKind) -> AuxiliarySensorService {
        guard let service = services[kind] else { preconditionFailure("no service for \(kind): init makes one per kind") }
        return service
    }

    /// Discovers the sensors on an owner thread of its own and uses what it finds.
    public func rescan() async {
        let found = await OwnerThread.run(name: "od-udev-scan") { () -> Result<[AuxiliarySensorDescription], SensorError> in
            Result { () throws(SensorError) in try AuxiliaryDiscovery.sensors() }
        }
        switch found {
        case .success(let sensors)?:
            use(sensors)
        case .failure(let error)?:
            logger.warning("cannot discover light, proximity and compass sensors", metadata: ["error": "\(error)"])
        case nil:
            logger.warning("cannot discover light, proximity and compass sensors: no thread could be started")
        }
    }

    /// Uses what a discovery found (`discovered`: its light, proximity and compass sensors; the
    /// daemon's hotplug handler makes one per udev event for every sensor). `removed`: the
    /// device a `remove` event named, left out even if sysfs still shows it (the event can
    /// overtake the removal). Reads nothing; any thread.
    public func use(_ discovered: [AuxiliarySensorDescription], removed: String? = nil) {
        let sensors = discovered.filter { $0.id != removed }
        let settings = self.settings.withLock { $0 }
        for kind in AuxiliarySensorKind.allCases {
            let choice = AuxiliaryChoice.choose(kind, from: sensors, selector: settings.devices[kind])
            for warning in choice.warnings { warnOnce(warning) }
            for sensor in sensors where sensor.kind == kind {
                if let why = sensor.unusableReason { warnOnce("ignoring \(kind.noun) \(sensor.id) (\(sensor.name)): \(why)") }
            }
            service(kind).use(choice.chosen, lightScale: choice.chosen.map { settings.lightScale(for: $0).factor } ?? 1)
        }
    }

    /// Replaces the settings (a reload) and discovers again.
    public func update(settings: AuxiliarySettings) async {
        self.settings.withLock { $0 = settings }
        await rescan()
    }

    /// Closes every sensor and waits for the readers' threads.
    public func stop() async {
        for kind in AuxiliarySensorKind.allCases { await service(kind).stop() }
    }

    private func warnOnce(_ message: String) {
        guard warned.withLock({ $0.insert(message).inserted }) else { return }
        logger.warning("\(message)")
    }
}
