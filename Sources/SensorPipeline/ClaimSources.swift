import OrientationCore
import SensorLifecycle
import Synchronization

/// Claims from several publishers (the socket's subscribers, D-Bus claimers): the sensor is
/// claimed while any of them claims it, and released with the last.
///
/// Thread-safe: each publisher reports from its own thread (the NIO loop, the bus thread). A
/// change of the claim as a whole is queued under the lock and handed to `onChange` and the
/// pipeline after it is released (``CallbackQueue``), in the order of the changes: concurrent
/// changes cannot reach them reordered, and no lock is held while they run.
public final class ClaimSources: Sendable {
    private let claimers = Mutex<Set<String>>([])
    private let commands: SensorPipeline.Commands
    /// Told, in order and under no lock, whenever the claim as a whole changes (the sensor's status).
    private let onChange: @Sendable (Bool) -> Void
    private let callbacks = CallbackQueue()

    public init(commands: SensorPipeline.Commands, onChange: @escaping @Sendable (Bool) -> Void = { _ in }) {
        self.commands = commands
        self.onChange = onChange
    }

    /// Records whether publisher `source` claims the sensor.
    public func set(_ source: String, claimed: Bool) {
        claimers.withLock { set in
            let before = !set.isEmpty
            if claimed { set.insert(source) } else { set.remove(source) }
            if before != !set.isEmpty {
                let claimed = !set.isEmpty
                callbacks.enqueue { [onChange, commands] in
                    onChange(claimed)
                    commands.setClaimed(claimed)
                }
            }
        }
        callbacks.drain()
    }

    /// The publishers claiming now.
    public var current: Set<String> { claimers.withLock { $0 } }
}
