import OrientationCore

/// How often each of a convertible's posture readers reads, and which readings the
/// ``PostureDetector`` needs (issues 30 and 37).
///
/// Each reader (the display accelerometer, the base accelerometer, the machine's hinge angle)
/// follows a ``SampleRateGovernor`` of its own: at its full rate from the first reading that
/// moves, slower while it lies still and the detector is settled, at most `pairedInterval` apart
/// (the other readers' latest must stay fresh enough to pair with: 80 % of `pairing-window`).
///
/// **Parked.** That still costs a wake-up per reader per interval, all session (a desktop holds
/// the posture while `tablet-mode-switch = true`): 5 a second for a polled pair where one
/// accelerometer costs 2. But once the posture is settled and every reader lies still, no
/// reading can change it: two halves that keep their directions keep their hinge angle. So the
/// pace parks:
/// - the detector is fed nothing while parked; each reading only goes through its governor;
/// - the display (which the orientation reads anyway) asks for no pace of its own
///   (``parkedDisplayWait``); the base and the hinge wait ``parkedInterval``;
/// - the first reading that moves unparks: it and every later one are fed, and when it is the
///   display's, the other readers are told to read at once (``Decision/wakeOthers``), so a fold
///   started by the display is seen as fast as before.
///
/// A reader that cannot be woken early makes parking impossible (``Reader`` must say it can),
/// so its wait never exceeds `pairedInterval`. Only a hinge turned by moving the base while the
/// display is held perfectly still waits for the base's next reading (at most ``parkedInterval``).
///
/// Contract:
/// - Deterministic: time comes only from the readings (``SampleRateGovernor``).
/// - A hinge-angle reading is judged as a direction in a plane (`angle` degrees from an axis), so
///   the governor's `still-motion-angle` is degrees of hinge; a reading with no angle (the EC's
///   "cannot tell") counts as motion.
/// - With the governor off (`still-interval = 0`) every reading is fed and every reader runs at its
///   full rate.
public struct PostureReadingPace: Sendable {
    /// A posture reader.
    public enum Reader: Sendable, CaseIterable {
        case display, base, hinge
    }

    /// What to do with one reading.
    public struct Decision: Equatable, Sendable {
        /// Whether the detector needs it (false only while parked and it shows no motion).
        public var feed: Bool
        /// Seconds the reader may wait before its next reading; `nil`: its full rate.
        public var wait: Double?
        /// Whether the other readers must read at once (the display moved while parked).
        public var wakeOthers: Bool
    }

    /// The longest wait between two readings that must pair (80 % of `pairing-window`, or less).
    public private(set) var pairedInterval: Double
    /// How long a parked base or hinge reader waits: four of the governor's still intervals.
    public private(set) var parkedInterval: Double
    /// What a parked display asks for: nothing shorter than the orientation's own pace.
    public var parkedDisplayWait: Double { parkedInterval }
    /// True while parked.
    public private(set) var isParked = false
    /// How many times it parked, and how many times a moving display woke the other readers
    /// (the daemon's statistics and the tests').
    public private(set) var parks = 0
    public private(set) var wakes = 0

    /// One reader's governor, and whether it takes part and can be woken early. Three stored
    /// slots, not arrays: the daemon copies the pace out of its lock for each reading, and a
    /// copied array would be reallocated at the first write (an allocation per reading).
    private struct Slot: Sendable {
        var governor: SampleRateGovernor
        var active = false
        var wakeable = false
    }

    private var display: Slot
    private var base: Slot
    private var hinge: Slot

    private subscript(_ reader: Reader) -> Slot {
        get {
            switch reader {
            case .display: display
            case .base: base
            case .hinge: hinge
            }
        }
        set {
            switch reader {
            case .display: display = newValue
            case .base: base = newValue
            case .hinge: hinge = newValue
            }
        }
    }

    /// Whether `test` holds for every reader taking part.
    private func everyActive(_ test: (Slot) -> Bool) -> Bool {
        (!display.active || test(display)) && (!base.active || test(base)) && (!hinge.active || test(hinge))
    }

    /// - Parameters:
    ///   - governor: the `[sensor]` still settings (`still-interval` 0 turns pacing off).
    ///   - pairingWindow: the posture detector's `pairing-window`.
    public init(governor: SampleRateGovernor.Configuration, pairingWindow: Double) {
        let paired = governor.limited(gapReset: pairingWindow)
        pairedInterval = paired.stillInterval
        parkedInterval = 4 * governor.stillInterval
        let slot = Slot(governor: SampleRateGovernor(configuration: paired))
        (display, base, hinge) = (slot, slot, slot)
    }

    /// New settings (a reload) for the readers already taking part: each at full rate until it
    /// lies still again, not parked.
    public mutating func reconfigure(governor: SampleRateGovernor.Configuration, pairingWindow: Double) {
        var fresh = PostureReadingPace(governor: governor, pairingWindow: pairingWindow)
        for reader in Reader.allCases {
            fresh[reader].active = self[reader].active
            fresh[reader].wakeable = self[reader].wakeable
        }
        fresh.parks = parks
        fresh.wakes = wakes
        self = fresh
    }

    /// Says that `reader` takes part (it will deliver readings) and whether it can be woken
    /// early. The display's reader need not be wakeable (it is never woken); the base and the
    /// hinge must be, or the pace never parks.
    public mutating func add(_ reader: Reader, wakeable: Bool) {
        self[reader].active = true
        self[reader].wakeable = wakeable || reader == .display
    }

    /// Takes one accelerometer reading (the raw sample: the governor judges its motion).
    /// `feed` hands it to the detector and returns whether the detector is settled afterwards;
    /// it is called only when the detector needs the reading.
    public mutating func take(_ sample: Sample, from reader: Reader, feed: () -> Bool) -> Decision {
        self[reader].active = true
        if isParked {
            _ = self[reader].governor.observe(sample, settled: true)
            if self[reader].governor.interval != nil {
                return Decision(feed: false, wait: reader == .display ? parkedDisplayWait : parkedInterval, wakeOthers: false)
            }
            isParked = false
            _ = feed()
            if reader == .display { wakes += 1 }
            return Decision(feed: true, wait: nil, wakeOthers: reader == .display)
        }
        let settled = feed()
        _ = self[reader].governor.observe(sample, settled: settled)
        let still = everyActive { $0.governor.interval != nil }
        guard still, let wait = self[reader].governor.interval else { return Decision(feed: true, wait: nil, wakeOthers: false) }
        if settled, parkedInterval > pairedInterval, everyActive(\.wakeable) {
            isParked = true
            parks += 1
            return Decision(feed: true, wait: reader == .display ? parkedDisplayWait : parkedInterval, wakeOthers: false)
        }
        return Decision(feed: true, wait: wait, wakeOthers: false)
    }

    /// Takes one reading of the machine's hinge angle (degrees; `nil`: the driver cannot tell)
    /// at `time`, as ``take(_:from:feed:)`` does.
    public mutating func takeHinge(_ degrees: Double?, at time: Double, feed: () -> Bool) -> Decision {
        take(Self.sample(hinge: degrees, at: time), from: .hinge, feed: feed)
    }

    /// Feeds the detector again from the next reading (something besides the readers changed
    /// what it may decide: a switch, a new configuration). Returns whether it was parked: the
    /// caller then wakes the parked readers.
    @discardableResult
    public mutating func unpark() -> Bool {
        defer { isParked = false }
        return isParked
    }

    /// A hinge angle as a reading the governor can judge: a unit direction in a plane (so only the
    /// angle moves it); no angle is a non-finite reading, which is motion.
    static func sample(hinge degrees: Double?, at time: Double) -> Sample {
        guard let degrees, degrees.isFinite else { return Sample(time: time, acceleration: Vector3(.nan, .nan, .nan)) }
        let r = radians(degrees)
        return Sample(time: time, acceleration: Vector3(cMath_sin(r + .pi / 2), cMath_sin(r), 0))
    }
}
