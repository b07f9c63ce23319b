import Glibc
@testable import OrientationDaemon
import SensorIIO
import Synchronization
import Testing

/// The relay between the udev monitor, started before the daemon's first discovery, and the
/// hotplug handler made once the daemon is wired (issue 31).
@Suite struct HotplugRelayTests {
    static func event(_ n: Int) -> UdevMonitor.Event { UdevMonitor.Event(action: "add", device: "iio:device\(n)", subsystem: "iio") }

    @Test func eventsBeforeConnectAreHandedOverInOrderThenLiveOnes() {
        let relay = HotplugRelay()
        for n in 0..<3 { relay.deliver(Self.event(n)) }
        let seen = Mutex<[String]>([])
        relay.connect { event in seen.withLock { $0.append(event.device) } }
        #expect(seen.withLock { $0 } == ["iio:device0", "iio:device1", "iio:device2"])
        relay.deliver(Self.event(3))
        #expect(seen.withLock { $0 } == ["iio:device0", "iio:device1", "iio:device2", "iio:device3"])
    }

    /// An event delivered (by the monitor's thread) while `connect` hands the waiting ones over
    /// queues behind them: never lost, never first, never twice.
    @Test func anEventDuringTheDrainQueuesBehindTheWaitingOnes() {
        let relay = HotplugRelay()
        relay.deliver(Self.event(0))
        relay.deliver(Self.event(1))
        let seen = Mutex<[String]>([])
        relay.connect { event in
            seen.withLock { $0.append(event.device) }
            // The monitor's thread delivering during the drain (the relay's lock is not held here).
            if event.device == "iio:device0" { relay.deliver(Self.event(2)) }
        }
        #expect(seen.withLock { $0 } == ["iio:device0", "iio:device1", "iio:device2"])
    }

    @Test func concurrentDeliveriesDuringConnectAreEachHandledOnceInOrder() async {
        let relay = HotplugRelay()
        let seen = Mutex<[Int]>([])
        let count = 2000
        let producer = Task.detached {
            for n in 0..<count { relay.deliver(Self.event(n)) }
        }
        relay.connect { event in
            seen.withLock { $0.append(Int(event.device.dropFirst("iio:device".count))!) }
        }
        await producer.value
        #expect(seen.withLock { $0 } == Array(0..<count))
    }

    @Test func atMostThePendingLimitWaitsAndTheNewestAreKept() {
        let relay = HotplugRelay()
        let total = HotplugRelay.pendingLimit + 10
        for n in 0..<total { relay.deliver(Self.event(n)) }
        let seen = Mutex<[String]>([])
        relay.connect { event in seen.withLock { $0.append(event.device) } }
        let kept = seen.withLock { $0 }
        #expect(kept.count == HotplugRelay.pendingLimit)
        #expect(kept.first == "iio:device10" && kept.last == "iio:device\(total - 1)")
    }
}
