/// The polkit checks of the D-Bus facade's claims, bounded so that neither a polkit that never
/// answers nor callers that vanish can lock other users out of their sensors (issue 26). Pure
/// logic: the facade (SensorProxySession) sends the checks it is told to, and feeds back polkit's
/// answers, the callers that leave the bus and the time.
///
/// Contract:
/// - A check is about a ``Subject``: the caller's uid and its logind session (with whether that
///   session is active), what polkit's answer for `net.hadess.SensorProxy.claim-sensor` depends
///   on. At most one check per subject is in flight; other callers of the same subject wait for
///   its answer instead of adding checks.
/// - A definite answer (authorized or not) is reused for ``Limits/cacheLifetime`` seconds for the
///   same subject, never for another uid, session or session state: a claim/release loop costs
///   at most one check per subject per few seconds.
/// - Checks in flight are bounded per uid (``Limits/perUser``) and in total (``Limits/total``,
///   plus ``Limits/reserve`` kept for callers in an active session), well below the bus's 128
///   pending replies per connection. A check counts until polkit answers it, however long that
///   takes (the bus counts it as long): one polkit never answers holds only its uid's slots. A
///   caller whose check cannot be sent yet waits its turn, in arrival order.
/// - Every waiting caller is answered within ``Limits/timeout`` seconds of its request
///   (``expire(now:)``): with the verdict, or ``Answer/failed(_:)`` when polkit did not answer in
///   time or failed. A failed check is never an authorization.
/// - A caller that left the bus (``left(_:)``) is dropped: no check is sent about it. A check that
///   failed because its subject left is sent again about a caller of the same subject that is
///   still waiting, rather than failing the others.
/// - Waiting callers are bounded per uid (``Limits/waitingPerUser``) and in total
///   (``Limits/waiting``); past them a request is ``Answer/refused(_:)`` at once.
public struct PolkitChecks: Sendable {
    /// What polkit's answer depends on: the uid, and the caller's logind session ("" for a
    /// process in none) with whether it is active.
    public struct Subject: Hashable, Sendable {
        public var uid: UInt32
        public var session: String
        public var active: Bool

        public init(uid: UInt32, session: String = "", active: Bool = false) {
            self.uid = uid
            self.session = session
            self.active = active
        }
    }

    /// polkit's decision.
    public enum Verdict: Equatable, Sendable {
        case authorized
        case notAuthorized
    }

    /// The answer to a caller's request.
    public enum Answer: Equatable, Sendable {
        /// polkit decided (now, or within the cache lifetime).
        case verdict(Verdict)
        /// polkit could not decide: it failed, or did not answer in time (the reason). Refuse.
        case failed(String)
        /// A bound on waiting callers (the reason). Refuse; nothing was asked.
        case refused(String)
    }

    /// What the caller of these functions must do, in order.
    public enum Action: Equatable, Sendable {
        /// Send check number `check` to polkit, with the unique name `about` as its subject;
        /// report its answer with ``answered(_:_:now:)``.
        case ask(check: UInt64, about: String)
        /// Answer the request of the unique name.
        case answer(String, Answer)
    }

    /// How a check ended, as reported by ``answered(_:_:now:)``.
    public enum Outcome: Equatable, Sendable {
        case verdict(Verdict)
        case failed(String)
    }

    /// The bounds.
    public struct Limits: Sendable, Equatable {
        /// Checks in flight for one uid.
        public var perUser: Int
        /// Checks in flight for subjects not in an active session, all uids together.
        public var total: Int
        /// Checks beyond ``total`` kept for subjects in an active session.
        public var reserve: Int
        /// Callers of one uid waiting for a verdict.
        public var waitingPerUser: Int
        /// Callers waiting for a verdict, all uids together.
        public var waiting: Int
        /// Seconds a caller waits for a verdict before it is answered ``Answer/failed(_:)``.
        public var timeout: Double
        /// Seconds a verdict is reused for the same subject.
        public var cacheLifetime: Double
        /// Subjects whose verdict is kept.
        public var cacheSize: Int

        public init(perUser: Int = 4, total: Int = 32, reserve: Int = 16, waitingPerUser: Int = 64, waiting: Int = 512,
                    timeout: Double = 10, cacheLifetime: Double = 5, cacheSize: Int = 1024) {
            self.perUser = perUser
            self.total = total
            self.reserve = reserve
            self.waitingPerUser = waitingPerUser
            self.waiting = waiting
            self.timeout = timeout
            self.cacheLifetime = cacheLifetime
            self.cacheSize = cacheSize
        }
    }

    private struct Request {
        var subject: Subject
        var deadline: Double
        var order: UInt64
    }

    private struct Flight {
        var subject: Subject
        var about: String
        var reserved: Bool
    }

    public let limits: Limits
    private var waiting: [String: Request] = [:]
    private var waitingPerUser: [UInt32: Int] = [:]
    private var flights: [UInt64: Flight] = [:]
    private var flying: [Subject: UInt64] = [:]
    private var flightsPerUser: [UInt32: Int] = [:]
    private var unreservedFlights = 0
    private var cache: [Subject: (verdict: Verdict, expires: Double)] = [:]
    private var nextCheck: UInt64 = 1
    private var nextOrder: UInt64 = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Checks sent and not yet answered by polkit.
    public var inFlight: Int { flights.count }

    /// Callers waiting for a verdict.
    public var waitingCount: Int { waiting.count }

    /// The unique name `name`, of `subject`, asks for a verdict (it has none waiting already).
    public mutating func request(_ name: String, subject: Subject, now: Double) -> [Action] {
        if let cached = cache[subject], cached.expires > now { return [.answer(name, .verdict(cached.verdict))] }
        if let old = waiting[name] {
            // One request per name at a time; a second one replaces the first (not expected).
            forget(name, old)
        }
        guard waitingPerUser[subject.uid, default: 0] < limits.waitingPerUser else {
            return [.answer(name, .refused("too many claims of uid \(subject.uid) wait for polkit"))]
        }
        guard waiting.count < limits.waiting else {
            return [.answer(name, .refused("too many claims wait for polkit"))]
        }
        waiting[name] = Request(subject: subject, deadline: now + limits.timeout, order: nextOrder)
        nextOrder += 1
        waitingPerUser[subject.uid, default: 0] += 1
        return send(subject)
    }

    /// polkit answered check `check` (or the bus did for it: an error).
    public mutating func answered(_ check: UInt64, _ outcome: Outcome, now: Double) -> [Action] {
        guard let flight = flights.removeValue(forKey: check) else { return [] }
        flying[flight.subject] = nil
        flightsPerUser[flight.subject.uid, default: 1] -= 1
        if flightsPerUser[flight.subject.uid] == 0 { flightsPerUser[flight.subject.uid] = nil }
        if !flight.reserved { unreservedFlights -= 1 }
        var actions: [Action] = []
        let names = waitingNames(of: flight.subject)
        switch outcome {
        case .verdict(let verdict):
            remember(verdict, for: flight.subject, now: now)
            for name in names { actions.append(answer(name, .verdict(verdict))) }
        case .failed(let reason):
            // Asked about a caller that has left since: the others were not asked about; ask
            // again about one of them (below) instead of failing them.
            if waiting[flight.about] != nil || names.isEmpty {
                for name in names { actions.append(answer(name, .failed(reason))) }
            }
        }
        return actions + sendWaiting()
    }

    /// `name` left the bus: its request is dropped; nothing more is asked about it.
    public mutating func left(_ name: String) {
        if let request = waiting[name] { forget(name, request) }
    }

    /// Answers the requests whose time is up (``Answer/failed(_:)``). Their checks stay in
    /// flight, and counted, until polkit answers them.
    public mutating func expire(now: Double) -> [Action] {
        let late = waiting.filter { $0.value.deadline <= now }.sorted { $0.value.order < $1.value.order }
        return late.map { answer($0.key, .failed("polkit did not answer within \(Self.seconds(limits.timeout))")) }
    }

    /// The earliest time a waiting request runs out, if any.
    public var nextDeadline: Double? { waiting.values.lazy.map(\.deadline).min() }

    // MARK: - Private

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    private mutating func answer(_ name: String, _ answer: Answer) -> Action {
        if let request = waiting[name] { forget(name, request) }
        return .answer(name, answer)
    }

    private mutating func forget(_ name: String, _ request: Request) {
        waiting[name] = nil
        waitingPerUser[request.subject.uid, default: 1] -= 1
        if waitingPerUser[request.subject.uid] == 0 { waitingPerUser[request.subject.uid] = nil }
    }

    private func waitingNames(of subject: Subject) -> [String] {
        waiting.filter { $0.value.subject == subject }.sorted { $0.value.order < $1.value.order }.map(\.key)
    }

    /// Sends the check of `subject` about its longest-waiting caller, if none is in flight and
    /// the bounds allow one.
    private mutating func send(_ subject: Subject) -> [Action] {
        guard flying[subject] == nil, flightsPerUser[subject.uid, default: 0] < limits.perUser else { return [] }
        let reserved: Bool
        if unreservedFlights < limits.total {
            reserved = false
        } else if subject.active, flights.count < limits.total + limits.reserve {
            reserved = true
        } else {
            return []
        }
        guard let about = waitingNames(of: subject).first else { return [] }
        let check = nextCheck
        nextCheck += 1
        flights[check] = Flight(subject: subject, about: about, reserved: reserved)
        flying[subject] = check
        flightsPerUser[subject.uid, default: 0] += 1
        if !reserved { unreservedFlights += 1 }
        return [.ask(check: check, about: about)]
    }

    /// Sends what the freed slots allow, longest-waiting subject first.
    private mutating func sendWaiting() -> [Action] {
        var subjects: [Subject] = []
        var seen: Set<Subject> = []
        for (_, request) in waiting.sorted(by: { $0.value.order < $1.value.order })
        where flying[request.subject] == nil && seen.insert(request.subject).inserted {
            subjects.append(request.subject)
        }
        return subjects.flatMap { send($0) }
    }

    private mutating func remember(_ verdict: Verdict, for subject: Subject, now: Double) {
        guard limits.cacheLifetime > 0 else { return }
        if cache.count >= limits.cacheSize {
            cache = cache.filter { $0.value.expires > now }
            if cache.count >= limits.cacheSize, let oldest = cache.min(by: { $0.value.expires < $1.value.expires }) {
                cache[oldest.key] = nil
            }
        }
        cache[subject] = (verdict, now + limits.cacheLifetime)
    }
}
