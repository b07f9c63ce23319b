import Logging
import OrientationCore
import SensorIIO
import SensorPipeline
import SensorProxyBus
import SensorProxyModel

/// What happens on hotplug (issue 36): one udev event, handled on the monitor's thread (an
/// owner thread: discovery enumerates libudev), in one place.
///
/// For an `add`, `remove` or `change` event:
/// 1. The light, proximity and compass sensors are discovered again; each kind's service uses
///    what is found now (a reader of a device that went is closed, a new one opened if claimed).
/// 2. An event of a hwmon device (a light sensor) ends there.
/// 3. Any other event but a switch's restarts the display accelerometer's session if it is open
///    (a sensor appeared, or a property such as the mount matrix changed). A switch (a lid, a
///    tablet-mode switch; orientationd's own virtual one too, at its creation) brings no
///    accelerometer: the display's reader goes on undisturbed.
/// 4. One enumeration says whether there is a display accelerometer and whether the machine is
///    a convertible; the status clients see, the facade's `HasAccelerometer`, the posture's and
///    the virtual tablet-mode switch's presence follow it (each presence report also lets a
///    sensor whose reader failed be tried again).
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
        auxiliary?.rescanOnCallingThread(removed: event.action == "remove" ? event.device : nil)
        guard event.subsystem != "hwmon" else { return }
        if !event.isInputSwitch { pipeline.restart() }
        guard let discovering = pipeline.source as? DiscoveringAccelerometerSource else { return }
        // One enumeration for all of them (issue 30 had added a second, and a third for the
        // hinge channel, at every udev event).
        let (present, convertible) = discovering.presenceOnCallingThread()
        status.present(present)
        bus?.publish { $0.hasAccelerometer = present }
        posture?.setPresent(convertible)
        // Presence only: the key is the configuration's (a reload's), never a stale copy.
        tabletModeSwitch?.update(present: convertible)
    }
}
