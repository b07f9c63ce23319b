import Synchronization

/// An append-only log that a test awaits: ``wait(timeout:_:)`` returns `true` the moment an
/// ``append(_:)`` (from any thread: a reader's, a udev monitor's) makes its predicate hold, and
/// `false` once `timeout` seconds pass without it. Nothing polls: the appender resumes the
/// waiter, so a test waits exactly as long as the event takes (the timeout is only a bound for a
/// test that would otherwise hang).
///
/// Predicates run under the log's lock, on the appending thread: keep them pure (look at the
/// elements, call nothing).
public final class AwaitedLog<Element: Sendable>: Sendable {
    private struct Waiter {
        let id: Int
        let predicate: @Sendable ([Element]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var elements: [Element] = []
        var waiters: [Waiter] = []
        var nextID = 0
        /// Waits whose timeout fired before they were registered (the timer races the registration).
        var expired: Set<Int> = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Everything appended so far, in order.
    public var all: [Element] { state.withLock { $0.elements } }

    /// Appends `element` and resumes every waiter whose predicate now holds.
    public func append(_ element: Element) {
        let satisfied = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.elements.append(element)
            var satisfied: [CheckedContinuation<Bool, Never>] = []
            let elements = state.elements
            state.waiters.removeAll { waiter in
                guard waiter.predicate(elements) else { return false }
                satisfied.append(waiter.continuation)
                return true
            }
            return satisfied
        }
        for continuation in satisfied { continuation.resume(returning: true) }
    }

    /// `true` as soon as `predicate` holds for the elements appended so far (at once if it
    /// already does); `false` after `timeout` seconds.
    public func wait(timeout: Double = 5, _ predicate: @escaping @Sendable ([Element]) -> Bool) async -> Bool {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task { [self] in
            try? await Task.sleep(for: .seconds(timeout))
            if !Task.isCancelled { expire(id) }
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer = state.withLock { state -> Bool? in
                if predicate(state.elements) { return true }
                if state.expired.remove(id) != nil { return false }
                state.waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation))
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    private func expire(_ id: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                state.expired.insert(id)
                return nil
            }
            return state.waiters.remove(at: index).continuation
        }
        continuation?.resume(returning: false)
    }
}
