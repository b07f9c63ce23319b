/// Who claims which sensor on net.hadess.SensorProxy: claims kept per unique bus name, bounded
/// per user and in all (issue 18). Pure logic; the D-Bus facade feeds it from its bus thread.
///
/// Contract:
/// - A name holds each ``ProxySensor`` at most once: claiming twice is one claim, releasing what
///   is not held changes nothing.
/// - A name takes a slot with its first claim and frees it with its last release (or when it
///   leaves the bus: ``remove(_:)``); a name with no claim costs nothing.
/// - Bounds on slots: each user other than root has at most ``Limits/perUser``; callers that
///   are not `reserved` share ``Limits/total``; root and users with an active session
///   (`reserved`) may also use the last ``Limits/reserve`` beyond it. A claim past a bound is
///   refused with the reason; nothing else changes.
/// - ``claim(_:by:uid:reserved:)`` and the releases say when a sensor goes from unclaimed to
///   claimed and back, which is when the sensor is opened and closed.
public struct SensorProxyClaims: Sendable {
    /// The bounds on claiming names.
    public struct Limits: Sendable, Equatable {
        /// Claiming names one user other than root may have at once.
        public var perUser: Int
        /// Claiming names of callers that are not reserved, all users together.
        public var total: Int
        /// Names beyond ``total`` kept for root and users with an active session.
        public var reserve: Int

        public init(perUser: Int = 32, total: Int = 256, reserve: Int = 64) {
            self.perUser = perUser
            self.total = total
            self.reserve = reserve
        }
    }

    /// What a claim did.
    public enum Outcome: Equatable, Sendable {
        /// Recorded; `first` when nobody claimed the sensor before (open it now).
        case granted(first: Bool)
        /// The name held it already.
        case alreadyClaimed
        /// Refused, with the reason (a bound).
        case refused(String)
    }

    private struct Claimer {
        var uid: UInt32
        var reserved: Bool
        var sensors: Set<ProxySensor>
    }

    public let limits: Limits
    private var claimers: [String: Claimer] = [:]
    private var namesPerUser: [UInt32: Int] = [:]
    private var unreserved = 0
    private var claimersPerSensor: [ProxySensor: Int] = [:]

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Names holding at least one claim.
    public var count: Int { claimers.count }

    /// Whether anyone claims `sensor`.
    public func isClaimed(_ sensor: ProxySensor) -> Bool { claimersPerSensor[sensor, default: 0] > 0 }

    /// What `name` claims.
    public func sensors(of name: String) -> Set<ProxySensor> { claimers[name]?.sensors ?? [] }

    /// Every claiming name with what it claims (the destinations of PropertiesChanged).
    public var all: [(name: String, sensors: Set<ProxySensor>)] { claimers.map { ($0.key, $0.value.sensors) } }

    /// Records that `name` (of user `uid`; `reserved`: root or a user with an active session)
    /// claims `sensor`, within the bounds.
    public mutating func claim(_ sensor: ProxySensor, by name: String, uid: UInt32, reserved: Bool) -> Outcome {
        if var claimer = claimers[name] {
            guard !claimer.sensors.contains(sensor) else { return .alreadyClaimed }
            claimer.sensors.insert(sensor)
            claimers[name] = claimer
            return add(sensor)
        }
        let reserved = reserved || uid == 0
        if uid != 0, namesPerUser[uid, default: 0] >= limits.perUser {
            return .refused("uid \(uid) already has \(limits.perUser) claiming connections, the limit per user")
        }
        if claimers.count >= limits.total + limits.reserve {
            return .refused("\(claimers.count) connections claim sensors, the limit")
        }
        if !reserved, unreserved >= limits.total {
            return .refused("the last \(limits.reserve) of \(limits.total + limits.reserve) claims are kept for root and active sessions")
        }
        claimers[name] = Claimer(uid: uid, reserved: reserved, sensors: [sensor])
        namesPerUser[uid, default: 0] += 1
        if !reserved { unreserved += 1 }
        return add(sensor)
    }

    /// Records that `name` releases `sensor`; true when that was the sensor's last claim.
    public mutating func release(_ sensor: ProxySensor, by name: String) -> Bool {
        guard var claimer = claimers[name], claimer.sensors.remove(sensor) != nil else { return false }
        if claimer.sensors.isEmpty { drop(name, claimer) } else { claimers[name] = claimer }
        return subtract(sensor)
    }

    /// Forgets `name` (it left the bus); returns the sensors whose last claim it held.
    public mutating func remove(_ name: String) -> [ProxySensor] {
        guard let claimer = claimers[name] else { return [] }
        drop(name, claimer)
        var released: [ProxySensor] = []
        for sensor in ProxySensor.allCases where claimer.sensors.contains(sensor) {
            if subtract(sensor) { released.append(sensor) }
        }
        return released
    }

    /// Forgets every claim (the bus connection is gone); returns the sensors that were claimed.
    public mutating func removeAll() -> [ProxySensor] {
        let claimed = ProxySensor.allCases.filter(isClaimed)
        claimers = [:]
        namesPerUser = [:]
        unreserved = 0
        claimersPerSensor = [:]
        return claimed
    }

    private mutating func add(_ sensor: ProxySensor) -> Outcome {
        claimersPerSensor[sensor, default: 0] += 1
        return .granted(first: claimersPerSensor[sensor] == 1)
    }

    private mutating func subtract(_ sensor: ProxySensor) -> Bool {
        claimersPerSensor[sensor, default: 1] -= 1
        return claimersPerSensor[sensor] == 0
    }

    private mutating func drop(_ name: String, _ claimer: Claimer) {
        claimers[name] = nil
        namesPerUser[claimer.uid, default: 1] -= 1
        if namesPerUser[claimer.uid] == 0 { namesPerUser[claimer.uid] = nil }
        if !claimer.reserved { unreserved -= 1 }
    }
}
