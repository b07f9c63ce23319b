import Logging
import OrientationCore
import OwnerThreads
import PostureCore
import SensorIIO
import SensorInput
import SensorLifecycle
import SensorPipeline
import Synchronization

/// A convertible's posture as the daemon serves it (issue 30): while someone wants it (a socket
/// subscriber of the `posture` topic, the virtual tablet-mode switch), the display
/// accelerometer's readings (tapped from the orientation pipeline: a buffered IIO device cannot be
/// opened twice, ``SampleTap``) and the base accelerometer's (opened here through its backend
/// row, ``DiscoveringAccelerometerSource/openBase(consumer:)``) are put in time order
/// (``PostureSampleMerger``) and fed to a ``PostureDetector``; each change of the
/// ``PostureState`` goes to `onChange`.
///
/// Opening and closing are its ``ClaimedSensor``'s (``lifecycle``), the lifecycle every sensor
/// kind shares (issue 36; docs/ARCHITECTURE.md §10): level-triggered claims
/// (``setClaimed(_:_:)``) and presence (``setPresent(_:)``), the release delay, one open at a
/// time (the base reader's task has ended before the next one starts). This type is the session.
/// - **Throttled logs**: an open, the base's "opened" line and the "posture unavailable"
///   warning are each logged at most once per ``logInterval`` seconds (the rest counted).
/// - **No callback or log write under the lock**: `onChange` goes through a ``CallbackQueue`` in
///   the order of the changes. Lock order: this service's lock, then the queue's.
///
/// While open, the display accelerometer is claimed as ``claimer`` on the pipeline's sensor (so
/// it is open and read at its full rate), and the published state says `present`. A base reader
/// that fails is logged and dropped; the next claim or hotplug event opens it again. Closing
/// publishes `unknown` (nothing is measured then) with the hold `waiting-for-sensors`.
public final class PostureService: Sendable {
    /// The name this service claims the display accelerometer under (``SensorPipeline/sensor``).
    public static let claimer = "posture"
    /// At most one "opened" line per this many seconds (the rest are counted).
    public static let logInterval = 10.0
    /// Seconds the sensors stay open after the last claim goes.
    public var releaseDelay: Double { lifecycle.releaseDelay }
    /// The posture's claims, presence and open/close loop.
    public let lifecycle: ClaimedSensor

    private struct Inner {
        var present = false
        var state = PostureState()
        /// The open session's generation (0: none): readings of an older one are dropped.
        var generation = 0
        var detector: PostureDetector
        /// What the published state is made of: the detector's last decision and the machine's
        /// tablet-mode switch (``PostureStateRule``).
        var rule = PostureStateRule()
        var merger: PostureSampleMerger
        var baseNormalizer = GravityNormalizer()
        /// How long each reader may wait before its next reading, and whether the detector
        /// needs the reading: slow while the posture is settled and that sensor lies still,
        /// parked while every reader does (``PostureReadingPace``), full rate otherwise.
        var pace: PostureReadingPace
        /// How to make the base's and the hinge's readers read at once (the display moved while
        /// parked); `nil` for a reader that cannot be woken or is not open.
        var wakeBase: (@Sendable () -> Void)? = nil
        var wakeHinge: (@Sendable () -> Void)? = nil
        var openLog = LogThrottle(interval: PostureService.logInterval)
        /// The base's "opened" line and the "posture unavailable" warning: through the same
        /// throttle as the open line (issue 38: a base opened just past the release delay, or
        /// one that fails at every attempt, logged a line per attempt).
        var baseLog = LogThrottle(interval: PostureService.logInterval)
        var failureLog = LogThrottle(interval: PostureService.logInterval)
        /// How many lid disagreements have been logged (each episode once).
        var lidDisagreementsLogged = 0
    }

    private let inner: Mutex<Inner>
    /// The still-interval both readers follow (``SampleRateGovernor``); `nil`: the source's
    /// `[sensor] still-interval`, read at each open (a reload changes it).
    private let rateGovernor: SampleRateGovernor.Configuration?
    private let source: DiscoveringAccelerometerSource
    private let tap: SampleTap
    /// The display accelerometer's lifecycle, claimed while the posture is read.
    private let display: ClaimedSensor
    private let logger: Logger
    private let sleeper: Sleeper
    private let onChange: @Sendable (PostureState) -> Void
    private let callbacks = CallbackQueue()

    /// - Parameters:
    ///   - source: finds the base accelerometer and opens it.
    ///   - tap: the orientation pipeline's ``SensorPipeline/sampleTap`` (the display's readings).
    ///   - display: the orientation pipeline's ``SensorPipeline/sensor``, claimed to keep the
    ///     display accelerometer open.
    ///   - lifecycle: the posture's claims, when they must exist before the service (claimers
    ///     made first, such as the virtual tablet-mode switch, whose changes the service's
    ///     `onChange` reports); by default one with `releaseDelay`, not present.
    ///   - onChange: every change of the state, in order, under no lock; must not block.
    /// - Throws: ``ConfigurationError`` for an invalid detector configuration.
    public init(configuration: PostureDetector.Configuration, source: DiscoveringAccelerometerSource, tap: SampleTap,
                display: ClaimedSensor, logger: Logger, sleeper: Sleeper = .task, rateGovernor: SampleRateGovernor.Configuration? = nil,
                releaseDelay: Double = SensorPipeline.defaultReleaseDelay, lifecycle: ClaimedSensor? = nil,
                onChange: @escaping @Sendable (PostureState) -> Void) throws(ConfigurationError) {
        let detector = try PostureDetector(configuration: configuration)
        self.source = source
        self.tap = tap
        self.display = display
        self.logger = logger
        self.sleeper = sleeper
        self.onChange = onChange
        self.rateGovernor = rateGovernor
        let pace = PostureReadingPace(governor: rateGovernor ?? source.rateGovernor, pairingWindow: configuration.pairingWindow)
        inner = Mutex(Inner(detector: detector, merger: PostureSampleMerger(maximumLag: configuration.pairingWindow), pace: pace))
        self.lifecycle = lifecycle ?? ClaimedSensor(releaseDelay: releaseDelay, present: false, sleeper: sleeper)
        self.lifecycle.start { [weak self] generation in await self?.run(generation: generation) ?? .closed }
    }

    /// The state now.
    public var state: PostureState { inner.withLock { $0.state } }

    /// Whether the base accelerometer is open now.
    public var isReading: Bool { lifecycle.status.isOpen }

    /// How the readers are paced now: parked or not, how often (issue 37).
    public var readingPace: PostureReadingPace { inner.withLock { $0.pace } }

    /// How many times the base accelerometer was opened: what claim loops are measured by.
    public var opens: Int { lifecycle.status.opens }

    /// Records whether `claimer` (`"socket"`, `"tablet-mode-switch"`) wants the posture.
    public func setClaimed(_ claimer: String, _ claimed: Bool) {
        lifecycle.setClaimed(claimer, claimed)
    }

    /// Whether the posture can be measured: discovery finds a display accelerometer and a base
    /// accelerometer or a hinge-angle channel (at start and at every hotplug event; a hotplug
    /// event also lets a failed base reader be tried again).
    public func setPresent(_ present: Bool) {
        inner.withLock { inner in
            inner.present = present
            if inner.state.present != present {
                var state = inner.state
                state.present = present
                if !present { state = PostureState(present: false) }
                publish(state, &inner)
            }
        }
        callbacks.drain()
        lifecycle.setPresent(present)
    }

    /// Uses `configuration` from now on (a reload): a fresh detector, at once if the sensors are
    /// open (what the old one had decided is published again by the new one within its settle
    /// time).
    /// - Throws: ``ConfigurationError`` for an invalid configuration; nothing changes then.
    public func reconfigure(_ configuration: PostureDetector.Configuration) throws(ConfigurationError) {
        let detector = try PostureDetector(configuration: configuration)
        let wake = inner.withLock { inner -> [@Sendable () -> Void] in
            guard inner.detector.configuration != configuration else { return [] }
            inner.detector = detector
            inner.lidDisagreementsLogged = 0
            inner.merger = PostureSampleMerger(maximumLag: configuration.pairingWindow)
            guard inner.generation != 0 else { return [] }
            resetDetector(&inner)
            let wake = unpark(&inner)
            inner.pace.reconfigure(governor: rateGovernor ?? source.rateGovernor, pairingWindow: configuration.pairingWindow)
            return wake
        }
        for reader in wake { reader() }
        callbacks.drain()
    }

    /// Closes the sensors and waits for the base reader's end (shutdown).
    public func stop() async {
        await lifecycle.stop()
        callbacks.drain()
    }

    private func resetDetector(_ inner: inout Inner) {
        inner.detector.reset()
        inner.rule = PostureStateRule()
        _ = inner.merger.flush()
        inner.baseNormalizer = GravityNormalizer()
        publish(PostureState(present: inner.present, posture: .unknown, hingeAngle: nil, hold: .waitingForSensors), &inner)
    }

    private func logOpen() {
        let (log, suppressed) = inner.withLock { $0.openLog.admit(now: Self.now()) }
        let opens = lifecycle.status.opens
        guard log else { return }
        logger.info("opening the posture's accelerometers", metadata: ["opens": "\(opens)", "opens-not-logged": "\(suppressed)"])
    }

    // MARK: The readers

    /// The base reader's task: opens the lid and tablet-mode switches and the hinge angle (where
    /// there are), the base, claims the display accelerometer and taps its readings where an
    /// angle is measured, and reads until cancelled or the base fails; then undoes all of it.
    private func run(generation: Int) async -> ClaimedSensor.Ending {
        // Every reader starts at full rate, slowing to at most 80 % of the pairing window
        // between two readings of a still sensor (the other's latest must stay fresh enough to
        // pair with), parked once all lie still, from the settings of now.
        inner.withLock { inner in
            inner.generation = generation
            inner.pace = PostureReadingPace(governor: rateGovernor ?? source.rateGovernor,
                                            pairingWindow: inner.detector.configuration.pairingWindow)
            inner.wakeBase = nil
            inner.wakeHinge = nil
        }
        logOpen()
        // The switches and the hinge, through the backend table, in one discovery (on an owner
        // thread: libudev blocks).
        let found = await OwnerThread.run(name: "od-udev-scan") { try? SensorBackends.discover([.switches, .hinge]) } ?? nil
        let lid = startLidSwitch(found?.lidSwitch, generation: generation)
        let tabletMode = startTabletModeSwitch(found?.realTabletModeSwitches.first, generation: generation)
        let hinge = startHingeAngle(found?.usableHinge, generation: generation)
        func readDisplay() {
            inner.withLock { $0.pace.add(.display, wakeable: true) }
            display.setClaimed(Self.claimer, true)
            tap.set { [weak self] sample in self?.take(sample, .display, generation: generation) }
        }
        var failure: String? = nil
        var baseID: String? = nil
        do {
            guard let (stream, base, _) = try await source.openBase(consumer: BaseConsumer(service: self, generation: generation)) else {
                // No base: the machine's hinge angle and the display's accelerometer are enough;
                // with neither, its tablet-mode switch alone (the display is not read for it).
                if hinge != nil { readDisplay() } else if tabletMode == nil { throw PostureUnavailable() }
                while !Task.isCancelled { try await sleeper.sleep(seconds: 3600) }
                throw CancellationError()
            }
            readDisplay()
            baseID = base.id
            let (log, suppressed) = inner.withLock { $0.baseLog.admit(now: Self.now()) }
            if log {
                logger.info("base accelerometer opened", metadata: ["device": "\(base.id)", "name": "\(base.name)",
                                                                    "lid-switch": "\(lid?.node ?? "none")", "not-logged": "\(suppressed)"])
            }
            do {
                while try await stream.next() != nil {}
                if !Task.isCancelled { failure = "the base accelerometer's stream ended" }
            } catch is CancellationError {
            } catch {
                failure = "\(error)"
            }
            await stream.close()
        } catch is CancellationError {
        } catch {
            failure = "cannot open the base accelerometer: \(error)"
        }
        tap.set(nil)
        inner.withLock { inner in
            guard inner.generation == generation else { return }
            inner.wakeBase = nil
            inner.wakeHinge = nil
        }
        await lid?.stop()
        await tabletMode?.stop()
        await hinge?.stop()
        display.setClaimed(Self.claimer, false)
        // A buffer that delivered nothing is read polled next (as the display's is): at once.
        let retriesPolled = failure != nil && baseID.map { source.readsPolledNext($0) } == true
        let cancelled = Task.isCancelled
        inner.withLock { inner in
            if inner.generation == generation { inner.generation = 0 }
            resetDetector(&inner)
        }
        callbacks.drain()
        if cancelled { return .closed }
        if retriesPolled { return .reopen }
        // Ended by itself: a failure. Nothing reopens it until a claim or hotplug event.
        let reason = failure ?? "the posture's readers ended"
        let (log, suppressed) = inner.withLock { $0.failureLog.admit(now: Self.now()) }
        if log {
            logger.warning("posture unavailable; it is tried again at the next claim or hotplug event",
                           metadata: ["reason": "\(reason)", "not-logged": "\(suppressed)"])
        }
        return .failed(reason)
    }

    /// The lid switch (`SW_LID`, ACPI's `Lid Switch`), read while the posture is: what tells a
    /// shut lid from one folded all the way back when the halves lie together.
    private func startLidSwitch(_ device: InputSwitchDevice?, generation: Int) -> InputSwitchReader? {
        startSwitch(.lid, "lid switch", on: device) { [weak self] closed, time in
            self?.lidChanged(closed: closed, at: time, generation: generation)
        }
    }

    /// The machine's own tablet-mode switch (`SW_TABLET_MODE`), read while the posture is: on a
    /// convertible with one accelerometer it is the posture (``TabletModeSwitchRule``); beside a
    /// measured angle, it says folded or not and the angle says which.
    /// (Not orientationd's own virtual switch: ``InputSwitchDevice/isOrientationdTabletModeSwitch``.)
    private func startTabletModeSwitch(_ device: InputSwitchDevice?, generation: Int) -> InputSwitchReader? {
        startSwitch(.tabletMode, "tablet-mode switch", on: device) { [weak self] on, _ in
            self?.tabletModeChanged(on: on, generation: generation)
        }
    }

    /// Starts a reader of switch `code` on `device`. `nil` where there is none or its reader
    /// cannot start (said in the log); a reader that stops later is said too, and posture goes
    /// on without it.
    private func startSwitch(_ code: InputSwitchCode, _ noun: String, on device: InputSwitchDevice?,
                             onChange: @escaping @Sendable (_ on: Bool, _ time: Double) -> Void) -> InputSwitchReader? {
        guard let device else { return nil }
        let reader = InputSwitchReader(node: device.node, code: code, onChange: { onChange($0.isOn, $0.time) }, onEnd: { [logger] failure in
            if let failure { logger.warning("the \(noun) stopped; posture goes on without it", metadata: ["reason": "\(failure)"]) }
        })
        do { try reader.start() } catch {
            logger.warning("cannot read the \(noun)", metadata: ["device": "\(device.node)", "error": "\(error)"])
            return nil
        }
        if code == .tabletMode {
            logger.info("reading the machine's \(noun)", metadata: ["device": "\(device.node)", "name": "\(device.name ?? device.id)"])
        }
        return reader
    }

    /// The tablet-mode switch changed (or was read at open), on its reader's thread.
    private func tabletModeChanged(on: Bool, generation: Int) {
        inner.withLock { inner in
            guard inner.generation == generation else { return }
            inner.rule.tabletMode = on
            record(nil, &inner)
        }
        callbacks.drain()
    }

    /// The machine's own hinge angle (`in_angl*`: cros-ec's lid angle, the HID hinge sensor),
    /// read every 0.1 s while the posture is: where there is one it decides the angle
    /// (``PostureDetector/setMeasuredHinge(_:at:)``). `nil` where there is none.
    private func startHingeAngle(_ channel: HingeAngleChannel?, generation: Int) -> HingeAngleReader? {
        guard let channel else { return nil }
        let reader = HingeAngleReader(channel: channel, onReading: { [weak self] reading in
            self?.hingeMeasured(reading.degrees, at: reading.time, generation: generation)
        }, onEnd: { [logger] failure in
            if let failure { logger.warning("the hinge angle stopped; posture goes on without it", metadata: ["reason": "\(failure)"]) }
        })
        do { try reader.start() } catch {
            logger.warning("cannot read the hinge angle", metadata: ["device": "\(channel.id)", "error": "\(error)"])
            return nil
        }
        inner.withLock { inner in
            guard inner.generation == generation else { return }
            inner.pace.add(.hinge, wakeable: true)
            inner.wakeHinge = { reader.wake() }
        }
        logger.info("reading the machine's hinge angle", metadata: ["device": "\(channel.id)", "driver": "\(channel.driver.rawValue)"])
        return reader
    }

    /// A reading of the machine's hinge angle, on its reader's thread; returns how long its
    /// reader may wait before the next (`nil`: its full rate).
    private func hingeMeasured(_ degrees: Double?, at time: Double, generation: Int) -> Double? {
        let wait = inner.withLock { inner -> Double? in
            guard inner.generation == generation else { return nil }
            var pace = inner.pace
            let decision = pace.takeHinge(degrees, at: time) {
                record(inner.detector.setMeasuredHinge(degrees, at: time), &inner)
                return inner.detector.isSettled
            }
            inner.pace = pace
            return decision.wait
        }
        callbacks.drain()
        return wait
    }

    /// The lid switch changed (or was read at open), on its reader's thread.
    private func lidChanged(closed: Bool, at time: Double, generation: Int) {
        let wake = inner.withLock { inner -> [@Sendable () -> Void] in
            guard inner.generation == generation else { return [] }
            record(inner.detector.setLidSwitch(closed: closed, at: time), &inner)
            return unpark(&inner)
        }
        for reader in wake { reader() }
        callbacks.drain()
    }

    /// The detector needs readings again (the lid switch moved, a new configuration): stops a
    /// parked pace; returns the parked readers to wake (after the lock).
    private func unpark(_ inner: inout Inner) -> [@Sendable () -> Void] {
        inner.pace.unpark() ? [inner.wakeBase, inner.wakeHinge].compactMap { $0 } : []
    }

    /// One reading of either accelerometer, on its reader's thread; returns how long that reader
    /// may wait before its next one (`nil`: its full rate).
    fileprivate func take(_ sample: Sample, _ location: PostureSample.Location, generation: Int) -> Double? {
        let (wait, wake) = inner.withLock { inner -> (Double?, [@Sendable () -> Void]) in
            guard inner.generation == generation else { return (nil, []) }
            // The pace decides whether the detector needs the reading (not while parked and
            // still) and, after it has seen it, how long this reader may wait: slow only while
            // it is settled and every sensor lies still (one moving wakes the others at their
            // next reading, or at once when parked, so the merger never waits long for one).
            var pace = inner.pace
            let decision = pace.take(sample, from: location == .display ? .display : .base) {
                let reading = location == .base ? inner.baseNormalizer.normalize(sample) : sample
                for merged in inner.merger.push(PostureSample(time: reading.time, location: location, acceleration: reading.acceleration)) {
                    record(inner.detector.process(merged), &inner)
                }
                return inner.detector.isSettled
            }
            inner.pace = pace
            return (decision.wait, decision.wakeOthers ? [inner.wakeBase, inner.wakeHinge].compactMap { $0 } : [])
        }
        for reader in wake { reader() }
        callbacks.drain()
        return wait
    }

    /// The base's reader can be woken early (a polled one): the pace may park it.
    fileprivate func baseCanBeWoken(by wake: @escaping @Sendable () -> Void, generation: Int) {
        inner.withLock { inner in
            guard inner.generation == generation else { return }
            inner.pace.add(.base, wakeable: true)
            inner.wakeBase = wake
        }
    }

    /// What the detector said after one input: a decided posture goes out when it changes;
    /// while it is unknown, why (the hold) goes out too, so a client can say what the machine
    /// waits for. Otherwise the state is kept for `get` without telling anyone.
    ///
    /// The state kept for `get` carries the hinge angle the detector believes now (issue 40: not
    /// the one of the decision) and how long the posture has been held (issue 38); an event
    /// carries the angle it was decided at. A new disagreement of the lid switch with the angle
    /// is logged once (``PostureDetector/lidDisagreement``).
    private func record(_ event: PostureEvent?, _ inner: inout Inner) {
        let detector = inner.detector
        let (state, publishes) = inner.rule.next(after: event, detector: detector, previous: inner.state)
        if detector.statistics.lidDisagreements > inner.lidDisagreementsLogged {
            inner.lidDisagreementsLogged = detector.statistics.lidDisagreements
            let closed = detector.lidClosed, angle = detector.hingeAngle ?? detector.rawHingeAngle
            callbacks.enqueue { [logger] in
                logger.notice("the lid switch and the hinge angle disagree; the switch wins",
                              metadata: ["lid": "\(closed == true ? "shut" : "open")",
                                         "hinge": "\(angle.map { String(Int($0.rounded())) } ?? "none")"])
            }
        }
        if publishes {
            publish(state, &inner)
        } else {
            inner.state = state
        }
    }

    private func publish(_ state: PostureState, _ inner: inout Inner) {
        guard state != inner.state else { return }
        inner.state = state
        callbacks.enqueue { [onChange] in onChange(state) }
    }

    private static func now() -> Double { OwnerThread.monotonic() }

    /// Neither a base accelerometer, a hinge angle nor a tablet-mode switch (anymore).
    private struct PostureUnavailable: Error, CustomStringConvertible {
        var description: String { "no base accelerometer, hinge angle or tablet-mode switch" }
    }

    /// The base accelerometer's readings, on its reader's thread, at the reader's full rate.
    private struct BaseConsumer: SampleConsumer {
        let service: PostureService
        let generation: Int

        func consume(_ sample: Sample) -> Double? {
            service.take(sample, .base, generation: generation)
        }

        func readerCanBeWoken(by wake: @escaping @Sendable () -> Void) {
            service.baseCanBeWoken(by: wake, generation: generation)
        }
    }
}
