import AmbientSensorCore
import PostureCore

/// What ``OrientationClient/updates(reconnect:sensorChanges:topics:)`` yields.
public enum OrientationUpdate: Hashable, Sendable {
    /// Subscribed (first time or after a reconnect): the daemon's current state, at once.
    case connected(OrientationState)
    /// The orientation changed.
    case orientation(OrientationState)
    /// The system rotation lock changed.
    case lock(OrientationState)
    /// The sensor's state changed (``OrientationState/sensor``): opened, closed, absent, failed.
    case sensor(OrientationState)
    /// A light, proximity or compass sensor's reading or presence changed (only for the topics
    /// asked for; after `.connected`, once with each one's current state).
    case reading(AuxiliarySensorState)
    /// A convertible's posture changed (only with the `posture` topic; after `.connected`, once
    /// with the current state).
    case posture(PostureState)
    /// The connection ended (daemon stopped, restarted, or unreachable); a reconnect follows
    /// unless the policy gave up.
    case disconnected(reason: String)

    /// The state carried, if any.
    public var state: OrientationState? {
        switch self {
        case .connected(let s), .orientation(let s), .lock(let s), .sensor(let s): s
        case .disconnected, .reading, .posture: nil
        }
    }
}
