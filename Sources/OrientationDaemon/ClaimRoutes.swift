import AmbientSensorCore
import OrientationCore
import OrientationProtocol
import SensorLifecycle
import SensorPipeline
import SensorProxyBus
import SensorProxyModel

/// Who claims what (issue 36): every claim the daemon takes and the sensor it goes to, in one
/// table. Each sensor's ``ClaimedSensor`` keeps its claimers by name and is open while any
/// claims it (and for the release delay after the last goes).
///
/// | claimer | its name | claims |
/// |---|---|---|
/// | the socket's `orientation` topic (first subscriber in, last out) | `socket` | the display accelerometer (``SensorPipeline/sensor``) |
/// | the socket's `light`, `proximity`, `compass` topics | `socket` | that kind's ``AuxiliarySensorService`` |
/// | the socket's `posture` topic | `socket` | the ``PostureService`` (a replay's posture: the display, as `posture`) |
/// | D-Bus `ClaimAccelerometer` (any claimer in, last out) | `dbus` | the display; with `[posture] dbus-hold-in-laptop`, the posture too |
/// | D-Bus `ClaimLight`, `ClaimProximity`, `ClaimAccelerometer` of the compass | `dbus` | that kind's service, answered at its first reading |
/// | the posture, while it is read | `posture` | the display (``PostureService/claimer``) |
/// | orientationd's virtual tablet-mode switch, while it exists | `tablet-mode-switch` | the posture (``TabletModeSwitchKeeper/claimer``) |
///
/// The hub and the facade reach this table only once it exists: the server accepts its first
/// client, and the bus thread starts, after the daemon has made every sensor (issue 36: a
/// claim made earlier used to be lost).
struct ClaimRoutes: Sendable {
    /// The display accelerometer's lifecycle.
    let display: ClaimedSensor
    let auxiliary: AuxiliarySensors?
    /// A convertible's posture, read from its sensors (`nil`: none, or a replay).
    let posture: ClaimedSensor?
    /// A replayed convertible's log: its posture comes with the display's samples.
    let replaysPosture: Bool
    /// `[posture] dbus-hold-in-laptop`: a D-Bus accelerometer claim reads the posture too.
    let busClaimsPosture: Bool
    /// The facade, told when a claimed sensor's first reading is there.
    let bus: SensorProxyBus?

    /// The first subscriber of `topic` came (`true`) or its last left.
    func socket(_ topic: SubscriptionTopic, _ claimed: Bool) {
        switch topic {
        case .orientation:
            display.setClaimed("socket", claimed)
        case .posture:
            if let posture { posture.setClaimed("socket", claimed) } else if replaysPosture { display.setClaimed("posture", claimed) }
        case .light, .proximity, .compass:
            if let kind = topic.sensor { auxiliary?.service(kind).setClaimed("socket", claimed) }
        }
    }

    /// The facade's first claimer of `sensor` came (`true`) or its last left. Called on the bus
    /// thread: nothing here blocks.
    func bus(_ sensor: ProxySensor, _ claimed: Bool) {
        guard let kind = sensor.auxiliaryKind else {
            if busClaimsPosture { posture?.setClaimed("dbus", claimed) }
            return display.setClaimed("dbus", claimed)
        }
        guard let service = auxiliary?.service(kind) else {
            // No live sensor of this kind (a replay): nothing to wait for.
            if claimed { bus?.readingReady(sensor) }
            return
        }
        guard claimed else { return service.setClaimed("dbus", false) }
        // The claim is answered once the first reading is published (bounded by the bus).
        // Called on the thread that took the reading (no lock held): only hand the state over.
        service.setClaimed("dbus") { [bus] state in
            bus?.publish { $0.update(state) }
            bus?.readingReady(sensor)
        }
    }
}
