import CSensorProxyShim
import Logging
import OrientationCore
import OwnerThreads
import SensorLifecycle
import SensorProxyModel

/// One connection of the D-Bus facade to the bus: who claims what, the calls waiting for an
/// answer, and what was last published. Lives and dies on the bus thread (the C callbacks of
/// `od_proxy_process` land here), so it needs no lock; ``SensorProxyBus`` makes one per
/// connection.
///
/// How a call is handled (docs/DBUS.md, "Claims are subscriptions" and "polkit"):
/// - A claim needs the caller's uid and process (for the bounds of ``SensorProxyClaims`` and the
///   polkit subject): they are asked of the bus without waiting (`GetConnectionCredentials`),
///   at most ``identifyingAtOnce`` at a time, the other callers waiting their turn in arrival
///   order; kept per unique name until the name leaves. The caller's calls wait, in order. Nothing
///   is tracked by a match rule per name: one `NameOwnerChanged` match serves every claimer.
/// - Then polkit is asked, without waiting, whether the caller may take
///   `net.hadess.SensorProxy.claim-sensor` (not for root, nor for a claim already held), under
///   ``PolkitChecks``' rules: one check per subject (uid and logind session) in flight, bounded
///   per uid and in total, a verdict reused for a few seconds for the same subject, every caller
///   answered within ``PolkitChecks/Limits/timeout``, callers that left never asked about.
///   A refusal, or a check that failed or ran out of time, is `AccessDenied` ("Not Authorized:
///   …", as the peer says it): a claim is never allowed because a check failed. With no polkitd
///   on the bus (nobody owns the name and the bus cannot start it), claims are allowed (said once
///   in the log).
/// - A claim past a bound, or one that cannot be tracked (the bus does not know the caller,
///   too many callers waiting), is refused with `LimitsExceeded`; the connection and every
///   other claim stay.
/// - `ClaimAccelerometer` is answered once the first orientation is known, or after
///   ``SensorProxyBus/firstOrientationWait`` seconds at most.
/// - PropertiesChanged goes to the names that claimed the sensor whose property changed, each
///   its own signal (iio-sensor-proxy 3.1+), never as a broadcast.
/// - Right after a claim's reply, the claimer is sent, alone, the properties of the sensor whose
///   values it does not hold (``ClientPropertyCaches``: what its `GetAll` calls returned and the
///   signals it was sent), so a client that made its proxy while the sensor was closed and claims
///   it once someone else opened it holds the sensor's values as `Get` returns them (issue 42).
final class SensorProxySession {
    /// A call waiting for an answer from the bus about its caller (its uid, polkit's verdict).
    private struct WaitingCall {
        let sensor: ProxySensor
        let claim: Bool
        let call: UnsafeMutableRawPointer
        /// polkit's answer for this claim, once known: nil while not asked.
        var answer: PolkitChecks.Answer? = nil
    }

    /// What a caller with calls waiting waits for.
    private enum Stage {
        /// Nothing: its next call can be handled.
        case ready
        /// Its turn to be identified (``identifyingAtOnce`` are in flight).
        case queued
        /// The bus's answer about who it is.
        case identifying
        /// polkit's verdict on its first call.
        case checking
    }

    /// A caller with calls waiting, in order.
    private struct Caller {
        var calls: [WaitingCall]
        var stage = Stage.ready
    }

    /// Who a unique name is: its uid and its polkit subject.
    private struct Identity {
        let uid: UInt32
        let subject: PolkitChecks.Subject
    }

    /// A granted claim waiting for its sensor's first value: `ClaimAccelerometer` for the first
    /// orientation; the first claim of light, proximity or compass for the reading the sensor
    /// takes when it opens (``sensorsReady(_:)``).
    private struct HeldClaim {
        let sensor: ProxySensor
        let name: String
        let call: UnsafeMutableRawPointer
        let deadline: Double
    }

    /// Bounds on what waits here (each entry holds a message): calls per name waiting for the
    /// bus (the bus itself lets a connection have 128 calls awaiting replies), callers being
    /// identified at once (the bus answers those itself, at once), callers waiting for their
    /// turn to be identified, held claims.
    static let waitingPerName = 128
    static let identifyingAtOnce = 32
    static let queuedForIdentity = 1024
    static let heldClaims = 256

    var proxy: OpaquePointer? = nil
    private var claims: SensorProxyClaims
    private var checks: PolkitChecks
    private var identities: [String: Identity] = [:]
    private var callers: [String: Caller] = [:]
    /// Identity questions sent and not yet answered (counted until the bus answers, even for a
    /// caller that left meanwhile), and the callers waiting for their turn, in order.
    private var identifying = 0
    private var identityQueue: [String] = []
    private var identityQueueHead = 0
    private var held: [HeldClaim] = []
    /// The state last handed to the C side.
    private(set) var published: SensorProxyState? = nil
    /// What each client holds of the published properties (issue 42).
    private var caches = ClientPropertyCaches()
    private let onClaimChange: @Sendable (ProxySensor, Bool) -> Void
    private let logger: Logger
    private var claimLog = LogThrottle()
    private var releaseLog = LogThrottle()
    private var refusalLog = LogThrottle()
    private var polkitLog = LogThrottle()
    /// Said once per connection: polkitd is not on the bus, claims go unchecked.
    private var toldPolkitAbsent = false

    init(limits: SensorProxyClaims.Limits, polkit: PolkitChecks.Limits = PolkitChecks.Limits(), logger: Logger,
         onClaimChange: @escaping @Sendable (ProxySensor, Bool) -> Void) {
        claims = SensorProxyClaims(limits: limits)
        checks = PolkitChecks(limits: polkit)
        self.logger = logger
        self.onClaimChange = onClaimChange
    }

    /// The callbacks `od_proxy_open` wants, pointing at this session.
    var callbacks: od_proxy_callbacks {
        od_proxy_callbacks(
            context: Unmanaged.passUnretained(self).toOpaque(),
            call: { context, sensor, claim, sender, call in
                guard let context, let sender, let call else { return }
                // The shim's table names one of the four; anything else is an error, never a
                // sensor by default (issue 29).
                guard let sensor = ProxySensor(rawValue: Int(sensor)) else {
                    _ = od_proxy_reply(call, "org.freedesktop.DBus.Error.UnknownMethod", "no such sensor")
                    return
                }
                Unmanaged<SensorProxySession>.fromOpaque(context).takeUnretainedValue()
                    .received(sensor, claim: claim != 0, from: String(cString: sender), call)
            },
            name_lost: { context, name in
                guard let context, let name else { return }
                Unmanaged<SensorProxySession>.fromOpaque(context).takeUnretainedValue().left(String(cString: name))
            },
            uid: { context, name, uid, pid in
                guard let context, let name else { return }
                Unmanaged<SensorProxySession>.fromOpaque(context).takeUnretainedValue()
                    .identified(String(cString: name), uid: uid, pid: pid)
            },
            authorization: { context, check, verdict, message in
                guard let context else { return }
                Unmanaged<SensorProxySession>.fromOpaque(context).takeUnretainedValue()
                    .judged(check, verdict: verdict, message: message.map { String(cString: $0) })
            },
            read: { context, sender, property in
                guard let context, let sender else { return }
                Unmanaged<SensorProxySession>.fromOpaque(context).takeUnretainedValue()
                    .read(SensorProxyProperties(rawValue: property), by: String(cString: sender))
            })
    }

    // MARK: Calls

    private func received(_ sensor: ProxySensor, claim: Bool, from name: String, _ call: UnsafeMutableRawPointer) {
        let waiting = WaitingCall(sensor: sensor, claim: claim, call: call)
        if callers[name] != nil {
            guard callers[name]!.calls.count < Self.waitingPerName else {
                return refuse(call, "too many calls from \(name) wait for an answer", name: name)
            }
            callers[name]!.calls.append(waiting)
            return
        }
        callers[name] = Caller(calls: [waiting])
        drain(name)
    }

    /// Handles `name`'s waiting calls in order, until one needs an answer from the bus or polkit
    /// (then asks for it, or waits its turn, and goes on when it comes) or none is left.
    private func drain(_ name: String) {
        while let caller = callers[name], caller.stage == .ready, let head = caller.calls.first {
            func done() { callers[name]!.calls.removeFirst() }
            if !head.claim {
                done()
                release(head.sensor, by: name, head.call)
                continue
            }
            if claims.sensors(of: name).contains(head.sensor) {
                done()
                answerClaim(head.sensor, name: name, head.call)
                continue
            }
            guard let identity = identities[name] else {
                identify(name)
                continue  // the stage changed, or the head call was refused
            }
            // polkit is asked about every new claim except root's (polkit authorizes root for
            // everything; asking would only cost a round trip).
            let answer = identity.uid == 0 ? .verdict(.authorized) : head.answer
            switch answer {
            case nil:
                callers[name]!.stage = .checking
                perform(checks.request(name, subject: identity.subject, now: OwnerThread.monotonic()))
            case .verdict(.authorized):
                done()
                grant(head.sensor, name: name, uid: identity.uid, head.call)
            case .verdict(.notAuthorized):
                done()
                refuse(head.call, "Not Authorized: Sensor claim not allowed", name: name, uid: identity.uid,
                       error: "org.freedesktop.DBus.Error.AccessDenied")
            case .failed(let reason):
                done()
                refuse(head.call, "Not Authorized: \(reason)", name: name, uid: identity.uid,
                       error: "org.freedesktop.DBus.Error.AccessDenied")
            case .refused(let reason):
                done()
                refuse(head.call, reason, name: name, uid: identity.uid)
            }
        }
        if callers[name]?.calls.isEmpty == true { callers[name] = nil }
    }

    /// Asks the bus who `name` is, or queues it until fewer questions are in flight.
    private func identify(_ name: String) {
        guard identifying < Self.identifyingAtOnce else {
            guard identityQueue.count - identityQueueHead < Self.queuedForIdentity else {
                let head = callers[name]!.calls.removeFirst()
                return refuse(head.call, "too many callers wait to be identified; try again", name: name)
            }
            identityQueue.append(name)
            callers[name]!.stage = .queued
            return
        }
        guard let proxy, od_proxy_query_uid(proxy, name) >= 0 else {
            let head = callers[name]!.calls.removeFirst()
            return refuse(head.call, "cannot ask the bus who \(name) is now; try again", name: name)
        }
        identifying += 1
        callers[name]!.stage = .identifying
    }

    /// The bus answered a question about who `name` is (whether or not it is still here).
    private func identified(_ name: String, uid: Int64, pid: UInt32) {
        identifying -= 1
        defer { identifyNext() }
        guard callers[name]?.stage == .identifying else { return }  // it left the bus meanwhile
        callers[name]!.stage = .ready
        if uid >= 0 {
            // Kept until the name leaves the bus: the bus bounds how many names are connected.
            identities[name] = Identity(uid: UInt32(uid), subject: Self.subject(uid: UInt32(uid), pid: pid))
            return drain(name)
        }
        // The bus does not know the caller (it left): claims are refused, releases answered.
        for waiting in callers.removeValue(forKey: name)?.calls ?? [] {
            if waiting.claim {
                refuse(waiting.call, "the bus cannot say who \(name) is (errno \(-uid))", name: name)
            } else {
                release(waiting.sensor, by: name, waiting.call)
            }
        }
    }

    /// Identifies the callers that waited for their turn, while there is room.
    private func identifyNext() {
        while identifying < Self.identifyingAtOnce, identityQueueHead < identityQueue.count {
            let name = identityQueue[identityQueueHead]
            identityQueueHead += 1
            guard callers[name]?.stage == .queued else { continue }  // it left the bus meanwhile
            callers[name]!.stage = .ready
            drain(name)
        }
        if identityQueueHead == identityQueue.count {
            identityQueue.removeAll(keepingCapacity: identityQueue.count < 64)
            identityQueueHead = 0
        } else if identityQueueHead > 256 {
            identityQueue.removeFirst(identityQueueHead)
            identityQueueHead = 0
        }
    }

    /// What polkit's answer for a process depends on: its uid and logind session (polkit's
    /// `allow_active` and rules look at the session and whether it is active).
    static func subject(uid: UInt32, pid: UInt32) -> PolkitChecks.Subject {
        var buffer = [CChar](repeating: 0, count: 64)
        var active: Int32 = 0
        let found = od_pid_session(pid, &buffer, UInt32(buffer.count), &active) >= 0
        let session = found ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        return PolkitChecks.Subject(uid: uid, session: session, active: found && active != 0)
    }

    /// Carries out what ``PolkitChecks`` says: sends checks, answers waiting callers.
    private func perform(_ actions: [PolkitChecks.Action]) {
        for action in actions {
            switch action {
            case .ask(let check, let about):
                if let proxy, od_proxy_check_authorization(proxy, about, check) >= 0 { continue }
                // Not sent (no memory, the connection is going): the check ends now, failed.
                perform(checks.answered(check, .failed("cannot ask polkit now"), now: OwnerThread.monotonic()))
            case .answer(let name, let answer):
                guard callers[name]?.stage == .checking, !callers[name]!.calls.isEmpty else { continue }
                callers[name]!.stage = .ready
                callers[name]!.calls[0].answer = answer
                drain(name)
            }
        }
    }

    private func judged(_ check: UInt64, verdict: Int32, message: String?) {
        let outcome: PolkitChecks.Outcome
        switch verdict {
        case Int32(OD_POLKIT_AUTHORIZED): outcome = .verdict(.authorized)
        case Int32(OD_POLKIT_ABSENT):
            // Nobody serves org.freedesktop.PolicyKit1 and the bus cannot start it (minimal
            // systems, tests): claims are allowed, bounded per user as always (docs/DBUS.md,
            // "polkit").
            if !toldPolkitAbsent {
                logger.warning("polkitd is not on the system bus: D-Bus claims are not checked", metadata: ["reason": "\(message ?? "")"])
                toldPolkitAbsent = true
            }
            outcome = .verdict(.authorized)
        case Int32(OD_POLKIT_NOT_AUTHORIZED): outcome = .verdict(.notAuthorized)
        default:
            let reason = message ?? "polkit failed"
            let (log, suppressed) = polkitLog.admit(now: OwnerThread.monotonic())
            if log {
                logger.warning("a polkit check failed", metadata: ["reason": "\(reason)", "failures-not-logged": "\(suppressed)"])
            }
            outcome = .failed(reason)
        }
        perform(checks.answered(check, outcome, now: OwnerThread.monotonic()))
    }

    private func grant(_ sensor: ProxySensor, name: String, uid: UInt32, _ call: UnsafeMutableRawPointer) {
        // Only a name new to the table takes a slot; ask logind only then.
        let reserved = uid == 0 || (claims.sensors(of: name).isEmpty && od_uid_is_active(uid) != 0)
        switch claims.claim(sensor, by: name, uid: uid, reserved: reserved) {
        case .refused(let reason):
            refuse(call, reason, name: name, uid: uid)
        case .granted(let first):
            if first { claimChanged(sensor, true) }
            answerClaim(sensor, name: name, call, opensSensor: first)
        case .alreadyClaimed:
            answerClaim(sensor, name: name, call)
        }
    }

    /// Answers a granted claim, or holds it until its sensor has a value: the accelerometer
    /// until the first orientation; light, proximity and compass when this claim opened the
    /// sensor, until the daemon says its first reading is published (``sensorsReady(_:)``).
    /// Either wait is bounded by ``SensorProxyBus/firstOrientationWait``.
    private func answerClaim(_ sensor: ProxySensor, name: String, _ call: UnsafeMutableRawPointer, opensSensor: Bool = false) {
        let waits = sensor == .accelerometer ? !firstOrientationKnown : opensSensor
        if waits, held.count < Self.heldClaims {
            held.append(HeldClaim(sensor: sensor, name: name, call: call, deadline: OwnerThread.monotonic() + SensorProxyBus.firstOrientationWait))
        } else {
            _ = od_proxy_reply(call, nil, nil)
            catchUp(name, on: sensor)
        }
    }

    /// After a claim's reply: sends `name`, alone, the properties of `sensor` whose current
    /// values it does not hold (issue 42). A claimer is sent every later change anyway, so this
    /// is needed only once per claim; a name whose claim went meanwhile is sent nothing.
    private func catchUp(_ name: String, on sensor: ProxySensor) {
        guard let proxy, let published, claims.sensors(of: name).contains(sensor) else { return }
        let stale = caches.stale(.of(sensor), of: name, against: published)
        guard !stale.isEmpty else { return }
        let sent = od_proxy_emit(proxy, stale.rawValue, name)
        if sent >= 0 { caches.told(name, SensorProxyProperties(rawValue: UInt32(sent)), from: published) }
    }

    /// `name` loaded `properties` with GetAll, as a GLib proxy does when it is made: it holds their
    /// published values. (A single `Get` is not counted: a client that also keeps a proxy may read
    /// one property by hand, which leaves its proxy's cache as it was.)
    private func read(_ properties: SensorProxyProperties, by name: String) {
        guard let published else { return }
        caches.told(name, properties, from: published)
    }

    /// The daemon published a first reading of these sensors (after the states handed over with
    /// it): the claims held for them are answered.
    func sensorsReady(_ sensors: Set<ProxySensor>) {
        guard !sensors.isEmpty else { return }
        answerHeld { $0.sensor != .accelerometer && sensors.contains($0.sensor) }
    }

    private func release(_ sensor: ProxySensor, by name: String, _ call: UnsafeMutableRawPointer) {
        if claims.release(sensor, by: name) { claimChanged(sensor, false) }
        // A claim of this name still held is answered first: replies keep the calls' order.
        answerHeld { $0.name == name }
        _ = od_proxy_reply(call, nil, nil)
    }

    private func refuse(_ call: UnsafeMutableRawPointer, _ reason: String, name: String, uid: UInt32? = nil,
                        error: String = "org.freedesktop.DBus.Error.LimitsExceeded") {
        let (log, suppressed) = refusalLog.admit(now: OwnerThread.monotonic())
        if log {
            logger.warning("refusing a D-Bus claim", metadata: ["reason": "\(reason)", "caller": "\(name)",
                                                                "uid": "\(uid.map { "\($0)" } ?? "unknown")",
                                                                "refusals-not-logged": "\(suppressed)"])
        }
        _ = od_proxy_reply(call, error, reason)
    }

    /// A unique name left the bus: its claims go, its waiting calls are dropped unanswered, and
    /// nothing more is asked about it (a question in flight still counts until answered).
    private func left(_ name: String) {
        identities[name] = nil
        caches.forget(name)
        checks.left(name)
        if let caller = callers.removeValue(forKey: name) {
            for call in caller.calls { od_proxy_call_unref(call.call) }
        }
        held.removeAll { claim in
            guard claim.name == name else { return false }
            od_proxy_call_unref(claim.call)
            return true
        }
        for sensor in claims.remove(name) { claimChanged(sensor, false) }
    }

    private func claimChanged(_ sensor: ProxySensor, _ claimed: Bool) {
        var throttle = claimed ? claimLog : releaseLog
        let (log, suppressed) = throttle.admit(now: OwnerThread.monotonic())
        if claimed { claimLog = throttle } else { releaseLog = throttle }
        if log {
            logger.info(claimed ? "\(sensor) claimed over D-Bus" : "last D-Bus claim of \(sensor) released",
                        metadata: ["claim-changes-not-logged": "\(suppressed)"])
        }
        onClaimChange(sensor, claimed)
    }

    // MARK: Publishing

    private var firstOrientationKnown: Bool {
        guard let published else { return false }
        return !published.hasAccelerometer || published.decided
    }

    /// Hands `state` to the C side and sends PropertiesChanged for what changed to each name
    /// claiming the sensor it belongs to. Returns 0 or a negative errno (the connection is lost).
    func publish(_ state: SensorProxyState) -> Int32 {
        guard let proxy, state != published else { return 0 }
        let changed = state.orientation.withCString { orientation in
            state.tilt.withCString { tilt in
                state.lightLevelUnit.withCString { unit in
                    var values = od_proxy_state(
                        has_accelerometer: state.hasAccelerometer ? 1 : 0, orientation: orientation, tilt: tilt,
                        has_ambient_light: state.hasAmbientLight ? 1 : 0, light_level: state.lightLevel, light_level_unit: unit,
                        has_proximity: state.hasProximity ? 1 : 0, proximity_near: state.proximityNear ? 1 : 0,
                        has_compass: state.hasCompass ? 1 : 0, compass_heading: state.compassHeading)
                    return od_proxy_set_state(proxy, &values)
                }
            }
        }
        published = state
        if changed != 0 {
            for (name, sensors) in claims.all {
                let mask = sensors.reduce(SensorProxyProperties()) { $0.union(.of($1)) }.rawValue & changed
                if mask == 0 { continue }
                let sent = od_proxy_emit(proxy, mask, name)
                if sent < 0 { return sent }
                caches.told(name, SensorProxyProperties(rawValue: UInt32(sent)), from: state)
            }
        }
        if firstOrientationKnown { answerHeld { $0.sensor == .accelerometer } }
        return 0
    }

    /// ``SensorProxyProperties``' bits are the shim's `OD_PROP_*`: a set crosses to C as its raw
    /// value (checked by the tests through this table).
    static let shimBits: [(SensorProxyProperties, Int32)] = [
        (.hasAccelerometer, Int32(OD_PROP_HAS_ACCELEROMETER)), (.accelerometerOrientation, Int32(OD_PROP_ORIENTATION)),
        (.accelerometerTilt, Int32(OD_PROP_TILT)), (.hasAmbientLight, Int32(OD_PROP_HAS_LIGHT)),
        (.lightLevel, Int32(OD_PROP_LIGHT_LEVEL)), (.lightLevelUnit, Int32(OD_PROP_LIGHT_UNIT)),
        (.hasProximity, Int32(OD_PROP_HAS_PROXIMITY)), (.proximityNear, Int32(OD_PROP_PROXIMITY_NEAR)),
        (.hasCompass, Int32(OD_PROP_HAS_COMPASS)), (.compassHeading, Int32(OD_PROP_COMPASS_HEADING)),
    ]

    /// Answers the held claims whose wait has run out, and the claims whose polkit check ran out
    /// of time; returns the milliseconds until the next one runs out (-1: none), for poll(2).
    func expireHeld() -> Int32 {
        let now = OwnerThread.monotonic()
        answerHeld { $0.deadline <= now }
        perform(checks.expire(now: now))
        let deadlines = held.map(\.deadline) + (checks.nextDeadline.map { [$0] } ?? [])
        guard let next = deadlines.min() else { return -1 }
        return Int32(max(0, min(60_000, ((next - now) * 1000).rounded(.up))))
    }

    private func answerHeld(where shouldAnswer: (HeldClaim) -> Bool) {
        var answered: [HeldClaim] = []
        held.removeAll { claim in
            guard shouldAnswer(claim) else { return false }
            _ = od_proxy_reply(claim.call, nil, nil)
            answered.append(claim)
            return true
        }
        for claim in answered { catchUp(claim.name, on: claim.sensor) }
    }

    /// Before the connection is freed: drops every waiting call and every claim (no claimer
    /// survives the connection).
    func end() {
        for caller in callers.values { for call in caller.calls { od_proxy_call_unref(call.call) } }
        callers = [:]
        identities = [:]
        identifying = 0
        identityQueue = []
        identityQueueHead = 0
        checks = PolkitChecks(limits: checks.limits)
        for claim in held { od_proxy_call_unref(claim.call) }
        held = []
        caches.forgetAll()
        for sensor in claims.removeAll() { claimChanged(sensor, false) }
    }
}
