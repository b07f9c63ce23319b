import OrientationCore
import SensorLifecycle
import SensorPipeline
import Synchronization
import Testing

/// The one sensor lifecycle every kind shares (issue 36): what opens, when it closes, what a
/// session that ends by itself does, and that nothing sent is lost.
@Suite struct ClaimedSensorTests {
    /// A session that reports its opens and closes on a stream, and ends by itself as told.
    final class Sessions: Sendable {
        enum Event: Equatable, Sendable { case opened(Int), closed(Int), ended(Int) }
        let events: AsyncStream<Event>
        private let continuation: AsyncStream<Event>.Continuation
        /// How the next session ends by itself (`nil`: it runs until closed).
        private let endings = Mutex<[ClaimedSensor.Ending?]>([])

        init() { (events, continuation) = AsyncStream.makeStream(of: Event.self) }

        /// The sessions opened from now end by themselves with these, in order.
        func willEnd(_ ending: ClaimedSensor.Ending?...) { endings.withLock { $0 += ending } }

        func session(_ generation: Int) async -> ClaimedSensor.Ending {
            continuation.yield(.opened(generation))
            let ending = endings.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let ending {
                continuation.yield(.ended(generation))
                return ending
            }
            let (never, keep) = AsyncStream.makeStream(of: Void.self)
            for await _ in never {}  // until cancelled
            keep.finish()
            continuation.yield(.closed(generation))
            return .closed
        }
    }

    /// Runs a sensor's loop with ``Sessions``; a test reads their events from ``events``.
    final class Harness: Sendable {
        let sensor: ClaimedSensor
        let sessions = Sessions()
        private let loop: Task<Void, Never>

        init(releaseDelay: Double = 0.05, present: Bool = true, onClaimChange: @escaping @Sendable (Bool) -> Void = { _ in }) {
            let sensor = ClaimedSensor(releaseDelay: releaseDelay, present: present, onClaimChange: onClaimChange)
            self.sensor = sensor
            let sessions = self.sessions
            loop = Task { await sensor.run { await sessions.session($0) } }
        }

        /// The sessions' events, awaited one by one (read them from one test only).
        var events: AsyncStream<Sessions.Event>.Iterator { sessions.events.makeAsyncIterator() }

        func finish() async {
            sensor.finish()
            await loop.value
        }
    }

    @Test func aClaimOpensAndTheLastReleaseClosesAfterTheDelay() async {
        let harness = Harness(releaseDelay: 0.05)
        var events = harness.events
        harness.sensor.setClaimed("socket", true)
        #expect(await events.next() == .opened(1))
        harness.sensor.setClaimed("dbus", true)
        harness.sensor.setClaimed("socket", false)
        #expect(harness.sensor.status.isOpen && harness.sensor.status.claimers == ["dbus"])
        let released = ContinuousClock.now
        harness.sensor.setClaimed("dbus", false)
        #expect(await events.next() == .closed(1))
        #expect(ContinuousClock.now - released >= .milliseconds(45), "closed before the release delay")
        await waitForClose(harness.sensor)
        #expect(!harness.sensor.status.isOpen && harness.sensor.status.opens == 1)
        await harness.finish()
    }

    @Test func aClaimWithinTheDelayKeepsTheSessionAndALoopCostsOneOpen() async {
        let harness = Harness(releaseDelay: 0.2)
        var events = harness.events
        harness.sensor.setClaimed("socket", true)
        #expect(await events.next() == .opened(1))
        harness.sensor.setClaimed("socket", false)
        for _ in 0..<2000 {
            harness.sensor.setClaimed("dbus", true)
            harness.sensor.setClaimed("dbus", false)
        }
        #expect(await events.next() == .closed(1), "closed once, after the last release's delay")
        #expect(harness.sensor.status.opens == 1)
        await harness.finish()
    }

    /// A session that fails is not reopened in a loop; a claim, a presence report or a restart
    /// opens it again. `.reopen` opens again at once; `.finished` holds like a failure.
    @Test(arguments: ["claim", "presence", "restart"])
    func aFailedSessionWaitsForTheNextClaimPresenceOrRestart(_ trigger: String) async {
        let harness = Harness()
        var events = harness.events
        harness.sessions.willEnd(.failed("the device vanished"))
        harness.sensor.setClaimed("socket", true)
        #expect(await events.next() == .opened(1))
        #expect(await events.next() == .ended(1))
        // Held: the same claimer claiming again says nothing new and opens nothing.
        harness.sensor.setClaimed("socket", true)
        await waitForClose(harness.sensor)
        #expect(harness.sensor.status.failure == "the device vanished" && harness.sensor.status.opens == 1)
        switch trigger {
        case "claim": harness.sensor.setClaimed("dbus", true)
        case "presence": harness.sensor.setPresent(true)
        default: harness.sensor.restart()
        }
        #expect(await events.next() == .opened(2))
        #expect(harness.sensor.status.failure == nil, "an open clears the failure")
        await harness.finish()
        #expect(await events.next() == .closed(2))
    }

    @Test func aFailureIsReportedAndHeld() async {
        let harness = Harness()
        var events = harness.events
        harness.sessions.willEnd(.failed("the device vanished"), .finished)
        harness.sensor.setClaimed("socket", true)
        #expect(await events.next() == .opened(1))
        #expect(await events.next() == .ended(1))
        // The loop handles the ending: held, with the reason; the next open waits for a trigger.
        await waitForClose(harness.sensor)
        #expect(harness.sensor.status.failure == "the device vanished")
        harness.sensor.restart()
        #expect(await events.next() == .opened(2))
        #expect(await events.next() == .ended(2))
        await waitForClose(harness.sensor)
        #expect(harness.sensor.status.failure == nil && harness.sensor.status.opens == 2, "finished holds, without a failure")
        await harness.finish()
    }

    @Test func reopenOpensAgainAtOnce() async {
        let harness = Harness()
        var events = harness.events
        harness.sessions.willEnd(.reopen)
        harness.sensor.setClaimed("socket", true)
        #expect(await events.next() == .opened(1))
        #expect(await events.next() == .ended(1))
        #expect(await events.next() == .opened(2))
        await harness.finish()
        #expect(await events.next() == .closed(2))
    }

    @Test func aRestartReopensAnOpenSessionAndLeavesAClosedOneClosed() async {
        let harness = Harness()
        var events = harness.events
        harness.sensor.restart()
        harness.sensor.setClaimed("socket", true)
        #expect(await events.next() == .opened(1))
        for _ in 0..<100 { harness.sensor.restart() }
        #expect(await events.next() == .closed(1))
        #expect(await events.next() == .opened(2))
        await harness.finish()
        #expect(await events.next() == .closed(2))
        #expect(harness.sensor.status.opens == 2, "a burst of restarts costs one reopen")
    }

    @Test func anAbsentSensorClosesAtOnceAndOpensWhenItComesBack() async {
        let harness = Harness(releaseDelay: 60, present: false)
        var events = harness.events
        harness.sensor.setClaimed("socket", true)
        #expect(!harness.sensor.status.isOpen)
        harness.sensor.setPresent(true)
        #expect(await events.next() == .opened(1))
        harness.sensor.setPresent(false)
        #expect(await events.next() == .closed(1), "gone: closed without the release delay")
        harness.sensor.setPresent(true)
        #expect(await events.next() == .opened(2))
        await harness.finish()
        #expect(await events.next() == .closed(2))
    }

    /// Claims made before the loop runs wait for it (socket activation's first client); the
    /// claim as a whole is reported in order.
    @Test func claimsBeforeTheLoopAreKeptAndReportedInOrder() async {
        let changes = Mutex<[Bool]>([])
        let sensor = ClaimedSensor(releaseDelay: 0, onClaimChange: { claimed in changes.withLock { $0.append(claimed) } })
        sensor.setClaimed("socket", true)
        sensor.setClaimed("dbus", true)
        sensor.setClaimed("socket", false)
        sensor.setClaimed("dbus", false)
        sensor.setClaimed("posture", true)
        #expect(changes.withLock { $0 } == [true, false, true])
        let sessions = Sessions()
        let loop = Task { await sensor.run { await sessions.session($0) } }
        var events = sessions.events.makeAsyncIterator()
        #expect(await events.next() == .opened(1))
        sensor.finish()
        await loop.value
        #expect(await events.next() == .closed(1))
        sensor.setClaimed("socket", true)
        #expect(!sensor.status.isOpen, "nothing opens after finish()")
    }

    /// Waits until the loop has handled a session's end (the status is the loop's to change,
    /// on its own task: nothing to await from outside, so this yields to it, bounded).
    private func waitForClose(_ sensor: ClaimedSensor) async {
        let deadline = ContinuousClock.now + .seconds(60)
        while sensor.status.isOpen, ContinuousClock.now < deadline { await Task.yield() }
    }
}
