import SensorInput

/// What one discovery found: the motion sensors, the light, proximity and compass sensors, the
/// hinge-angle channels and the input switches, each found by a row of ``SensorBackends/all``.
public struct DiscoveredSensors: Sendable, Hashable {
    /// Accelerometers, gyroscopes and the other IIO devices the motion discovery lists.
    public var motion: [SensorDescription]
    /// Light, proximity and compass sensors.
    public var auxiliary: [AuxiliarySensorDescription]
    /// Hinge-angle channels (cros-ec's lid angle, the HID hinge sensor), usable or not.
    public var hinges: [HingeAngleChannel]
    /// Input devices with at least one switch (lid, tablet mode, front proximity), orientationd's
    /// own virtual tablet-mode switch included.
    public var switches: [InputSwitchDevice]

    public init(motion: [SensorDescription] = [], auxiliary: [AuxiliarySensorDescription] = [],
                hinges: [HingeAngleChannel] = [], switches: [InputSwitchDevice] = []) {
        self.motion = motion
        self.auxiliary = auxiliary
        self.hinges = hinges
        self.switches = switches
    }

    /// Every list, `other`'s after this one's.
    public mutating func append(_ other: DiscoveredSensors) {
        motion += other.motion
        auxiliary += other.auxiliary
        hinges += other.hinges
        switches += other.switches
    }

    /// The first hinge-angle channel that can be read.
    public var usableHinge: HingeAngleChannel? { hinges.first { $0.unusableReason == nil } }

    /// The machine's lid switch (`SW_LID`), if any.
    public var lidSwitch: InputSwitchDevice? { switches.first { $0.has(.lid) } }

    /// The machine's own tablet-mode switches (`SW_TABLET_MODE`), orientationd's left out: when
    /// there is one, orientationd must not add its own.
    public var realTabletModeSwitches: [InputSwitchDevice] {
        switches.filter { $0.has(.tabletMode) && !$0.isOrientationdTabletModeSwitch }
    }
}
