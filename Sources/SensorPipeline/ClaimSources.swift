import Synchronization

/// Claims from several publishers (the socket's subscribers, D-Bus claimers): the sensor is
/// claimed while any of them claims it, and released with the last.
///
/// Thread-safe: each publisher reports from its own thread (the NIO loop, the bus thread); the
/// pipeline's command is sent under the lock, so concurrent changes cannot reach it reordered.
public final class ClaimSources: Sendable {
    private let claimers = Mutex<Set<String>>([])
    private let commands: SensorPipeline.Commands
    /// Told, under the same lock, whenever the claim as a whole changes (the sensor's status).
    private let onChange: @Sendable (Bool) -> Void

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
                onChange(!set.isEmpty)
                commands.setClaimed(!set.isEmpty)
            }
        }
    }

    /// The publishers claiming now.
    public var current: Set<String> { claimers.withLock { $0 } }
}
