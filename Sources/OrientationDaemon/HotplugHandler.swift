import Logging
import OrientationCore
import SensorIIO
import SensorPipeline
import SensorProxyBus
import SensorProxyModel

/// What happens on hotplug (issue 36): one udev event, handled on the monitor's thread (an
/// owner thread: discovery enumerates libudev), in one place.
///
/// For an `add`, `remove` or `change` event, one discovery through the backend table
/// (`SensorBackends.discover`, every family: each row enumerates its udev subsystem once) finds
/// every sensor there is now, and each sensor takes what concerns it from it:
/// 1. Light, proximity and compass: each kind's service uses what is found (a reader of a
///    device that went is closed, a new one opened if claimed; the device a `remove` names is
///    left out).
/// 2. An event of a hwmon device (a light sensor) ends there.
/// 3. Any other event but a switch's restarts the display accelerometer's session if it is open
///    (a sensor appeared, or a property such as the mount matrix changed). A switch (a lid, a
///    tablet-mode switch; orientationd's own virtual one too, at its creation) brings no
///    accelerometer: the display's reader goes on undisturbed.
/// 4. Whether there is a display accelerometer and whether the machine is a convertible (a base
///    accelerometer or a hinge angle beside it, or its own tablet-mode switch): the status
///    clients see, the facade's `HasAccelerometer`, the posture's presence and the virtual
///    tablet-mode switch's (a convertible without a switch of its own) follow it. Each presence
///    report also lets a sensor whose reader failed be tried again.
struct HotplugHandler: Sendable {
    let pipeline: SensorPipeline
    let auxiliary: AuxiliarySensors?
    let posture: PostureService?
    let tabletModeSwitch: TabletModeSwitchKeeper?
    let status: SensorStatusTracker
    let bus: SensorProxyBus?
    let logger: Logger

    /// Handles `event` on the calling thread, which must be an owner thread.
    func handle(_ event: UdevMonitor.Event) {
        logger.info("udev event", metadata: ["action": "\(event.action)", "device": "\(event.device)"])
        guard ["add", "remove", "change"].contains(event.action) else { return }
        let found: DiscoveredSensors?
        do {
            found = try SensorBackends.discover(SensorBackends.everything)
        } catch {
            // What the event changed is then unknown; the display is still reopened (its own
            // open finds its sensor anew), and everything else keeps what it had.
            logger.warning("cannot discover the sensors after a udev event", metadata: ["error": "\(error)"])
            found = nil
        }
        if let found { auxiliary?.use(found.auxiliary, removed: event.action == "remove" ? event.device : nil) }
        guard event.subsystem != "hwmon" else { return }
        if !event.isInputSwitch { pipeline.restart() }
        guard let found, let discovering = pipeline.source as? DiscoveringAccelerometerSource else { return }
        let (present, convertible) = discovering.presence(in: found)
        status.present(present)
        bus?.publish { $0.hasAccelerometer = present }
        posture?.setPresent(convertible)
        // Presence only: the key is the configuration's (a reload's), never a stale copy.
        tabletModeSwitch?.update(present: convertible, switches: found.switches)
    }
}
