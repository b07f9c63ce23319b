import OrientationCore
import SensorProxyModel
import Testing

/// The facade's mapping from orientationd's state to iio-sensor-proxy's strings.
@Suite struct SensorProxyStateTests {
    /// Each row: the device orientations in order (lock off) → the published
    /// (AccelerometerOrientation, AccelerometerTilt) after each.
    static let rows: [(name: String, steps: [DeviceOrientation], published: [(String, String)])] = [
        ("the four in-plane orientations", [.portrait, .landscapeLeft, .portraitUpsideDown, .landscapeRight],
         [("normal", "vertical"), ("right-up", "vertical"), ("bottom-up", "vertical"), ("left-up", "vertical")]),
        ("flat keeps the last in-plane orientation", [.landscapeRight, .faceUp, .faceDown, .portrait],
         [("left-up", "vertical"), ("left-up", "face-up"), ("left-up", "face-down"), ("normal", "vertical")]),
        ("flat first: nothing in-plane yet", [.faceUp, .landscapeLeft],
         [("undefined", "face-up"), ("right-up", "vertical")]),
        ("unknown (a vanished sensor) is undefined", [.portrait, .unknown, .faceUp],
         [("normal", "vertical"), ("undefined", "undefined"), ("undefined", "face-up")]),
    ]

    @Test(arguments: rows.indices)
    func mapsLikeIioSensorProxy(_ index: Int) {
        let row = Self.rows[index]
        var state = SensorProxyState(hasAccelerometer: true)
        #expect(state.orientation == "undefined" && state.tilt == "undefined")
        for (device, expected) in zip(row.steps, row.published) {
            state.update(device: device, locked: false)
            #expect(state.orientation == expected.0 && state.tilt == expected.1, "\(row.name): \(device)")
        }
    }

    /// While locked, AccelerometerOrientation holds (desktops stop rotating); the tilt goes on;
    /// unlocking publishes where the device is now.
    @Test func theLockHoldsTheOrientationAndUnlockReleasesIt() {
        var state = SensorProxyState(hasAccelerometer: true)
        state.update(device: .portrait, locked: false)
        state.update(device: .portrait, locked: true)
        state.update(device: .landscapeLeft, locked: true)
        #expect(state.orientation == "normal")
        state.update(device: .faceUp, locked: true)
        #expect(state.orientation == "normal" && state.tilt == "face-up")
        state.update(device: .faceUp, locked: false)
        #expect(state.orientation == "right-up", "the last in-plane orientation, seen while locked")
    }

    /// Once the samples give the tilt (the daemon), the seven states no longer do: a device
    /// leaning back in portrait is `tilted-up`, and an unknown orientation (a lock toggled before
    /// the first decision) leaves it alone.
    @Test func theSamplesTiltWinsOverTheStatesStandIn() {
        var state = SensorProxyState(hasAccelerometer: true)
        state.update(tilt: .tiltedUp)
        state.update(device: .portrait, locked: false)
        #expect(state.orientation == "normal" && state.tilt == "tilted-up")
        state.update(device: .faceUp, locked: false)
        #expect(state.tilt == "tilted-up", "orientationd's face-up (78°) is not the peer's tilt")
        state.update(device: .unknown, locked: true)
        #expect(state.tilt == "tilted-up")
        state.update(tilt: .undefined)
        #expect(state.tilt == "undefined")
    }
}
