import SensorDeviceAccess

/// The backend table: every way orientationd reads a sensor, one row each, in the order
/// discovery asks them (iio-sensor-proxy's `drivers[]`). docs/ARCHITECTURE.md §10 shows the table
/// and walks through adding a row.
///
/// | row | udev devices | finds | reads |
/// |---|---|---|---|
/// | ``IIOBackend`` | subsystem `iio`, not triggers | accelerometers, gyroscopes, light, proximity, compass, hinge angles | sysfs attributes on a clock, or the buffer through libiio |
/// | ``InputAccelerometerBackend`` | `input` event nodes, `ID_INPUT_ACCELEROMETER=1` | accelerometers | evdev `EV_ABS` events |
/// | ``InputSwitchBackend`` | `input` event nodes with switches in `capabilities/sw` | proximity (`SW_FRONT_PROXIMITY`), the lid and tablet-mode switches | evdev `EV_SW` events |
/// | ``HwmonLightBackend`` | `hwmon`/`platform` with a `light` attribute | light | sysfs `light` on a clock |
public enum SensorBackends {
    /// The rows.
    public static let all: [any SensorBackend.Type] = [
        IIOBackend.self,
        InputAccelerometerBackend.self,
        InputSwitchBackend.self,
        HwmonLightBackend.self,
    ]

    /// Every sensor of `family` the rows find now, motion sensors sorted by number then id
    /// (`iio:device2` before `iio:device10`), auxiliary ones IIO first. Blocks on libudev:
    /// call it on an owner thread. A row that cannot enumerate fails the whole discovery (udev
    /// itself is unusable then); a row with nothing to offer returns nothing.
    public static func discover(_ family: SensorFamily) throws(SensorError) -> DiscoveredSensors {
        try discover([family])
    }

    /// Every sensor of the `families` the rows find now, each row asked once for all the ones
    /// it serves (one discovery per hotplug event: ``everything``). Sorted as
    /// ``discover(_:)`` says. Blocks on libudev: an owner thread.
    public static func discover(_ families: Set<SensorFamily>) throws(SensorError) -> DiscoveredSensors {
        var found = DiscoveredSensors()
        for backend in all where !backend.families.isDisjoint(with: families) {
            found.append(try backend.discover(families))
        }
        found.motion.sort { (SensorChoice.number($0.id), $0.id) < (SensorChoice.number($1.id), $1.id) }
        found.auxiliary.sort { a, b in
            let (ia, ib) = (a.backend == IIOBackend.name, b.backend == IIOBackend.name)
            if ia != ib { return ia }
            return (SensorChoice.number(a.id), a.id) < (SensorChoice.number(b.id), b.id)
        }
        return found
    }

    /// Every family: what the daemon's hotplug handler looks at once per udev event.
    public static let everything = Set(SensorFamily.allCases)

    /// The row that found `sensor`.
    public static func backend(of sensor: SensorDescription) -> (any SensorBackend.Type)? {
        all.first { $0.name == sensor.backend }
    }

    /// How `sensor` is read: asked of the row that found it.
    public static func auxiliaryRead(_ sensor: AuxiliarySensorDescription) -> AuxiliaryRead? {
        all.first { $0.name == sensor.backend }?.auxiliaryRead(sensor)
    }
}
