import OrientationCore
import SensorProxyModel
import Testing

/// The claim table of the D-Bus facade (issue 18, item 2; issue 16, item 8).
@Suite struct SensorProxyClaimsTests {
    @Test func claimsArePerNameAndPerSensor() {
        var claims = SensorProxyClaims()
        let r1 = claims.claim(.accelerometer, by: ":1.1", uid: 1000, reserved: true)
        #expect(r1 == .granted(first: true))
        let r2 = claims.claim(.accelerometer, by: ":1.1", uid: 1000, reserved: true)
        #expect(r2 == .alreadyClaimed)
        let r3 = claims.claim(.accelerometer, by: ":1.2", uid: 1000, reserved: true)
        #expect(r3 == .granted(first: false))
        let r4 = claims.claim(.light, by: ":1.2", uid: 1000, reserved: true)
        #expect(r4 == .granted(first: true))
        #expect(claims.count == 2)
        let r5 = claims.release(.accelerometer, by: ":1.1")
        #expect(!r5, "another name still claims it")
        let r6 = claims.release(.compass, by: ":1.2")
        #expect(!r6, "never claimed: nothing changes")
        let r7 = claims.remove(":1.2")
        #expect(r7.sorted { $0.rawValue < $1.rawValue } == [.accelerometer, .light])
        #expect(claims.count == 0)
        #expect(!claims.isClaimed(.accelerometer) && !claims.isClaimed(.light))
    }

    struct Bound: Sendable, CustomTestStringConvertible {
        let label: String
        let uid: UInt32
        let reserved: Bool
        let names: Int
        let granted: Int
        var testDescription: String { label }
    }

    /// Limits 4 per user, 6 in all, 2 more for root and active sessions.
    static let bounds: [Bound] = [
        Bound(label: "one user past its share", uid: 65534, reserved: false, names: 10, granted: 4),
        Bound(label: "root is not bounded per user", uid: 0, reserved: false, names: 10, granted: 8),
        Bound(label: "an active session is bounded per user", uid: 1000, reserved: true, names: 10, granted: 4),
    ]

    @Test(arguments: bounds) func boundsPerUser(_ bound: Bound) {
        var claims = SensorProxyClaims(limits: .init(perUser: 4, total: 6, reserve: 2))
        let granted = (0..<bound.names).filter { k in
            if case .granted = claims.claim(.accelerometer, by: ":1.\(k)", uid: bound.uid, reserved: bound.reserved) { return true }
            return false
        }.count
        #expect(granted == bound.granted)
    }

    @Test func theReserveIsKeptForRootAndActiveSessions() {
        var claims = SensorProxyClaims(limits: .init(perUser: 4, total: 6, reserve: 2))
        for (k, uid) in [60001, 60001, 60001, 60002, 60002, 60002].enumerated() {
            let r8 = claims.claim(.accelerometer, by: ":1.\(k)", uid: UInt32(uid), reserved: false)
            #expect(r8 == .granted(first: k == 0))
        }
        guard case .refused = claims.claim(.accelerometer, by: ":1.10", uid: 60003, reserved: false) else {
            Issue.record("an unreserved caller took the reserve")
            return
        }
        let r9 = claims.claim(.accelerometer, by: ":1.11", uid: 1000, reserved: true)
        #expect(r9 == .granted(first: false))
        let r10 = claims.claim(.light, by: ":1.12", uid: 0, reserved: false)
        #expect(r10 == .granted(first: true))
        guard case .refused = claims.claim(.accelerometer, by: ":1.13", uid: 0, reserved: true) else {
            Issue.record("past the reserve")
            return
        }
        // A name that leaves frees its slot; a name already in the table claims more sensors freely.
        let r11 = claims.claim(.compass, by: ":1.0", uid: 60001, reserved: false)
        #expect(r11 == .granted(first: true))
        let r12 = claims.remove(":1.1")
        #expect(r12 == [])
        let r13 = claims.claim(.accelerometer, by: ":1.20", uid: 60003, reserved: false)
        #expect(r13 == .granted(first: false))
    }
}
