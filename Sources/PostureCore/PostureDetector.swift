import OrientationCore

/// Turns the readings of a convertible's two accelerometers (display and base) into posture
/// changes: the pure state machine of docs/ARCHITECTURE.md §11, explained parameter by parameter
/// in docs/DETECTOR.md ("The posture detector").
///
/// Contract:
/// - **Deterministic.** Time comes only from sample timestamps (and the times given with lid
///   switch changes), never a clock. The same input gives the same events on every machine.
/// - **Total.** Every sample is accepted. One with a non-finite time or acceleration, or an
///   exactly zero acceleration, is ignored (counted in ``statistics``). The two sensors' samples
///   are fed merged in time order; a sample older than its own sensor's last one, or after a gap
///   longer than `gap-reset`, restarts that sensor's filter.
/// - **Holds rather than guesses.** The hinge angle is trusted only while the hinge axis is
///   clear of vertical, neither sensor turns (its direction moving faster than `turn-rate`
///   between two readings of 1 g) now or within `motion-holdoff`, and either neither
///   accelerates (magnitude off 1 g) within `motion-holdoff` or the hinge angle is steady: the
///   angles followed for `motion-holdoff` all within 2 × `hysteresis` (a hand shaking both
///   halves leaves the angle where it is). Otherwise the published posture is kept and
///   ``hold`` says why. A new posture must be the candidate for `settle-time` of trusted
///   samples.
/// - **Closed or folded back.** 0° and 360° read alike. The detector follows the hinge's path
///   (each angle continues from the last), and a lid switch, when one is wired, settles it
///   (``setLidSwitch(closed:at:)``); until one of them tells, the posture is ``Posture/unknown``
///   and ``hold`` is ``PostureHold/closedOrFoldedBack``.
/// - **The lid switch is a fact.** While a switch says open, ``Posture/closed`` is never
///   published; while it says shut, only ``Posture/closed`` or ``Posture/tablet`` (folded back
///   onto the magnet) are. The angle decides everything else; where it disagrees with the switch,
///   ``lidDisagreement`` says so (``Statistics/lidDisagreements`` counts the episodes).
/// - **A path that physics allows.** An angle is followed only from a pair of readings that
///   describes one instant: when the two sensors' readings were taken far enough apart for the
///   machine's rotation between them (each sensor's own rate of turn) to move the angle by more
///   than 45°, the pair is not used; nor is an angle the hinge could not have reached at
///   `hinge-speed` since the last one followed. A quick fold between two readings
///   therefore continues the path from where it was still, never from a pair mixing a half's old
///   position with the other's new one.
/// - **One event per change.** ``process(_:)`` and ``setLidSwitch(closed:at:)`` return an event
///   exactly when the published posture changes.
public struct PostureDetector: Sendable {
    /// The configuration this detector was created with (validated).
    public let configuration: Configuration
    /// The published posture: `unknown` until the first decision.
    public private(set) var posture: Posture = .unknown
    /// Why the last sample could not decide, or `nil` when it could.
    public private(set) var hold: PostureHold? = .waitingForSensors
    /// The last measured hinge angle in degrees, [0, 360), before resolving 0 against 360; `nil`
    /// before the first pair of readings (or while there is no angle at all).
    public private(set) var rawHingeAngle: Double?
    /// The lid switch as last given to ``setLidSwitch(closed:at:)`` (`nil`: none wired).
    public private(set) var lidClosed: Bool?
    /// Whether the switch and the angle disagree now: the switch shut while the angle says the
    /// machine is open (neither closed nor folded back), or open while the angle says closed for
    /// `settle-time`. The switch wins either way; each episode counts once in
    /// ``Statistics/lidDisagreements`` (the daemon logs it once).
    public private(set) var lidDisagreement = false
    /// When (samples' clock) the current ``hold`` began, or `nil` while there is none.
    public private(set) var holdSince: Double?
    /// The time of the last input (sample, lid switch change or measured angle), or `nil` before
    /// the first.
    public var lastInputTime: Double? { lastTime.isFinite ? lastTime : nil }
    /// The hinge angle the machine measures itself, as last given to
    /// ``setMeasuredHinge(_:at:)``, and when (`nil`: none, or unreliable).
    public private(set) var measuredHinge: MeasuredHinge?

    /// A hinge angle measured by the machine (a ChromeOS EC's lid angle, an Intel HID hinge
    /// sensor): degrees within 0…360, and the time on the samples' clock.
    public struct MeasuredHinge: Hashable, Sendable {
        public var degrees: Double
        public var time: Double
    }
    /// Counters of what the detector saw.
    public private(set) var statistics = Statistics()

    // Derived constants.
    private let sinHingeVertical: Double
    private let sinTrackVertical: Double
    private let sinTentStand: Double
    private let turnRate: Double

    private var display = SensorTrack()
    private var base = SensorTrack()
    /// The path of the hinge: the angle unwrapped across 0/360 so that 5° and 365° differ; `nil`
    /// while it is unknown which side of 0/360 the hinge is on.
    private var tracked: Double?
    private var trackedTime = -Double.infinity
    /// Whether pairs were skipped since the path last took one (a pair apart in time while a half
    /// turned, a step faster than `hinge-speed`): across such a gap the hinge may have turned
    /// unseen, so an angle near 0/360 far from the path is not resolved by nearness.
    private var pathBroken = false
    /// The path where a still, trustworthy pair last put it, and when.
    private var anchor: (degrees: Double, time: Double)?
    private var pending: Posture?
    private var pendingSince = -Double.infinity
    /// The stretch of angles the path has taken one after another, all within
    /// ``steadinessSpan`` of each other: their lowest and highest (`nil` after a pair the path
    /// refused, or before any), and when the stretch began.
    private var steadyRange: (low: Double, high: Double)?
    private var steadySince = -Double.infinity
    private var lastTime = -Double.infinity
    /// Since when a trusted angle has said closed while the switch said open (`nil`: it does not).
    private var openConflictSince: Double?

    /// Creates a detector.
    ///
    /// - Throws: ``ConfigurationError`` when the configuration is invalid.
    public init(configuration: Configuration = Configuration()) throws(ConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        sinHingeVertical = cMath_sin(radians(configuration.hingeVerticalMargin))
        sinTrackVertical = cMath_sin(radians(configuration.trackVerticalMargin))
        sinTentStand = cMath_sin(radians(configuration.tentStandTilt))
        turnRate = radians(configuration.turnRate)
    }

    /// True when nothing is about to change: a posture is published, the last sample decided
    /// (no hold) and no other posture waits to settle. The daemon slows both accelerometers only
    /// then (``SampleRateGovernor``).
    public var isSettled: Bool {
        posture != .unknown && hold == nil && (pending == nil || pending == posture)
    }

    /// The hinge angle the detector believes, in degrees within 0…360 (0 closed, 360 folded
    /// back), or `nil` while it is not known (no pair of readings yet, or 0 against 360
    /// unresolved).
    public var hingeAngle: Double? {
        tracked.map { min(360, max(0, $0)) }
    }

    /// Returns to the initial state: `unknown`, no readings, no path, no measured angle; the lid
    /// switch and the statistics are kept. Call it when the streams restart for a reason the timestamps do not
    /// show (a sensor reopened).
    public mutating func reset() {
        measuredHinge = nil
        posture = .unknown
        hold = .waitingForSensors
        rawHingeAngle = nil
        display = SensorTrack()
        base = SensorTrack()
        tracked = nil
        trackedTime = -.infinity
        pathBroken = false
        anchor = nil
        pending = nil
        pendingSince = -.infinity
        steadyRange = nil
        lastTime = -.infinity
        holdSince = nil
        lidDisagreement = false
        openConflictSince = nil
    }

    /// Feeds one accelerometer reading; returns the event when the published posture changes.
    public mutating func process(_ sample: PostureSample) -> PostureEvent? {
        let a = sample.acceleration
        guard statistics.counts.admit(time: sample.time, acceleration: a) else { return nil }
        let t = sample.time
        let c = configuration
        switch sample.location {
        case .display: display.add(a, at: t, configuration: c, turnRate: turnRate, statistics: &statistics)
        case .base: base.add(a, at: t, configuration: c, turnRate: turnRate, statistics: &statistics)
        }
        if t < lastTime {
            // The merged stream went back in time: a pending decision's age means nothing.
            pending = nil
        }
        lastTime = t
        return decide(at: t)
    }

    /// Tells the detector the state of the lid switch (`SW_LID`): `true` shut, `false` open,
    /// `nil` none (or no longer trusted). Returns the event when the published posture changes.
    ///
    /// The switch is a fact (a lid switch is debounced by the kernel; no settle time):
    /// - **Shut**: the published posture becomes ``Posture/closed`` at once, or
    ///   ``Posture/tablet`` when the hinge's path (followed within `path-memory`) is on the folded
    ///   back side (some convertibles' magnets also close the switch folded back). Nothing else is
    ///   published while it stays shut. An angle clearly open (outside `closed-folded-band`)
    ///   disagrees: ``lidDisagreement``.
    /// - **Open**: ``Posture/closed`` is never published; a published `closed` becomes what the
    ///   angle says at once (``Posture/laptop`` for a lid open a crack, where the path is on the
    ///   closed side; folded back where the halves lie together with no path known).
    ///
    /// A non-finite `time` counts as the last sample's.
    public mutating func setLidSwitch(closed: Bool?, at time: Double) -> PostureEvent? {
        let time = time.isFinite ? time : (lastTime.isFinite ? lastTime : 0)
        lidClosed = closed
        openConflictSince = nil
        guard closed == true else {
            if closed == false, tracked == nil, let raw = rawHingeAngle, isInBand(raw) {
                tracked = raw < 180 ? raw + 360 : raw
                trackedTime = time
            }
            lidDisagreement = false
            guard closed == false, posture == .closed else { return nil }
            // Open: not closed any more, whatever the angle last said.
            pending = nil
            let next = tracked.map { candidate($0, display: display.direction) ?? .laptop } ?? .unknown
            return publish(lidAllows(next), at: time)
        }
        let foldedBack = tracked.map { $0 > 180 && time - trackedTime <= configuration.pathMemory } ?? false
        if let raw = rawHingeAngle, !isInBand(raw) {
            startDisagreement()
        } else {
            lidDisagreement = false
        }
        if !foldedBack, rawHingeAngle.map(isInBand) ?? true {
            // The halves together, shut: the closed side. (An angle clearly open keeps its path:
            // the switch decides the posture, not the angle.)
            tracked = rawHingeAngle.map { $0 > 180 ? $0 - 360 : $0 } ?? 0
            trackedTime = time
        }
        pending = nil
        if hold == .closedOrFoldedBack { setHold(nil, at: time) }
        let next: Posture = foldedBack ? .tablet : .closed
        guard posture != next else { return nil }
        return publish(next, at: time)
    }

    /// Tells the detector the hinge angle the machine measures itself (`in_angl*`: cros-ec's
    /// `cros-ec-lid-angle`, the HID `hinge` sensor), degrees within 0…360, or `nil` when the
    /// machine says it is unreliable. Returns the event when the published posture changes.
    ///
    /// While a measured angle is fresh (at most `pairing-window` old), it is the angle: it needs
    /// no base accelerometer, knows 0° from 360° (the path and the lid switch are not needed),
    /// and holds nothing for a vertical hinge (the machine's own sensor fusion says when it
    /// cannot tell, with `nil`). The display's accelerometer still tells tent from stand and
    /// says when the machine moves (`motion-holdoff`). Without one, the two accelerometers decide
    /// as before. A non-finite time, or an angle outside 0…360, counts as `nil`.
    public mutating func setMeasuredHinge(_ degrees: Double?, at time: Double) -> PostureEvent? {
        guard let degrees, degrees.isFinite, degrees >= 0, degrees <= 360, time.isFinite else {
            measuredHinge = nil
            return nil
        }
        measuredHinge = MeasuredHinge(degrees: degrees, time: time)
        // Decided now only in time order; an angle older than the last sample (the readers run
        // on threads of their own) is used by the next samples.
        guard display.hasReading, time >= lastTime else { return nil }
        lastTime = time
        return decide(at: time)
    }

    // MARK: - The lid switch's facts

    /// `posture` as the lid switch allows it: shut, only closed or tablet (folded back onto the
    /// magnet); open, anything but closed (a lid open a crack is a laptop).
    private func lidAllows(_ posture: Posture) -> Posture {
        switch lidClosed {
        case true?:
            return posture == .tablet || posture == .stand || posture == .tent || (tracked.map { $0 > 180 } ?? false) ? .tablet : .closed
        case false?:
            return posture == .closed ? .laptop : posture
        case nil:
            return posture
        }
    }

    private mutating func startDisagreement() {
        guard !lidDisagreement else { return }
        lidDisagreement = true
        statistics.lidDisagreements += 1
    }

    /// Notes whether a trusted candidate agrees with the switch (``lidDisagreement``).
    private mutating func checkLid(_ candidate: Posture, at t: Double) {
        switch lidClosed {
        case true?:
            if candidate == .closed || candidate == .tablet { lidDisagreement = false } else { startDisagreement() }
        case false?:
            guard candidate == .closed else {
                openConflictSince = nil
                lidDisagreement = false
                return
            }
            let since = openConflictSince ?? t
            openConflictSince = since
            if t - since >= configuration.settleTime - Self.timeSlack { startDisagreement() }
        case nil:
            lidDisagreement = false
        }
    }

    private mutating func setHold(_ reason: PostureHold?, at t: Double) {
        // One hold however often its reason changes (vertical, then moving while laid down).
        if reason == nil {
            holdSince = nil
        } else if holdSince == nil {
            holdSince = t
        }
        hold = reason
    }

    // MARK: - Deciding

    private mutating func decide(at t: Double) -> PostureEvent? {
        let c = configuration
        if let measured = measuredHinge, abs(t - measured.time) <= c.pairingWindow, display.hasReading,
           abs(t - display.lastTime) <= c.pairingWindow {
            return decide(measured: measured.degrees, at: t)
        }
        guard display.hasReading, base.hasReading,
              abs(t - display.lastTime) <= c.pairingWindow, abs(t - base.lastTime) <= c.pairingWindow else {
            return held(.waitingForSensors, at: t)
        }
        let d = display.fast, b = base.fast
        guard let angle = HingeAngle.measure(display: d, base: b, edge: c.hingeEdge) else {
            return held(.hingeVertical, at: t)
        }
        rawHingeAngle = angle.degrees
        statistics.pairs += 1

        // Follow the path with a coarse test: continuity needs every angle that is roughly
        // right, including those taken while the lid turns.
        // (Starting a path, or taking one up again after it was lost, needs a trustworthy angle:
        // near the track margin the angle is noise, and one that lands clear of 0/360 by chance
        // would resolve closed against folded back wrongly.)
        // The two readings were taken apart in time (separate chips; a governed reader reads
        // every 0.4 s): while a half turns, the pair mixes its old position with the other's
        // new one and the angle is anything. The pair describes one instant only while the
        // rotation over the gap between them, at the faster sensor's rate of turn, moves the
        // angle by at most ``pairTolerance``.
        // A turn concentrated between two readings (a quick fold) is underestimated by the mean
        // rate, so a half that turned by more than twice that tolerance in its last step makes
        // the pair unusable whatever the gap.
        let skew = abs(display.lastTime - base.lastTime)
        let coherent = max(display.turn, base.turn) * skew * degreesPerRadian <= Self.pairTolerance
            && max(display.stepTurn, base.stepTurn) * degreesPerRadian <= 2 * Self.pairTolerance
        let dm = display.magnitude, bm = base.magnitude
        let accurate = angle.clearance >= sinHingeVertical
            && abs(dm - c.gravity) <= c.accelerationTolerance && abs(bm - c.gravity) <= c.accelerationTolerance
        var outcome = FollowOutcome.refused
        if angle.clearance >= sinTrackVertical, abs(dm - c.gravity) <= c.gravity / 2, abs(bm - c.gravity) <= c.gravity / 2 {
            if coherent {
                let still = t - display.movingTime >= c.motionHoldoff - Self.timeSlack && t - base.movingTime >= c.motionHoldoff - Self.timeSlack
                outcome = follow(angle.degrees, at: t, accurate: accurate, still: still)
            }
            // A pair the path did not take breaks its continuity until one is taken.
            if outcome != .taken, tracked != nil { pathBroken = true }
        }
        let followed = outcome == .taken
        if followed {
            noteSteadiness(at: t)
        } else if outcome != .beyondEnd {
            steadyRange = nil
        }
        // The hinge steady for `motion-holdoff`: the angles the path took since then all within
        // ``steadinessSpan``.
        let steady = (followed || outcome == .beyondEnd) && steadyRange != nil && t - steadySince >= c.motionHoldoff - Self.timeSlack

        if angle.clearance < sinHingeVertical { return held(.hingeVertical, at: t) }
        // A half turning holds the decision; one accelerating holds it only while the hinge
        // angle is not steady: a hand's tremor, sway or step moves both halves together and
        // leaves the angle where it was (docs/DETECTOR.md, "Deciding on the hinge's
        // steadiness").
        if t - display.turningTime < c.motionHoldoff - Self.timeSlack || (t - display.movingTime < c.motionHoldoff - Self.timeSlack && !steady) {
            return held(.displayMoving, at: t)
        }
        if t - base.turningTime < c.motionHoldoff - Self.timeSlack || (t - base.movingTime < c.motionHoldoff - Self.timeSlack && !steady) {
            return held(.baseMoving, at: t)
        }
        if outcome == .beyondEnd {
            // An angle past 0…360 by more than the band, not trustworthy (a machine in hands):
            // noise in the angle, not a move of the hinge. It neither decides nor restarts the
            // decision.
            return nil
        }
        if !followed, tracked != nil, trackedTime < t, t - trackedTime <= c.pathMemory {
            // The path did not take this angle (a pair apart in time, a step the hinge cannot
            // make): something is still moving fast.
            return held(display.turn >= base.turn ? .displayMoving : .baseMoving, at: t)
        }
        guard let theta = tracked else {
            setHold(.closedOrFoldedBack, at: t)
            return settle(lidAllows(.unknown), at: t)
        }
        setHold(nil, at: t)
        statistics.trusted += 1
        guard let candidate = candidate(theta, display: d * (1 / dm)) else {
            pending = nil
            return nil
        }
        checkLid(candidate, at: t)
        return settle(lidAllows(candidate), at: t)
    }

    /// A decision from the machine's own hinge angle (``setMeasuredHinge(_:at:)``).
    private mutating func decide(measured degrees: Double, at t: Double) -> PostureEvent? {
        let c = configuration
        rawHingeAngle = degrees.truncatingRemainder(dividingBy: 360)
        tracked = degrees
        trackedTime = t
        if t - display.movingTime < c.motionHoldoff - Self.timeSlack { return held(.displayMoving, at: t) }
        if base.hasReading, abs(t - base.lastTime) <= c.pairingWindow, t - base.movingTime < c.motionHoldoff - Self.timeSlack { return held(.baseMoving, at: t) }
        setHold(nil, at: t)
        statistics.trusted += 1
        let dm = display.magnitude
        guard dm > 0, let candidate = candidate(degrees, display: display.fast * (1 / dm)) else {
            pending = nil
            return nil
        }
        checkLid(candidate, at: t)
        return settle(lidAllows(candidate), at: t)
    }

    /// The widest the angles of a steady hinge may spread (degrees): `hysteresis` on either
    /// side, the dead band by which a posture is kept and entered. Over `motion-holdoff` +
    /// `settle-time` that is a hinge turning slower than 40°/s, the scale of `turn-rate`.
    var steadinessSpan: Double { 2 * configuration.hysteresis }

    /// Adds the angle the path just took to the stretch of steady angles, or starts a new
    /// stretch with it when it falls outside ``steadinessSpan``. The angle is taken within
    /// 0…360 (``hingeAngle``): a hinge turns no further, so a path a little past either end
    /// (by noise, within `closed-folded-band`) puts the hinge at that end.
    private mutating func noteSteadiness(at t: Double) {
        guard let theta = hingeAngle else {
            steadyRange = nil
            return
        }
        if let range = steadyRange, max(range.high, theta) - min(range.low, theta) <= steadinessSpan {
            steadyRange = (min(range.low, theta), max(range.high, theta))
        } else {
            steadyRange = (theta, theta)
            steadySince = t
        }
    }

    /// Keeps the published posture and says why.
    private mutating func held(_ reason: PostureHold, at t: Double) -> PostureEvent? {
        setHold(reason, at: t)
        pending = nil
        return nil
    }

    private mutating func settle(_ candidate: Posture, at t: Double) -> PostureEvent? {
        guard candidate != posture else {
            pending = nil
            return nil
        }
        if candidate != pending {
            pending = candidate
            pendingSince = t
        }
        guard t - pendingSince >= configuration.settleTime - Self.timeSlack else { return nil }
        return publish(candidate, at: t)
    }

    private mutating func publish(_ new: Posture, at t: Double) -> PostureEvent {
        let event = PostureEvent(time: t, posture: new, previous: posture, hingeAngle: new == .unknown ? nil : hingeAngle)
        posture = new
        pending = nil
        statistics.events += 1
        return event
    }

    // MARK: - The path: 0° against 360°

    /// The most a pair of readings taken apart in time may be off (degrees): a quarter of the
    /// way to the 180° where the path could not tell which way round the hinge went.
    static let pairTolerance = 45.0

    /// How much shorter than `motion-holdoff` or `settle-time` an interval between two readings
    /// may be and still count as lasting it (seconds): sample times are sums and products of
    /// periods in floating point (or nanoseconds turned into seconds), so two readings exactly
    /// one `motion-holdoff` apart came out 0.19999999999999973 s apart and the window waited a
    /// whole reading more (0.4 s at a governed 2.5 Hz). A microsecond is far below any
    /// sample spacing.
    static let timeSlack = 1e-6

    private func isInBand(_ raw: Double) -> Bool {
        raw <= configuration.closedFoldedBand || raw >= 360 - configuration.closedFoldedBand
    }

    /// What the path did with a pair's angle.
    enum FollowOutcome {
        /// Taken: the path is at this angle now.
        case taken
        /// Not taken: the pair is mixed, the step one the hinge cannot make, or the path lost.
        case refused
        /// Not taken: past 0…360 by more than `closed-folded-band`, from a pair that is not
        /// trustworthy (noise in the angle, not a move).
        case beyondEnd
    }

    /// Continues the path with a new raw angle in [0, 360); `accurate` says whether the angle
    /// would also be trusted for a decision.
    private mutating func follow(_ raw: Double, at t: Double, accurate: Bool, still: Bool) -> FollowOutcome {
        let band = configuration.closedFoldedBand
        let inBand = isInBand(raw)
        let lost = tracked == nil || t - trackedTime > configuration.pathMemory
        guard accurate || !lost else { return .refused }
        // The lid switch tells where the path cannot: none yet, or lost.
        if inBand, lost, let lid = lidClosed {
            tracked = lid ? (raw > 180 ? raw - 360 : raw) : (raw < 180 ? raw + 360 : raw)
            trackedTime = t
            return .taken
        }
        guard let previous = tracked else {
            // No path: an angle clear of 0/360 is unique; one near it stays unresolved.
            tracked = inBand ? nil : raw
            trackedTime = t
            return .taken
        }
        var next = raw + 360 * ((previous - raw) / 360).rounded()
        if inBand, lost ? abs(next - previous) > band : pathBroken && abs(next - previous) > 90 {
            // The path was lost (older than path-memory: a hinge found farther from where it was
            // left than noise and play explain turned unseen, by any amount), or pairs were
            // skipped while the hinge turned (it could have turned unseen, by more than 90°),
            // and it could be either. Where the hinge last lay still (within path-memory) is
            // within 90° of one side, that side (the other is 270° away: a tent folded to a
            // tablet between two readings); else the lid switch says which (open: folded back;
            // shut: closed); else it is not known.
            if !lost, let anchor, t - anchor.time <= configuration.pathMemory {
                let nearAnchor = raw + 360 * ((anchor.degrees - raw) / 360).rounded()
                if abs(nearAnchor - anchor.degrees) <= 90 {
                    tracked = nearAnchor
                    trackedTime = t
                    pathBroken = false
                    return .taken
                }
            }
            tracked = lidClosed.map { $0 ? (raw > 180 ? raw - 360 : raw) : (raw < 180 ? raw + 360 : raw) }
            trackedTime = t
            pathBroken = false
            return .taken
        }
        if !lost, !still, abs(next - previous) > 90 {
            // Taken while a half moves, a pair that far from the path is more likely one mixing
            // a half's old position with the other's new one than a real turn: not taken. (A
            // still pair takes it, if the time allows: below.)
            return .refused
        }
        if !lost, abs(next - previous) > configuration.hingeSpeed * (t - trackedTime) + band {
            // Farther than a hinge turns in the time since the last angle taken: not this
            // hinge's angle (a glitch). A real jump (a lid slammed between two readings) is taken
            // a reading or two later, when the time allows it.
            return .refused
        }
        // A hinge turns within 0…360: a path beyond either end by more than the band was
        // resolved wrongly (a path lost); a trustworthy reading, unique, wins. A coarse one
        // there is noise (taken near the track margin): it does not move the path.
        if next < -band || next > 360 + band {
            guard accurate, still else { return .beyondEnd }
            next += next < -band ? 360 : -360
        }
        tracked = next
        trackedTime = t
        pathBroken = false
        if still, accurate { anchor = (next, t) }
        return .taken
    }

    // MARK: - Postures

    /// The posture hinge angle `theta` (unwrapped) points to, with hysteresis against the
    /// published one; `nil` inside a dead band entered from outside.
    private func candidate(_ theta: Double, display direction: Vector3) -> Posture? {
        let c = configuration
        let h = c.hysteresis / 2
        // The zones by angle, 0…4 (no array: this runs for every trusted sample); tent and stand
        // share zone 3 and are told apart by how the display hangs.
        func lower(_ zone: Int) -> Double {
            switch zone {
            case 0: -.infinity
            case 1: c.closedAngle
            case 2: c.flatLowerAngle
            case 3: c.flatUpperAngle
            default: c.tabletAngle
            }
        }
        func upper(_ zone: Int) -> Double { zone == 4 ? .infinity : lower(zone + 1) }
        let current: Int? = switch posture {
        case .closed: 0
        case .laptop: 1
        case .flat: 2
        case .tent, .stand: 3
        case .tablet: 4
        case .unknown: nil
        }
        var zone = -1
        if let current, theta >= lower(current) - h, theta < upper(current) + h {
            zone = current
        } else {
            for inner in 0...4 where theta >= lower(inner) + h && theta < upper(inner) - h {
                zone = inner
            }
        }
        guard zone >= 0 else { return nil }
        switch zone {
        case 0: return .closed
        case 1: return .laptop
        case 2: return .flat
        case 4: return .tablet
        default:
            // How far the display's hinge edge is below horizontal (sine): down for stand, up
            // for tent.
            let s = direction.dot(c.hingeEdge.towardHinge)
            if s >= sinTentStand { return .stand }
            if s <= -sinTentStand { return .tent }
            return posture == .tent || posture == .stand ? posture : nil
        }
    }
}

extension PostureDetector {
    /// What the detector saw: the input counts every detector keeps (``SampleCounts``, read
    /// through as `statistics.samples`, …), and the posture detector's own.
    @dynamicMemberLookup
    public struct Statistics: Hashable, Sendable {
        /// Samples, ignored samples, filter restarts and events, counted as the orientation
        /// detector counts them.
        public var counts = SampleCounts()
        /// Samples that found a fresh reading of the other sensor and gave a hinge angle.
        public var pairs = 0
        /// Samples whose hinge angle was trusted for a decision.
        public var trusted = 0
        /// Episodes of the lid switch and the angle disagreeing (``PostureDetector/lidDisagreement``).
        public var lidDisagreements = 0

        public subscript(dynamicMember path: WritableKeyPath<SampleCounts, Int>) -> Int {
            get { counts[keyPath: path] }
            set { counts[keyPath: path] = newValue }
        }
    }

    /// One sensor's filter and motion state.
    struct SensorTrack: Sendable {
        var hasReading = false
        var lastTime = -Double.infinity
        /// The low-passed reading.
        var fast = Vector3.zero
        var magnitude = 0.0
        /// The reading's direction low-passed once more: its distance from the filtered
        /// direction is about the direction's rate of turn times the time constant.
        var lag = Vector3.zero
        /// The last time this sensor was accelerating or turning.
        var movingTime = -Double.infinity
        /// The last time this sensor turned: its direction moved faster than `turn-rate` between
        /// two readings that each read 1 g (within `acceleration-tolerance`), so a rotation, not
        /// a linear acceleration pulling the reading aside.
        var turningTime = -Double.infinity
        /// Whether the last raw reading was within `acceleration-tolerance` of 1 g.
        var rawNearGravity = false
        /// The direction of the last raw reading, and the rate it turned from the one before
        /// (radians per second; 0 after a restart): how fast this half turns now.
        var rawDirection = Vector3.zero
        var turn = 0.0
        /// The angle (radians) the raw reading turned by in the last step.
        var stepTurn = 0.0
        /// The filtered reading's direction (zero before any).
        var direction: Vector3 { magnitude > 0 ? fast * (1 / magnitude) : .zero }
        /// The sample spacing the cached gain and chord are for.
        var spacing = -Double.infinity
        var gain = 0.0
        var turnChordSquared = 0.0

        mutating func add(_ a: Vector3, at t: Double, configuration c: Configuration, turnRate: Double,
                          statistics: inout Statistics) {
            let dt = t - lastTime
            if !hasReading || dt < 0 || dt > c.gapReset {
                if hasReading {
                    if dt < 0 { statistics.timeReversals += 1 } else { statistics.gapResets += 1 }
                }
                hasReading = true
                fast = a
                magnitude = a.length
                lag = a * (1 / magnitude)
                rawDirection = lag
                turn = 0
                stepTurn = 0
                lastTime = t
                // A fresh filter has no history to say it is still: count it as just moved.
                movingTime = t
                turningTime = t
                rawNearGravity = abs(magnitude - c.gravity) <= c.accelerationTolerance
                return
            }
            lastTime = t
            guard dt > 0 else { return }
            let nearGravity = abs(a.length - c.gravity) <= c.accelerationTolerance
            defer { rawNearGravity = nearGravity }
            let rawNow = a * (1 / a.length)
            let cosine = max(-1, min(1, rawNow.dot(rawDirection)))
            stepTurn = cMath_acos(cosine)
            turn = stepTurn / dt
            rawDirection = rawNow
            if abs(dt - spacing) > spacing * 1e-6 {
                // Exact exponential smoothing for this spacing; computed again only when the
                // spacing changes. A steady turn at rate ω leaves the twice-filtered direction
                // ω·Δt·(1 − α)/α behind the once-filtered one.
                spacing = dt
                gain = -cMath_expm1(-dt / c.filterTimeConstant)
                let chord = turnRate * dt * (1 - gain) / gain
                turnChordSquared = chord * chord
            }
            fast += (a - fast) * gain
            magnitude = fast.length
            guard magnitude > 0 else {
                // Opposite readings cancelled exactly: no direction, surely not still.
                movingTime = t
                turningTime = t
                return
            }
            let direction = fast * (1 / magnitude)
            lag += (direction - lag) * gain
            // Turning: the twice-filtered direction lags the filtered one by the rate of turn times
            // the time constant, and the last step itself turned that fast. (The lag alone decays
            // as t·e^(−t/τ) after a large turn ends, so it called a machine laid down moving for
            // 0.5 s after it stopped; the step's own rate says when the turn is over.)
            let turning = (direction - lag).lengthSquared >= turnChordSquared && turn >= turnRate
            if abs(magnitude - c.gravity) > c.accelerationTolerance || turning {
                movingTime = t
            }
            if turning, nearGravity, rawNearGravity { turningTime = t }
        }
    }
}
