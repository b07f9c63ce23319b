import OrientationCore
import OrientationProtocol
import Testing

/// Issue 21, item 2: the sensor's state and reason on the wire, and what an old client or an
/// old server sees.
@Suite struct SensorStatusWireTests {
    static let absent = OrientationState(sensor: SensorStatus(.absent, reason: "cannot open iio: no display accelerometer found (orientationd --list-sensors shows what there is)"))

    @Test func aSensorMessageHasAStableWireFormAndRoundTrips() throws {
        let message = ServerMessage.sensor(state: Self.absent)
        let line = "{\"type\":\"sensor\",\"orientation\":\"unknown\",\"previous\":\"unknown\",\"time\":null,\"seq\":0,\"locked\":false,"
            + "\"sensor\":\"absent\",\"sensor-reason\":\"cannot open iio: no display accelerometer found (orientationd --list-sensors shows what there is)\"}"
        #expect(message.line == line)
        #expect(try ServerMessage.parse(Array(line.utf8)) == message)
    }

    @Test func everyStateCarryingReplyCarriesIt() throws {
        for message in [ServerMessage.hello(protocol: 1, server: "orientationd 0.1.0", state: Self.absent),
                        .subscribed(state: Self.absent, id: nil), .orientation(state: Self.absent), .lock(state: Self.absent, id: nil),
                        .state(state: Self.absent, age: nil, sensorActive: false, subscribers: 1, id: nil)] {
            #expect(message.line.contains("\"sensor\":\"absent\""), "\(message.line)")
            #expect(try ServerMessage.parse(Array(message.line.utf8)) == message)
        }
    }

    /// An old server sends neither member: no status. A newer server's unknown state: no status
    /// either, and the message still parses.
    @Test(arguments: ["", ",\"sensor\":\"levitating\",\"sensor-reason\":\"x\""])
    func anOldOrNewerServerIsUnderstood(_ members: String) throws {
        let line = "{\"type\":\"orientation\",\"orientation\":\"portrait\",\"previous\":\"unknown\",\"time\":1,\"seq\":1,\"locked\":false\(members)}"
        guard case .orientation(let state) = try ServerMessage.parse(Array(line.utf8)) else { Issue.record("not parsed"); return }
        #expect(state.sensor == nil)
        #expect(state.orientation == .portrait)
    }

    static let summaries: [(SensorStatus, String)] = [
        (SensorStatus(.closed), "closed (nobody subscribes)"),
        (SensorStatus(.opening), "opening"),
        (SensorStatus(.open), "open"),
        (SensorStatus(.absent, reason: "cannot open iio: no display accelerometer found (orientationd --list-sensors shows what there is)"),
         "absent: cannot open iio: no display accelerometer found; see orientationd --list-sensors"),
        (SensorStatus(.failed, reason: "iio:device0 stalled: no data for 3.0 s"), "failed: iio:device0 stalled: no data for 3.0 s; see orientationd --list-sensors"),
        (SensorStatus(.closed, reason: "at the last attempt: no display accelerometer found"),
         "closed (nobody subscribes): at the last attempt: no display accelerometer found; see orientationd --list-sensors"),
        (SensorStatus(.ended, reason: "the replayed log is over"), "ended: the replayed log is over"),
        // Issue 29: presence known before anyone subscribes.
        (SensorStatus(.closed, present: false), "closed (nobody subscribes): no display accelerometer found; see orientationd --list-sensors"),
        (SensorStatus(.closed, present: true), "closed (nobody subscribes)"),
        (SensorStatus(.opening, present: false), "opening: no display accelerometer found; see orientationd --list-sensors"),
    ]

    @Test(arguments: summaries)
    func theSummaryIsInWordsWithTheCommandThatHelps(_ row: (SensorStatus, String)) {
        #expect(row.0.summary == row.1)
    }

    /// `sensor-present` goes on the wire only when the daemon knows (live sensors), and reads back.
    @Test func presenceIsSentOnlyWhenKnownAndRoundTrips() throws {
        let none = OrientationState(sensor: SensorStatus(.closed, present: false))
        let message = ServerMessage.hello(protocol: 1, server: "orientationd 0.1.0", state: none)
        #expect(message.line.contains("\"sensor-reason\":null,\"sensor-present\":false"), "\(message.line)")
        #expect(try ServerMessage.parse(Array(message.line.utf8)) == message)
        #expect(!ServerMessage.sensor(state: Self.absent).line.contains("sensor-present"), "unknown: not sent")
    }
}
