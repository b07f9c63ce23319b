import OrientationCore
import SensorLifecycle
import Synchronization
import Testing

/// Callbacks in the order of the changes, one at a time, never under the queuer's lock (issue 29).
@Suite struct CallbackQueueTests {
    @Test func callbacksRunInQueueOrderOnTheDrainingThread() {
        let queue = CallbackQueue()
        let seen = Mutex<[Int]>([])
        for n in 0..<5 { queue.enqueue { seen.withLock { $0.append(n) } } }
        #expect(seen.withLock { $0 }.isEmpty, "nothing runs before drain()")
        queue.drain()
        #expect(seen.withLock { $0 } == [0, 1, 2, 3, 4])
    }

    /// A callback that queues more (and drains, as a nested change would) adds to the running
    /// drain: its callback runs after the ones queued before it, not inside it.
    @Test func aCallbackQueueingMoreRunsItAfterwardsNotNested() {
        let queue = CallbackQueue()
        let seen = Mutex<[String]>([])
        queue.enqueue {
            seen.withLock { $0.append("a begins") }
            queue.enqueue { seen.withLock { $0.append("c") } }
            queue.drain()
            seen.withLock { $0.append("a ends") }
        }
        queue.enqueue { seen.withLock { $0.append("b") } }
        queue.drain()
        #expect(seen.withLock { $0 } == ["a begins", "a ends", "b", "c"])
    }

    final class Shared: Sendable {
        let queue = CallbackQueue()
        let counter = Mutex(0)
        let seen = Mutex<[Int]>([])
        let running = Mutex(0)
        let overlapped = Mutex(false)
    }

    /// Many threads changing a locked value and queueing its new value under their lock: the
    /// callbacks see the values in the order of the changes, each once, never two at a time.
    @Test func concurrentChangesAreDeliveredInOrderOneAtATime() async {
        let shared = Shared()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<500 {
                        shared.counter.withLock { value in
                            value += 1
                            let now = value
                            shared.queue.enqueue {
                                if shared.running.withLock({ $0 += 1; return $0 }) > 1 { shared.overlapped.withLock { $0 = true } }
                                shared.seen.withLock { $0.append(now) }
                                shared.running.withLock { $0 -= 1 }
                            }
                        }
                        shared.queue.drain()
                    }
                }
            }
        }
        shared.queue.drain()
        #expect(shared.seen.withLock { $0 } == Array(1...2000))
        #expect(!shared.overlapped.withLock { $0 })
    }
}
