import OrientationCore
import SensorProxyModel
import Testing

/// What each D-Bus client holds of the facade's properties (issue 42): what a claim's answer must
/// be followed by.
@Suite struct ClientPropertyCachesTests {
    /// The facade before any reading, and after the light, proximity and compass and the
    /// accelerometer have read.
    static let closed: SensorProxyState = {
        var state = SensorProxyState(hasAccelerometer: true)
        state.hasAmbientLight = true
        state.hasProximity = true
        state.hasCompass = true
        return state
    }()
    static let open: SensorProxyState = {
        var state = closed
        state.lightLevel = 312
        state.proximityNear = true
        state.compassHeading = 90
        state.update(device: .portrait, locked: false)
        return state
    }()

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        /// What the client was told, in order, and from which state.
        let told: [(SensorProxyProperties, SensorProxyState)]
        let sensor: ProxySensor
        let stale: SensorProxyProperties
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "never told anything: every property of the sensor", told: [], sensor: .light, stale: .of(.light)),
        Case(name: "loaded while closed, claimed when open: the changed values",
             told: [(.all, closed)], sensor: .light, stale: .lightLevel),
        Case(name: "loaded while closed: the accelerometer's orientation and tilt",
             told: [(.all, closed)], sensor: .accelerometer, stale: [.accelerometerOrientation, .accelerometerTilt]),
        Case(name: "loaded while open: nothing", told: [(.all, open)], sensor: .compass, stale: []),
        Case(name: "loaded while closed, then a signal with the new value: nothing",
             told: [(.all, closed), (.of(.proximity), open)], sensor: .proximity, stale: []),
        Case(name: "a signal carried only part of the sensor: the rest",
             told: [(.lightLevel, open)], sensor: .light, stale: [.hasAmbientLight, .lightLevelUnit]),
        Case(name: "told the new value, then an old one again: stale once more",
             told: [(.all, open), (.compassHeading, closed)], sensor: .compass, stale: .compassHeading),
    ]

    @Test(arguments: cases) func staleIsWhatTheClientDoesNotHold(_ c: Case) {
        var caches = ClientPropertyCaches()
        for (properties, state) in c.told { caches.told(":1.7", properties, from: state) }
        #expect(caches.stale(.of(c.sensor), of: ":1.7", against: Self.open) == c.stale)
        // Another client is untouched by what this one was told.
        #expect(caches.stale(.of(c.sensor), of: ":1.8", against: Self.open) == .of(c.sensor))
    }

    @Test func aForgottenClientAndOnePastTheCapacityAreSentEverything() {
        var caches = ClientPropertyCaches(capacity: 2)
        caches.told(":1.1", .all, from: Self.open)
        caches.told(":1.2", .all, from: Self.open)
        caches.told(":1.3", .all, from: Self.open)  // past the capacity: not remembered
        #expect(caches.count == 2)
        #expect(caches.stale(.all, of: ":1.1", against: Self.open) == [])
        #expect(caches.stale(.all, of: ":1.3", against: Self.open) == .all)
        caches.forget(":1.1")
        #expect(caches.stale(.all, of: ":1.1", against: Self.open) == .all)
        caches.told(":1.3", .all, from: Self.open)  // room again
        #expect(caches.stale(.all, of: ":1.3", against: Self.open) == [])
        caches.forgetAll()
        #expect(caches.count == 0)
    }

    @Test func eachSensorsPropertiesAreItsOwnAndCoverEveryProperty() {
        let sets = ProxySensor.allCases.map { SensorProxyProperties.of($0) }
        #expect(sets.reduce(SensorProxyProperties()) { $0.union($1) } == .all)
        for (i, a) in sets.enumerated() {
            for b in sets[(i + 1)...] { #expect(a.isDisjoint(with: b)) }
        }
    }

    @Test func takeAndDifferAgreeOnEveryProperty() {
        for bit in 0..<10 {
            let property = SensorProxyProperties(rawValue: 1 << bit)
            #expect(Self.open.properties(.all, differingFrom: Self.open) == [])
            var copy = Self.closed
            copy.take(property, from: Self.open)
            // Exactly this property now agrees with `open` where it differed.
            let before = Self.closed.properties(.all, differingFrom: Self.open)
            #expect(copy.properties(.all, differingFrom: Self.open) == before.subtracting(property), "\(property.rawValue)")
        }
    }
}
