import OrientationCore
import SensorProxyModel
import Testing

/// The polkit checks of D-Bus claims (issue 26): bounded in flight, answered in time, never for a
/// caller that left, reused only for the same subject.
@Suite struct PolkitChecksTests {
    typealias Subject = PolkitChecks.Subject

    static let nobody = Subject(uid: 65534)
    static let www = Subject(uid: 33)
    static let user = Subject(uid: 1000, session: "3", active: true)

    /// The checks an action list asks for.
    static func asks(_ actions: [PolkitChecks.Action]) -> [(check: UInt64, about: String)] {
        actions.compactMap { if case .ask(let check, let about) = $0 { (check, about) } else { nil } }
    }

    static func answers(_ actions: [PolkitChecks.Action]) -> [String: PolkitChecks.Answer] {
        var result: [String: PolkitChecks.Answer] = [:]
        for case .answer(let name, let answer) in actions { result[name] = answer }
        return result
    }

    @Test func callersOfOneSubjectShareOneCheck() {
        var checks = PolkitChecks()
        let first = Self.asks(checks.request(":1.1", subject: Self.nobody, now: 0))
        #expect(first.count == 1 && first[0].about == ":1.1")
        #expect(checks.request(":1.2", subject: Self.nobody, now: 0).isEmpty, "joins the check in flight")
        let done = checks.answered(first[0].check, .verdict(.notAuthorized), now: 0.1)
        #expect(Self.answers(done) == [":1.1": .verdict(.notAuthorized), ":1.2": .verdict(.notAuthorized)])
        #expect(checks.inFlight == 0 && checks.waitingCount == 0)
    }

    struct Reuse: Sendable, CustomTestStringConvertible {
        let label: String
        let second: Subject
        let after: Double
        let reused: Bool
        var testDescription: String { label }
    }

    static let reuses: [Reuse] = [
        Reuse(label: "same subject, soon", second: user, after: 4.9, reused: true),
        Reuse(label: "same subject, too late", second: user, after: 5.0, reused: false),
        Reuse(label: "another uid", second: Subject(uid: 1001, session: "3", active: true), after: 0.1, reused: false),
        Reuse(label: "another session", second: Subject(uid: 1000, session: "4", active: true), after: 0.1, reused: false),
        Reuse(label: "the session no longer active", second: Subject(uid: 1000, session: "3", active: false), after: 0.1, reused: false),
    ]

    /// A claim loop costs one check per subject per cache lifetime, never a verdict of another.
    @Test(arguments: reuses) func aVerdictIsReusedOnlyForItsSubject(_ reuse: Reuse) {
        var checks = PolkitChecks()
        let first = Self.asks(checks.request(":1.1", subject: Self.user, now: 0))
        _ = checks.answered(first[0].check, .verdict(.authorized), now: 0)
        let second = checks.request(":1.2", subject: reuse.second, now: reuse.after)
        if reuse.reused {
            #expect(second == [.answer(":1.2", .verdict(.authorized))])
        } else {
            #expect(Self.asks(second).count == 1, "asked again: \(second)")
        }
    }

    @Test func aFailureIsNeverRemembered() {
        var checks = PolkitChecks()
        let first = Self.asks(checks.request(":1.1", subject: Self.user, now: 0))
        let failed = checks.answered(first[0].check, .failed("boom"), now: 0)
        #expect(Self.answers(failed) == [":1.1": .failed("boom")])
        #expect(Self.asks(checks.request(":1.2", subject: Self.user, now: 0.1)).count == 1)
    }

    /// A polkit that never answers one uid holds that uid's slots, and no one else's.
    @Test func aHungUidHoldsOnlyItsOwnSlots() {
        var checks = PolkitChecks(limits: .init(perUser: 2, total: 4, reserve: 2))
        var sent = 0
        for k in 0..<10 {
            // Each its own session, so that no two share a check.
            sent += Self.asks(checks.request(":1.\(k)", subject: Subject(uid: 65534, session: "s\(k)"), now: 0)).count
        }
        #expect(sent == 2, "per-uid bound")
        let other = checks.request(":2.1", subject: Self.www, now: 1)
        #expect(Self.asks(other).count == 1, "another uid is asked at once")
        // The hung uid's callers are answered in time, refused: never allowed because polkit failed.
        let expired = Self.answers(checks.expire(now: 10))
        #expect(expired.count == 10)
        #expect(expired.values.allSatisfy { if case .failed = $0 { true } else { false } })
        // Their checks still count (the bus counts them until polkit answers): no more are sent.
        #expect(checks.inFlight == 3)
        #expect(Self.asks(checks.request(":1.20", subject: Subject(uid: 65534, session: "x"), now: 11)).isEmpty)
    }

    /// The total bound keeps a reserve for callers in an active session.
    @Test func theReserveIsKeptForActiveSessions() {
        var checks = PolkitChecks(limits: .init(perUser: 1, total: 3, reserve: 1))
        for uid in 60001...60004 {
            _ = checks.request(":1.\(uid)", subject: Subject(uid: UInt32(uid)), now: 0)
        }
        #expect(checks.inFlight == 3, "the fourth inactive uid waits")
        let active = checks.request(":2.1", subject: Self.user, now: 0)
        #expect(Self.asks(active).count == 1, "the reserve")
        let another = checks.request(":2.2", subject: Subject(uid: 1001, session: "9", active: true), now: 0)
        #expect(Self.asks(another).isEmpty, "the reserve is used up")
    }

    /// A caller that left is never asked about; a check whose subject left is asked again about
    /// one still waiting.
    @Test func callersThatLeftAreNotAskedAbout() {
        var checks = PolkitChecks(limits: .init(perUser: 1))
        let first = Self.asks(checks.request(":1.1", subject: Self.nobody, now: 0))
        _ = checks.request(":1.2", subject: Self.nobody, now: 0)
        _ = checks.request(":1.3", subject: Self.nobody, now: 0)
        checks.left(":1.1")
        checks.left(":1.2")
        let again = checks.answered(first[0].check, .failed("no such name"), now: 0.2)
        #expect(Self.answers(again).isEmpty, "the others were not asked about")
        #expect(Self.asks(again).map(\.about) == [":1.3"])
        #expect(checks.waitingCount == 1)
        // A queued request of another subject, dropped before its turn, is never sent.
        var queued = PolkitChecks(limits: .init(perUser: 1, total: 1, reserve: 0))
        let busy = Self.asks(queued.request(":1.1", subject: Self.nobody, now: 0))
        #expect(queued.request(":1.2", subject: Self.www, now: 0).isEmpty)
        queued.left(":1.2")
        #expect(Self.asks(queued.answered(busy[0].check, .verdict(.authorized), now: 0.1)).isEmpty)
    }

    /// When a slot frees, the longest-waiting subject goes first.
    @Test func waitingSubjectsGoInArrivalOrder() {
        var checks = PolkitChecks(limits: .init(perUser: 4, total: 1, reserve: 0))
        let busy = Self.asks(checks.request(":1.1", subject: Self.nobody, now: 0))
        _ = checks.request(":1.2", subject: Self.www, now: 0.1)
        _ = checks.request(":1.3", subject: Subject(uid: 1000), now: 0.2)
        let next = checks.answered(busy[0].check, .verdict(.authorized), now: 1)
        #expect(Self.asks(next).map(\.about) == [":1.2"])
        #expect(Self.answers(next) == [":1.1": .verdict(.authorized)])
    }

    struct Waiting: Sendable, CustomTestStringConvertible {
        let label: String
        let uids: [UInt32]
        let refused: Int
        var testDescription: String { label }
    }

    static let waitings: [Waiting] = [
        Waiting(label: "one uid past its share", uids: Array(repeating: 65534, count: 5), refused: 2),
        Waiting(label: "two uids past the total", uids: [65534, 65534, 65534, 33, 33, 33], refused: 2),
    ]

    /// Waiting callers are bounded per uid and in total; past them, refused at once.
    @Test(arguments: waitings) func waitingIsBounded(_ waiting: Waiting) {
        var checks = PolkitChecks(limits: .init(waitingPerUser: 3, waiting: 4))
        var refused = 0
        for (k, uid) in waiting.uids.enumerated() {
            let actions = checks.request(":1.\(k)", subject: Subject(uid: uid, session: "\(k)"), now: 0)
            if case .refused = Self.answers(actions)[":1.\(k)"] { refused += 1 }
        }
        #expect(refused == waiting.refused)
    }

    @Test func aLateAnswerStillServesTheNextClaim() {
        var checks = PolkitChecks()
        let first = Self.asks(checks.request(":1.1", subject: Self.user, now: 0))
        #expect(Self.answers(checks.expire(now: 10)) == [":1.1": .failed("polkit did not answer within 10 s")])
        #expect(checks.request(":1.2", subject: Self.user, now: 11).isEmpty, "waits for the check still in flight")
        let late = checks.answered(first[0].check, .verdict(.authorized), now: 12)
        #expect(Self.answers(late) == [":1.2": .verdict(.authorized)])
        #expect(checks.nextDeadline == nil)
    }
}
