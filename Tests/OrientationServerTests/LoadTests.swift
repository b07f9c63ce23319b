import Glibc
import OrientationCore
import OrientationProtocol
import Testing

/// 1,000 concurrent subscribers each receive every event, in order, while one more client
/// subscribes and never reads. (Delays are measured by the benchmarks, not asserted here.)
@Suite(.serialized) struct LoadTests {
    @Test func aThousandSubscribersReceiveEveryEvent() async throws {
        raiseFileLimit()
        let harness = try await ServerHarness.start()
        let stalled = try TestSocket(path: harness.path)
        stalled.send("{\"op\":\"subscribe\"}\n")
        var clients: [TestSocket] = []
        for _ in 0..<1000 {
            let client = try TestSocket(path: harness.path)
            client.send("{\"op\":\"subscribe\"}\n")
            clients.append(client)
        }
        for (index, client) in clients.enumerated() {
            guard client.readLine()?.contains("\"hello\"") == true, client.readLine()?.contains("\"subscribed\"") == true else {
                Issue.record("client \(index) was not subscribed")
                return
            }
        }
        #expect(try await harness.server.hub.counts() == (1001, 1001))
        let sequence: [DeviceOrientation] = [.portrait, .landscapeLeft, .faceUp, .landscapeRight, .portraitUpsideDown, .faceDown]
        for round in 0..<5 {
            for (k, orientation) in sequence.enumerated() {
                harness.server.hub.publish(orientation: orientation, time: Double(round * 10 + k))
            }
            for (index, client) in clients.enumerated() {
                for (k, orientation) in sequence.enumerated() {
                    let line = client.readLine()
                    guard let line, case .orientation(let state) = try ServerMessage.parse(Array(line.utf8)) else {
                        Issue.record("client \(index) missed event \(k) of round \(round): \(line ?? "nothing")")
                        return
                    }
                    if state.orientation != orientation || state.seq != UInt64(round * sequence.count + k + 1) {
                        Issue.record("client \(index): got \(state.orientation) seq \(state.seq)")
                        return
                    }
                }
            }
        }
        await harness.stop()
    }
}
