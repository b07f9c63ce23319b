import AmbientSensorCore
import Glibc
import Logging
import OrientationCore
import OrientationServer
import OwnerThreads
import PostureCore
import SensorIIO
import SensorInput
import SensorLifecycle
import SensorPipeline
import SensorProxyBus
import SensorProxyModel

/// The daemon's sensors, made in the order they need each other (issue 36): each publishes to
/// the socket's hub and the D-Bus facade, which exist before them, and claims through its own
/// ``ClaimedSensor``. ``ClaimRoutes`` says who claims which; ``HotplugHandler`` what a udev
/// event does to them.
///
/// | sensor | lifecycle | session | publishes |
/// |---|---|---|---|
/// | display accelerometer | ``SensorPipeline/sensor`` | ``SensorPipeline`` (detector, retries) | `orientation`, the facade's orientation and tilt |
/// | light, proximity, compass | ``AuxiliarySensorService/lifecycle`` (one per kind) | an ``AuxiliarySensorReader`` | their topics, the facade's properties |
/// | posture | ``PostureService/lifecycle`` | base, hinge, lid and tablet-mode readers beside the display's tap | `posture`, the tablet-mode switch, the facade's hold |
/// | virtual tablet-mode switch | ``TabletModeSwitchKeeper`` | a uinput device | `SW_TABLET_MODE` |
struct Sensors: Sendable {
    let pipeline: SensorPipeline
    let auxiliary: AuxiliarySensors?
    /// A convertible's posture from its sensors (real sensors only).
    let posture: PostureService?
    let tabletModeSwitch: TabletModeSwitchKeeper?
    /// A replayed convertible's log (v3): its posture from the log's columns.
    let replayedPosture: ReplayedPosture?
    /// `[posture] dbus-hold-in-laptop`: the facade's orientation waits while a convertible is a laptop.
    let facadeHold: FacadeOrientationHold?

    /// Makes every sensor of `source`'s kind. Nothing is claimed yet: the claims come once the
    /// server listens and the facade is on the bus.
    /// - Throws: ``ConfigurationError`` for an invalid detector configuration.
    static func make(source: any SensorSource, display: ClaimedSensor, detector: OrientationDetector.Configuration,
                     posture postureConfiguration: PostureDetector.Configuration, auxiliarySensors: AuxiliarySettings?,
                     tabletModeSwitch: Bool, uinputPath: String, dbusHoldsInLaptop: Bool, exitWhenDone: Bool,
                     hub: SubscriptionHub.Handle, bus: SensorProxyBus?, status: SensorStatusTracker,
                     sleeper: Sleeper, logger: Logger) async throws -> Sensors {
        // Light, proximity and compass (issue 17): every state change, live or replayed, goes
        // through this one closure, to the socket's hub and to the D-Bus facade.
        let publishSensor: @Sendable (AuxiliarySensorState) -> Void = { sensor in
            hub.publish(sensor: sensor)
            bus?.publish { $0.update(sensor) }
        }
        let auxiliary = auxiliarySensors.map { settings in AuxiliarySensors(settings: settings, logger: logger, sleeper: sleeper, onChange: publishSensor) }
        await auxiliary?.rescan()
        // A replayed v2 log's light and proximity levels (none for live sensors).
        let replayed = (source as? ReplaySource).flatMap { replay in ReplayedReadings(replay: replay, logger: logger, publish: publishSensor) }
        for sensor in replayed?.initial ?? [] { publishSensor(sensor) }
        // A replayed convertible's log (v3): its posture, from the log's base and lid columns
        // beside the display's samples (issue 39); the replay runs for a posture subscriber too.
        let replayedPosture = try (source as? ReplaySource).flatMap { replay in
            try ReplayedPosture(replay: replay, configuration: postureConfiguration) { hub.publish(posture: $0) }
        }
        if let replayedPosture { hub.publish(posture: replayedPosture.initial) }
        let facadeHold = dbusHoldsInLaptop ? FacadeOrientationHold() : nil
        let pipeline = try SensorPipeline(source: source, configuration: detector, logger: logger, sensor: display,
                                          sleeper: sleeper) { event in
            switch event {
            case .orientation(let change):
                logger.info("orientation", metadata: ["orientation": "\(change.orientation)", "previous": "\(change.previous)",
                                                      "time": "\(change.time)"])
                hub.publish(orientation: change.orientation, time: change.time)
            case .sensorActive(let active):
                hub.setSensorActive(active)
                status.active(active)
            case .sensorFailed(let reason):
                hub.publish(orientation: .unknown, time: nil)
                // Not source.isPresent(): that enumerates udev, and this runs in the reader's task.
                status.failed(reason, present: !source.lastOpenFoundNoSensor)
            case .recordedReadings(let light, let proximity):
                replayed?.take(light: light, proximity: proximity)
            case .sourceFinished:
                status.ended()
                if exitWhenDone { display.finish() }
            case .tilt(let tilt):
                // The facade's AccelerometerTilt, from the samples (iio-sensor-proxy's classes).
                bus?.publish { $0.update(tilt: tilt) }
            }
        }
        if let replayedPosture { pipeline.sampleTap.set { replayedPosture.take($0) } }
        guard let discovering = source as? DiscoveringAccelerometerSource else {
            return Sensors(pipeline: pipeline, auxiliary: auxiliary, posture: nil, tabletModeSwitch: nil,
                           replayedPosture: replayedPosture, facadeHold: facadeHold)
        }
        // A convertible's posture (issue 30): the display's readings through the pipeline's tap,
        // the base accelerometer opened by the service while someone wants the posture.
        // orientationd's tablet-mode switch ([posture] tablet-mode-switch) claims it while it
        // exists and follows it: its claims are made before both.
        let postureClaims = ClaimedSensor(releaseDelay: SensorPipeline.defaultReleaseDelay, present: false, sleeper: sleeper)
        let keeper = TabletModeSwitchKeeper(logger: logger, path: uinputPath) { claimed in
            postureClaims.setClaimed(TabletModeSwitchKeeper.claimer, claimed)
        }
        let posture: PostureService
        do {
            posture = try PostureService(configuration: postureConfiguration, source: discovering, tap: pipeline.sampleTap,
                                         display: display, logger: logger, sleeper: sleeper, lifecycle: postureClaims) { state in
                hub.publish(posture: state)
                keeper.postureChanged(state)
                if let shown = facadeHold?.posture(state.posture) {
                    bus?.publish { $0.update(device: shown.orientation, locked: shown.locked) }
                }
            }
        } catch {
            await auxiliary?.stop()
            throw error
        }
        // `get` reads the state of now: the hinge angle of the last reading, how long held.
        hub.setPostureProvider { [weak posture] in posture?.state ?? PostureState() }
        // One discovery through the backend table for both, as at every udev event.
        let present = await OwnerThread.run(name: "od-udev-scan") { () -> Bool in
            let found = try? SensorBackends.discover(SensorBackends.everything)
            let present = found.map { discovering.presence(in: $0).posture } ?? false
            posture.setPresent(present)
            keeper.update(enabled: tabletModeSwitch, present: present, switches: found?.switches)
            return present
        } ?? false
        if present { logger.info("a convertible: posture can be known (a base accelerometer or a hinge angle beside the display's, or the machine's tablet-mode switch); served on the socket's posture topic") }
        return Sensors(pipeline: pipeline, auxiliary: auxiliary, posture: posture, tabletModeSwitch: keeper,
                       replayedPosture: replayedPosture, facadeHold: facadeHold)
    }

    /// Closes every sensor made (a start that failed after making them; the pipeline's loop has
    /// not run yet).
    func stop() async {
        await tabletModeSwitch?.stop()
        await posture?.stop()
        await auxiliary?.stop()
    }
}
