import Synchronization

/// One sensor's lifecycle as the daemon serves it, whatever its kind (issue 36): who claims it,
/// whether discovery finds it, the release delay, and the one loop that opens and closes it.
/// The orientation pipeline, each light, proximity and compass sensor, a convertible's posture
/// and orientationd's virtual tablet-mode switch are each one of these plus what their kind
/// does with an open sensor (the *session*).
///
/// ```
///  claimers ─ setClaimed ─┐
///  discovery ─ setPresent ┼─► desired state ─► run(_:) loop ─► open: session(generation) ─► a reader
///  hotplug ── restart ────┘   (under a lock)   (one task)      close: cancel it, await its end
/// ```
///
/// Contract:
/// - **Level-triggered.** ``setClaimed(_:_:)``, ``setPresent(_:)``, ``restart()`` and
///   ``finish()`` only change the desired state (under a lock, from any thread, never blocking)
///   and wake the loop; the loop makes the sensor match the newest desired state whatever order
///   the changes came in, however many came while it was busy. Nothing sent is lost, and what is
///   sent before ``run(_:)`` starts waits for it (socket activation queues a client's claim
///   before the daemon has built the sensor's session; issues 10 and 36).
/// - **Open while wanted**: claimed by at least one claimer, present, and not held after a
///   session that ended by itself (``Ending/failed(_:)``, ``Ending/finished``): a held sensor is
///   opened again at the next new claimer's claim, presence report or restart, never in a loop.
/// - **Release delay**: the last release closes it ``releaseDelay`` seconds later (``ReleaseDelay``,
///   on the monotonic clock), and a claim within that time keeps the open session; a sensor that
///   goes absent, a restart and ``finish()`` close at once.
/// - **One session at a time**: a session is closed by cancelling its task and awaiting its end
///   before the next one starts. A session's body opens its reader, reads until cancelled or
///   until the reader ends, undoes what it did, and returns how it ended.
/// - ``restart()`` closes an open session and opens a fresh one (hotplug, new settings).
/// - `onClaimChange` is told, in order and under no lock, whenever the claim as a whole changes.
/// - ``run(_:)`` returns after ``finish()``, with the session closed.
public final class ClaimedSensor: Sendable {
    /// How a session ended when the loop did not close it.
    public enum Ending: Sendable, Equatable {
        /// The loop closed it (the session was cancelled); the loop ignores what it returns then.
        case closed
        /// It ended with nothing wrong (a replay reached its end): not reopened until the next
        /// claim, presence report or restart.
        case finished
        /// It failed, for the reason given: not reopened until the next claim, presence report
        /// or restart.
        case failed(String)
        /// Open it again at once if it is still wanted (a silent buffer, read polled next).
        case reopen
    }

    /// A session: what the sensor's kind does while it is open. Returns when its task is
    /// cancelled (after undoing what it did) or when its reader ends by itself.
    public typealias Session = @Sendable (_ generation: Int) async -> Ending

    /// What the sensor's lifecycle is doing, for status lines, tests and clients.
    public struct Status: Sendable, Equatable {
        /// The claimers now (e.g. `socket`, `dbus`, `posture`).
        public var claimers: Set<String> = []
        /// Whether discovery finds the sensor.
        public var present: Bool
        /// Whether a session is open now (claimed, or released less than the delay ago).
        public var isOpen = false
        /// Why the last session ended by itself with a failure, until the sensor is opened again.
        public var failure: String? = nil
        /// Sessions opened since the sensor was made: what claim loops are measured by.
        public var opens = 0
        /// Whether anyone claims it.
        public var isClaimed: Bool { !claimers.isEmpty }
    }

    private struct State {
        var status: Status
        var release = ReleaseDelay()
        /// A session ended by itself (``Ending/failed(_:)``, ``Ending/finished``): nothing opens
        /// until a claim, a presence report or a restart clears it.
        var held = false
        var restarts = 0
        var finished = false
        /// The open session's generation (0: none); a session that ended by itself, not yet
        /// handled by the loop.
        var generation = 0
        var ended: (generation: Int, ending: Ending)? = nil
    }

    /// Seconds the sensor stays open after its last claim goes.
    public let releaseDelay: Double
    private let state: Mutex<State>
    private let wakeups: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let sleeper: Sleeper
    private let onClaimChange: @Sendable (Bool) -> Void
    private let callbacks = CallbackQueue()
    /// The loop's task, when ``start(_:)`` runs it.
    private let loop = Mutex<Task<Void, Never>?>(nil)

    /// - Parameters:
    ///   - present: whether the sensor is there before discovery says (a source that finds its
    ///     device at open, such as the orientation pipeline's, is always present).
    ///   - sleeper: how the release delay waits.
    ///   - onClaimChange: the claim as a whole changed; in order, under no lock; must not block.
    public init(releaseDelay: Double, present: Bool = true, sleeper: Sleeper = .task,
                onClaimChange: @escaping @Sendable (Bool) -> Void = { _ in }) {
        self.releaseDelay = releaseDelay
        self.sleeper = sleeper
        self.onClaimChange = onClaimChange
        state = Mutex(State(status: Status(present: present)))
        // One pending wake-up is enough: the state it points to is read when it is taken.
        (wakeups, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The lifecycle's state now.
    public var status: Status { state.withLock { $0.status } }

    /// Records whether `claimer` claims the sensor. A claimer's new claim also lets a held
    /// sensor open again.
    public func setClaimed(_ claimer: String, _ claimed: Bool) {
        let now = Self.clock()
        update { state in
            let before = state.status.isClaimed
            if claimed {
                // A new claimer lets a held sensor open again; one claiming again does not.
                if state.status.claimers.insert(claimer).inserted { state.held = false }
            } else {
                state.status.claimers.remove(claimer)
            }
            let after = state.status.isClaimed
            state.release.update(claimed: after, now: now)
            if before != after { callbacks.enqueue { [onClaimChange] in onClaimChange(after) } }
        }
    }

    /// Whether discovery finds the sensor now (at start and at every hotplug event). Every
    /// report lets a held sensor open again.
    public func setPresent(_ present: Bool) {
        update { state in
            state.status.present = present
            state.held = false
        }
    }

    /// Closes an open session and opens a fresh one (a sensor appeared or changed, new
    /// settings); a closed sensor stays closed, but is no longer held.
    public func restart() {
        update { state in
            state.restarts &+= 1
            state.held = false
        }
    }

    /// Ends ``run(_:)`` after closing the session. Idempotent; nothing opens after it.
    public func finish() {
        state.withLock { $0.finished = true }
        continuation.yield()
        continuation.finish()
    }

    /// Runs the loop (``run(_:)``) in a task the sensor keeps, for an owner that has no service
    /// of its own to run it in (light, proximity, compass, the posture, the virtual switch);
    /// ``stop()`` ends it. Call once, instead of ``run(_:)``.
    public func start(_ session: @escaping Session) {
        let task = Task { await self.run(session) }
        loop.withLock { $0 = task }
    }

    /// ``finish()``, then waits until the loop ``start(_:)`` started has closed the session and
    /// ended (shutdown).
    public func stop() async {
        finish()
        await loop.withLock { $0 }?.value
    }

    /// The loop: on every wake-up, opens or closes `session` to match the desired state.
    /// Returns after ``finish()``, the last session closed. Run it once (or ``start(_:)`` it).
    public func run(_ session: @escaping Session) async {
        var current: Task<Void, Never>? = nil
        var restartsSeen = state.withLock { $0.restarts }
        var releaseTimer: Task<Void, Never>? = nil
        func close() async {
            state.withLock { $0.generation = 0 }
            current?.cancel()
            await current?.value
            current = nil
            state.withLock { $0.status.isOpen = false }
        }
        continuation.yield()  // the state as it is now, with the claims made before the loop
        for await _ in wakeups {
            let (desired, ended, now) = state.withLock { state in
                defer { state.ended = nil }
                return (state, state.ended, Self.clock())
            }
            if desired.finished { break }
            releaseTimer?.cancel()
            releaseTimer = nil
            if let ended, ended.generation == desired.generation, current != nil {
                // Ended by itself: its task is done; the state says whether it is held.
                await close()
            }
            let restart = desired.restarts != restartsSeen
            restartsSeen = desired.restarts
            let status = desired.status
            let held = desired.held
            let wanted = status.isClaimed && status.present && !held
            if current != nil {
                if !wanted {
                    if status.present, !held, !restart,
                       let remaining = desired.release.remaining(after: releaseDelay, now: now), remaining > 0 {
                        // Kept open a while: a claim before then costs no reopen.
                        releaseTimer = Task { [sleeper, continuation] in
                            if (try? await sleeper.sleep(seconds: remaining)) != nil { continuation.yield() }
                        }
                        continue
                    }
                    await close()
                } else if restart {
                    await close()
                }
            }
            if current == nil, wanted {
                let generation = state.withLock { state -> Int in
                    state.generation = state.status.opens + 1
                    state.status.opens += 1
                    state.status.isOpen = true
                    state.status.failure = nil
                    return state.generation
                }
                current = Task { [weak self] in
                    let ending = await session(generation)
                    self?.ended(ending, generation: generation)
                }
            }
        }
        releaseTimer?.cancel()
        await close()
    }

    /// A session's task returned: if the loop did not close it, the loop learns how it ended.
    private func ended(_ ending: Ending, generation: Int) {
        update { state in
            guard state.generation == generation else { return }
            switch ending {
            case .closed, .reopen:
                break
            case .finished:
                state.held = true
            case .failed(let reason):
                state.held = true
                state.status.failure = reason
            }
            state.ended = (generation, ending)
        }
    }

    /// Changes the desired state under the lock, tells what it queued, and wakes the loop.
    private func update(_ change: (inout State) -> Void) {
        state.withLock { change(&$0) }
        callbacks.drain()
        continuation.yield()
    }

    /// Seconds on the monotonic clock (the release delay's, not detection's).
    static func clock() -> Double {
        let elapsed = (ContinuousClock.now - origin).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
    private static let origin = ContinuousClock.now
}
