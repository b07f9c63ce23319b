import OrientationCore

/// The detector's specification: every scenario with the events a careful user expects.
///
/// The rules behind the expectations:
/// - A stream's first decision is an event (from `unknown`); after that, a device that is only
///   held, carried, shaken or drifted about near an orientation produces **no** event.
/// - Every deliberate turn into another orientation produces exactly one event, after the
///   device comes to rest (a 180° turn produces only the final orientation).
/// - Putting the device on a table gives `face-up` (or `face-down`); picking it up gives the
///   orientation it is held in, with nothing in between.
public enum ScenarioCatalog {
    /// Every scenario.
    public static var all: [Scenario] {
        still + noise + walking + drift + rotations + halfTurns + putDownPickUp + bed + shakes + gaps + jitter
            + handling + transit + briefHolds + vigorous + shortHolds + fastTurns + handledVigorously
    }

    // MARK: - Holding still

    public static var still: [Scenario] {
        func resting(_ name: String, _ pose: Pose, _ orientation: DeviceOrientation) -> Scenario {
            var script = MotionScript(start: pose)
            script.tremor = 0
            script.handSway = 0
            script.hold(20)
            return Scenario("still: \(name)", .still, script: script, expected: [.init(orientation)])
        }
        return [
            resting("tablet on a stand, portrait", Pose(angle: 0, tilt: 15), .portrait),
            resting("tablet on a stand, landscape-left", Pose(angle: 90, tilt: 15), .landscapeLeft),
            resting("tablet on a stand, landscape-right", Pose(angle: -90, tilt: 15), .landscapeRight),
            resting("propped up upside down", Pose(angle: 180, tilt: 15), .portraitUpsideDown),
            resting("face-up on a table", Pose(angle: 0, tilt: 90), .faceUp),
            resting("face-up on a slightly sloped table", Pose(angle: 30, tilt: 84), .faceUp),
            resting("face-down on a table", Pose(angle: 0, tilt: -90), .faceDown),
        ]
    }

    // MARK: - Noise and tremor

    public static var noise: [Scenario] {
        func held(_ name: String, _ pose: Pose, _ orientation: DeviceOrientation,
                  tremor: Double = 0.1, sway: Double = 1.5, sensorNoise: Double = 0.04, seed: UInt64 = 2) -> Scenario {
            var script = MotionScript(start: pose)
            script.tremor = tremor
            script.handSway = sway
            script.accelerometerNoise = sensorNoise
            script.hold(30)
            return Scenario("hand-held: \(name)", .noise, script: script, expected: [.init(orientation)], seed: seed)
        }
        return [
            held("portrait, reading", Pose(angle: 0, tilt: 35), .portrait),
            held("landscape-left, watching", Pose(angle: 90, tilt: 30), .landscapeLeft),
            held("landscape-right, watching", Pose(angle: -90, tilt: 30), .landscapeRight),
            held("upside down", Pose(angle: 180, tilt: 25), .portraitUpsideDown),
            held("portrait, strong tremor", Pose(angle: 0, tilt: 30), .portrait, tremor: 0.5, sway: 4, seed: 3),
            held("portrait, noisy cheap sensor", Pose(angle: 0, tilt: 30), .portrait, sensorNoise: 0.4, seed: 4),
            held("landscape, steep (60° tilt)", Pose(angle: 90, tilt: 60), .landscapeLeft, seed: 5),
            held("portrait, tilted 25° toward the diagonal", Pose(angle: 25, tilt: 30), .portrait, tremor: 0.3, sway: 3, seed: 6),
        ]
    }

    // MARK: - Walking

    public static var walking: [Scenario] {
        func walk(_ name: String, _ pose: Pose, _ orientation: DeviceOrientation, bounce: Double = 2.5, seed: UInt64 = 7) -> Scenario {
            var script = MotionScript(start: pose)
            script.hold(1)
            script.walks.append(.init(start: 1, duration: 28, bounce: bounce))
            script.hold(29)
            return Scenario("walking: \(name)", .walking, script: script, expected: [.init(orientation)], seed: seed)
        }
        return [
            walk("reading in portrait", Pose(angle: 0, tilt: 35), .portrait),
            walk("watching in landscape", Pose(angle: 90, tilt: 25), .landscapeLeft, seed: 8),
            walk("brisk, portrait held low", Pose(angle: 0, tilt: 55), .portrait, bounce: 3.5, seed: 9),
        ]
    }

    // MARK: - Slow drift

    public static var drift: [Scenario] {
        var across = MotionScript(start: Pose(angle: 0, tilt: 25))
        across.hold(2)
        across.move(to: Pose(angle: 58, tilt: 25), duration: 6)
        across.hold(2)
        across.move(to: Pose(angle: 32, tilt: 25), duration: 6)
        across.move(to: Pose(angle: 60, tilt: 25), duration: 6)
        across.move(to: Pose(angle: 5, tilt: 25), duration: 6)
        across.hold(2)

        var fromLandscape = MotionScript(start: Pose(angle: -90, tilt: 30))
        fromLandscape.hold(2)
        fromLandscape.move(to: Pose(angle: -30, tilt: 30), duration: 8)
        fromLandscape.hold(3)
        fromLandscape.move(to: Pose(angle: -150, tilt: 30), duration: 10)
        fromLandscape.move(to: Pose(angle: -90, tilt: 30), duration: 5)

        var towardFlat = MotionScript(start: Pose(angle: 0, tilt: 20))
        towardFlat.hold(2)
        towardFlat.move(to: Pose(angle: 0, tilt: 70), duration: 6)
        towardFlat.hold(4)
        towardFlat.move(to: Pose(angle: 0, tilt: 20), duration: 6)

        var hoverFaceUp = MotionScript(start: Pose(angle: 10, tilt: 88))
        hoverFaceUp.hold(2)
        hoverFaceUp.move(to: Pose(angle: 10, tilt: 66), duration: 4)
        hoverFaceUp.hold(4)
        hoverFaceUp.move(to: Pose(angle: 10, tilt: 85), duration: 4)

        return [
            Scenario("drift: back and forth across the portrait/landscape diagonal", .drift, script: across, expected: [.init(.portrait)], seed: 10),
            Scenario("drift: landscape-right toward both diagonals", .drift, script: fromLandscape, expected: [.init(.landscapeRight)], seed: 11),
            Scenario("drift: portrait leaned back to 70° and up again", .drift, script: towardFlat, expected: [.init(.portrait)], seed: 12),
            Scenario("drift: face-up lifted to 66° and laid back", .drift, script: hoverFaceUp, expected: [.init(.faceUp)], seed: 13),
        ]
    }

    // MARK: - Deliberate rotations

    /// Every quarter turn between adjacent orientations, both directions, three speeds, three
    /// screen tilts.
    public static var rotations: [Scenario] {
        var result: [Scenario] = []
        var seed: UInt64 = 100
        for fromTurns in 0..<4 {
            for direction in [1, -1] {
                for duration in [0.35, 0.7, 1.5] {
                    for tilt in [0.0, 30.0, 55.0] {
                        let fromAngle = Double(fromTurns) * 90
                        let from = Pose(angle: fromAngle, tilt: tilt)
                        let to = Pose(angle: fromAngle + Double(direction) * 90, tilt: tilt)
                        var script = MotionScript(start: from)
                        script.hold(3)
                        let rest = script.move(to: to, duration: duration)
                        script.hold(3)
                        seed += 1
                        result.append(Scenario(
                            "rotate \(from.nominalOrientation) → \(to.nominalOrientation) in \(duration) s at \(Int(tilt))° tilt",
                            .rotation, script: script,
                            expected: [.init(from.nominalOrientation), .init(to.nominalOrientation, restTime: rest, moveStart: 3)],
                            seed: seed))
                    }
                }
            }
        }
        return result
    }

    /// Half turns in one continuous motion: only the final orientation is published.
    public static var halfTurns: [Scenario] {
        var result: [Scenario] = []
        var seed: UInt64 = 300
        for (start, end) in [(0.0, 180.0), (0.0, -180.0), (90.0, -90.0), (-90.0, 90.0)] {
            for duration in [0.45, 0.8] {
                var script = MotionScript(start: Pose(angle: start, tilt: 25))
                script.hold(3)
                let rest = script.move(to: Pose(angle: end, tilt: 25), duration: duration)
                script.hold(3)
                seed += 1
                let from = Pose(angle: start, tilt: 25).nominalOrientation, to = Pose(angle: end, tilt: 25).nominalOrientation
                result.append(Scenario("half turn \(from) → \(to) (\(end > start ? "counter-clockwise" : "clockwise")) in \(duration) s",
                                       .rotation, script: script,
                                       expected: [.init(from), .init(to, restTime: rest, moveStart: 3)], seed: seed))
            }
        }
        return result
    }

    // MARK: - Put down, pick up

    public static var putDownPickUp: [Scenario] {
        func scenario(_ name: String, held: Pose, tableAngle: Double, pickedUp: Pose, wobble: Double = 0, seed: UInt64) -> Scenario {
            var script = MotionScript(start: held)
            script.hold(3)
            if wobble != 0 {
                // A careless put-down: the device tips sideways on the way to the table.
                script.move(to: Pose(angle: held.angle + wobble, tilt: (held.tilt + 90) / 2), duration: 0.5)
                script.move(to: Pose(angle: tableAngle, tilt: 90), duration: 0.5)
            } else {
                script.move(to: Pose(angle: tableAngle, tilt: 90), duration: 1.0)
            }
            let downRest = script.duration
            script.translations.append(.init(start: 3, duration: downRest - 3, displacement: Vector3(0.05, 0.1, -0.3)))
            script.hold(4)
            let upStart = script.duration
            let upRest = script.move(to: pickedUp, duration: 1.0)
            script.translations.append(.init(start: upStart, duration: 1.0, displacement: Vector3(-0.05, -0.1, 0.3)))
            script.hold(3)
            return Scenario("put down and pick up: \(name)", .putDownPickUp, script: script, expected: [
                .init(held.nominalOrientation),
                .init(.faceUp, restTime: downRest, moveStart: 3),
                .init(pickedUp.nominalOrientation, restTime: upRest, moveStart: upStart),
            ], seed: seed)
        }
        return [
            scenario("portrait", held: .portrait(tilt: 30), tableAngle: 0, pickedUp: .portrait(tilt: 30), seed: 20),
            scenario("landscape", held: .landscapeLeft(tilt: 30), tableAngle: 90, pickedUp: .landscapeLeft(tilt: 30), seed: 21),
            scenario("portrait, picked up in landscape", held: .portrait(tilt: 30), tableAngle: 10, pickedUp: .landscapeRight(tilt: 35), seed: 22),
            scenario("portrait, tipping sideways on the way down", held: .portrait(tilt: 30), tableAngle: 0,
                     pickedUp: .portrait(tilt: 30), wobble: 55, seed: 23),
        ]
    }

    // MARK: - In bed

    public static var bed: [Scenario] {
        func lyingBack(_ name: String, overhead: Pose, then final: Pose?, expected: [Scenario.Expectation] = [], seed: UInt64) -> Scenario {
            var script = MotionScript(start: .portrait(tilt: 20))
            script.hold(3)
            script.move(to: overhead, duration: 2.5)
            script.translations.append(.init(start: 3, duration: 2.5, displacement: Vector3(0, 0.2, 0.3)))
            script.tremor = 0.25
            script.handSway = 3
            script.hold(10)
            var expectations = [Scenario.Expectation(.portrait)]
            if let final {
                let start = script.duration
                let rest = script.move(to: final, duration: 0.8)
                script.hold(5)
                expectations.append(.init(final.nominalOrientation, restTime: rest, moveStart: start))
            }
            return Scenario("in bed: \(name)", .bed, script: script, expected: expectations + expected, seed: seed)
        }
        var flat = lyingBack("lying back, phone held flat overhead", overhead: Pose(angle: 0, tilt: -86), then: nil, seed: 32)
        flat.expected.append(.init(.faceDown, restTime: 5.5, moveStart: 3))
        return [
            lyingBack("lying back, reading overhead in portrait", overhead: Pose(angle: 0, tilt: -45), then: nil, seed: 30),
            lyingBack("lying back, turning to landscape overhead", overhead: Pose(angle: 0, tilt: -45),
                      then: Pose(angle: 90, tilt: -45), seed: 31),
            flat,
        ]
    }

    // MARK: - Shakes

    public static var shakes: [Scenario] {
        func shaken(_ name: String, _ pose: Pose, acceleration: Double, roll: Double, frequency: Double, seed: UInt64) -> Scenario {
            var script = MotionScript(start: pose)
            script.hold(3)
            script.shake(for: 2, frequency: frequency, acceleration: acceleration, roll: roll)
            script.hold(3)
            return Scenario("shake: \(name)", .shake, script: script, expected: [.init(pose.nominalOrientation)], seed: seed)
        }
        return [
            shaken("portrait, vigorous", .portrait(tilt: 30), acceleration: 15, roll: 15, frequency: 4, seed: 40),
            shaken("landscape, vigorous", .landscapeLeft(tilt: 30), acceleration: 15, roll: 15, frequency: 4, seed: 41),
            shaken("portrait, violent with big wrist roll", .portrait(tilt: 30), acceleration: 25, roll: 35, frequency: 5, seed: 42),
            shaken("portrait, gentle and slow", .portrait(tilt: 30), acceleration: 5, roll: 20, frequency: 2, seed: 43),
        ]
    }

    // MARK: - Gaps and jitter

    public static var gaps: [Scenario] {
        var still = MotionScript(start: .portrait(tilt: 30))
        still.hold(12)

        var turnedDuringGap = MotionScript(start: .portrait(tilt: 30))
        turnedDuringGap.hold(3)
        turnedDuringGap.move(to: .landscapeLeft(tilt: 30), duration: 0.6)
        turnedDuringGap.hold(5)

        var dropouts = MotionScript(start: .portrait(tilt: 30))
        dropouts.hold(3)
        let rest = dropouts.move(to: .landscapeRight(tilt: 30), duration: 0.7)
        dropouts.hold(4)
        let small: [ClosedRange<Double>] = stride(from: 1.0, to: 7.5, by: 0.5).map { $0...($0 + 0.08) }

        return [
            Scenario("gaps: a 3 s gap while still", .gaps, script: still, expected: [.init(.portrait)], gaps: [4...7], seed: 50),
            Scenario("gaps: a 10 s gap while still", .gaps, script: { var s = still; s.hold(10); return s }(),
                     expected: [.init(.portrait)], gaps: [5...15], seed: 51),
            Scenario("gaps: turned to landscape while no samples came", .gaps, script: turnedDuringGap,
                     expected: [.init(.portrait), .init(.landscapeLeft, restTime: 5.0, moveStart: 5.0)], gaps: [2.9...5.0], seed: 52),
            Scenario("gaps: 80 ms dropouts every half second, through a turn", .gaps, script: dropouts,
                     expected: [.init(.portrait), .init(.landscapeRight, restTime: rest, moveStart: 3)], gaps: small, seed: 53),
        ]
    }

    public static var jitter: [Scenario] {
        rotations.enumerated().filter { $0.offset % 6 == 0 }.map { index, base in
            var s = base
            s.name = "jittered timestamps: " + base.name
            s.jitter = 0.8
            s.seed = 500 + UInt64(index)
            return s
        }
    }

    // MARK: - Real-world classes (issue 11)

    /// Screen-down transients: a phone swung screen-down 40–50° while it is being put away,
    /// handed over or swung past vertical points 35–40° off an edge for up to a second. In real
    /// recordings that posture is handling, not reading: nothing may be published.
    public static var handling: [Scenario] {
        func swing(_ name: String, from: Pose, through: Pose, hold: Double, seed: UInt64) -> Scenario {
            var script = MotionScript(start: from)
            script.tremor = 0.3
            script.handSway = 3
            script.hold(3)
            script.move(to: through, duration: 0.5)
            script.hold(hold)
            script.move(to: from, duration: 0.6)
            script.hold(3)
            return Scenario("handling: \(name)", .handling, script: script, expected: [.init(from.nominalOrientation)], seed: seed)
        }
        return [
            swing("handed over, portrait swung screen-down toward upside down", from: .portrait(tilt: 30),
                  through: Pose(angle: 142, tilt: -45), hold: 0.8, seed: 600),
            swing("put away, portrait tipped screen-down past landscape", from: .portrait(tilt: 35),
                  through: Pose(angle: -128, tilt: -50), hold: 0.6, seed: 601),
            swing("landscape swung past vertical, screen down", from: .landscapeLeft(tilt: 30),
                  through: Pose(angle: 90 + 140, tilt: -42), hold: 1.0, seed: 602),
            swing("upside down tipped screen-down toward portrait", from: .upsideDown(tilt: 25),
                  through: Pose(angle: 180 + 142, tilt: -40), hold: 0.7, seed: 603),
        ]
    }

    /// Transit: one continuous movement that slows for a moment (two moves back to back, so the
    /// rate touches zero between them) while passing through an orientation it does not stay
    /// in. Only where the movement ends is published.
    public static var transit: [Scenario] {
        var fromTable = MotionScript(start: Pose(angle: 0, tilt: 88))
        fromTable.hold(3)
        let liftStart = fromTable.duration
        fromTable.move(to: Pose(angle: 35, tilt: 50), duration: 0.45)
        let liftRest = fromTable.move(to: .landscapeLeft(tilt: 30), duration: 0.55)
        fromTable.translations.append(.init(start: liftStart, duration: 1.2, displacement: Vector3(0, -0.1, 0.3)))
        fromTable.hold(3)

        var rolling = MotionScript(start: .portrait(tilt: 25))
        rolling.hold(3)
        rolling.move(to: .landscapeLeft(tilt: 25), duration: 0.5)
        let rollRest = rolling.move(to: .upsideDown(tilt: 25), duration: 0.5)
        rolling.hold(3)

        var intoLandscapeRight = MotionScript(start: .portrait(tilt: 30))
        intoLandscapeRight.hold(3)
        intoLandscapeRight.move(to: Pose(angle: -45, tilt: 72), duration: 0.5)
        let tipRest = intoLandscapeRight.move(to: .landscapeRight(tilt: 30), duration: 0.5)
        intoLandscapeRight.hold(3)

        return [
            Scenario("transit: lifted from the table straight into landscape, slowing on the way", .transit,
                     script: fromTable, expected: [.init(.faceUp), .init(.landscapeLeft, restTime: liftRest, moveStart: liftStart)],
                     seed: 610),
            Scenario("transit: rolled from portrait through landscape to upside down", .transit, script: rolling,
                     expected: [.init(.portrait), .init(.portraitUpsideDown, restTime: rollRest, moveStart: 3)], seed: 611),
            Scenario("transit: portrait laid back toward flat on the way to landscape", .transit, script: intoLandscapeRight,
                     expected: [.init(.portrait), .init(.landscapeRight, restTime: tipRest, moveStart: 3)], seed: 612),
        ]
    }

    /// Short but real holds: each is reported, with or without a gyroscope, even with a real
    /// phone's gyroscope (bias, noise, readings a little late against the accelerometer).
    public static var briefHolds: [Scenario] {
        func briefHold(_ name: String, from: Pose, to: Pose, turn: Double, hold: Double, seed: UInt64) -> Scenario {
            heldBriefly("brief hold: \(name)", from: from, to: to, there: to.nominalOrientation, turn: turn, hold: hold, seed: seed)
        }
        return [
            briefHold("face-up in the hand for 0.75 s between two portrait holds", from: .portrait(tilt: 30),
                      to: Pose(angle: 5, tilt: 86), turn: 0.5, hold: 0.75, seed: 620),
            briefHold("upside down for 0.8 s", from: .portrait(tilt: 25), to: .upsideDown(tilt: 25), turn: 0.6, hold: 0.8, seed: 621),
            briefHold("a 0.7 s glance in portrait from landscape", from: .landscapeLeft(tilt: 30), to: .portrait(tilt: 30),
                      turn: 0.45, hold: 0.7, seed: 622),
        ]
    }

    /// Vigorous activity: apparent gravity swings far and fast, and nothing may be published.
    public static var vigorous: [Scenario] {
        func active(_ name: String, _ pose: Pose, step: Double, bounce: Double, sway: Double, bob: Double, seed: UInt64) -> Scenario {
            var script = MotionScript(start: pose)
            script.tremor = 0.5
            script.handSway = 4
            script.hold(2)
            script.walks.append(.init(start: 2, duration: 20, stepFrequency: step, bounce: bounce, sway: sway, bob: bob))
            script.hold(22)
            return Scenario("vigorous: \(name)", .vigorous, script: script, expected: [.init(pose.nominalOrientation)], seed: seed)
        }
        return [
            active("running, phone in hand in portrait", .portrait(tilt: 30), step: 2.8, bounce: 9, sway: 3, bob: 12, seed: 630),
            active("running, phone upright in a pocket", .upsideDown(tilt: 5), step: 2.7, bounce: 12, sway: 4, bob: 18, seed: 631),
            active("jumping jacks, phone in hand in landscape", .landscapeLeft(tilt: 25), step: 1.6, bounce: 14, sway: 2, bob: 15, seed: 632),
        ]
    }
    // MARK: - Issue 20: what the held-out recordings missed and announced

    /// Short real holds of 0.5–0.9 s in a new in-plane orientation, then back: turned to
    /// landscape for a moment to show someone, pitched over the top to upside down. Each is
    /// reported, with or without a gyroscope (a phone's: bias, noise, 20 ms late).
    public static var shortHolds: [Scenario] {
        func shown(_ name: String, from: Pose, to: Pose, there: DeviceOrientation, turn: Double, hold: Double,
                   seed: UInt64) -> Scenario {
            heldBriefly("short hold: \(name)", from: from, to: to, there: there, turn: turn, hold: hold, seed: seed)
        }
        return [
            shown("landscape for 0.6 s, shown to someone", from: .portrait(tilt: 35), to: .landscapeLeft(tilt: 35),
                  there: .landscapeLeft, turn: 0.4, hold: 0.6, seed: 640),
            shown("landscape-right for 0.5 s, quickly", from: .portrait(tilt: 25), to: .landscapeRight(tilt: 25),
                  there: .landscapeRight, turn: 0.4, hold: 0.5, seed: 641),
            shown("landscape-right for 0.7 s, held up steeply (50°)", from: .portrait(tilt: 45), to: .landscapeRight(tilt: 50),
                  there: .landscapeRight, turn: 0.45, hold: 0.7, seed: 642),
            // Pitched back over the top: the screen ends facing the sky, upside down (tilt 160°
            // of lean is upside down at 20°, screen up).
            shown("pitched over the top to upside down for 0.9 s", from: .portrait(tilt: 20), to: Pose(angle: 0, tilt: 160),
                  there: .portraitUpsideDown, turn: 0.6, hold: 0.9, seed: 643),
            shown("portrait for 0.6 s from landscape, a glance", from: .landscapeRight(tilt: 30), to: .portrait(tilt: 30),
                  there: .portrait, turn: 0.35, hold: 0.6, seed: 644),
        ]
    }

    /// Fast turns through the opposite landscape (or upside down) to where they end: only the
    /// final orientation, never a flash of the one passed through.
    public static var fastTurns: [Scenario] {
        func through(_ name: String, from: Pose, to: Pose, duration: Double, overshoot: Pose? = nil, seed: UInt64) -> Scenario {
            var script = MotionScript(start: from)
            script.hold(3)
            if let overshoot { script.move(to: overshoot, duration: duration) }
            let rest = script.move(to: to, duration: overshoot == nil ? duration : 0.3)
            script.hold(3)
            return Scenario("fast turn: \(name)", .transit, script: script,
                            expected: [.init(from.nominalOrientation), .init(to.nominalOrientation, restTime: rest, moveStart: 3)],
                            seed: seed)
        }
        return [
            through("landscape-left through upside down to landscape-right in 0.35 s", from: .landscapeLeft(tilt: 30),
                    to: Pose(angle: 270, tilt: 30), duration: 0.35, seed: 650),
            through("landscape-right through portrait to landscape-left in 0.4 s, steep", from: .landscapeRight(tilt: 50),
                    to: .landscapeLeft(tilt: 50), duration: 0.4, seed: 651),
            through("portrait through landscape-left to upside down in 0.4 s", from: .portrait(tilt: 30),
                    to: .upsideDown(tilt: 30), duration: 0.4, seed: 652),
            through("portrait to landscape-right in 0.3 s, overshooting 40° toward upside down and back",
                    from: .portrait(tilt: 30), to: .landscapeRight(tilt: 30), duration: 0.3,
                    overshoot: Pose(angle: -130, tilt: 30), seed: 653),
        ]
    }

    /// Vigorous handling: waved, pitched and swung about an orientation, the screen touching
    /// flat (face-up or face-down) or another edge for a moment. Nothing after the first
    /// decision.
    public static var handledVigorously: [Scenario] {
        func handled(_ name: String, _ base: Pose, poses: [Pose], period: Double, cycles: Int, seed: UInt64) -> Scenario {
            var script = MotionScript(start: base)
            script.tremor = 0.5
            script.handSway = 4
            script.hold(2)
            for _ in 0..<cycles {
                for pose in poses { script.move(to: pose, duration: period / Double(poses.count + 1)) }
                script.move(to: base, duration: period / Double(poses.count + 1))
            }
            script.hold(2)
            return Scenario("handled: \(name)", .handling, script: script, expected: [.init(base.nominalOrientation)], seed: seed)
        }
        return [
            handled("portrait pitched back to flat and up again, twice a second", .portrait(tilt: 30),
                    poses: [.portrait(tilt: 86)], period: 0.5, cycles: 8, seed: 660),
            handled("portrait flipped screen-down and back", .portrait(tilt: 20),
                    poses: [Pose(angle: 0, tilt: -84)], period: 0.6, cycles: 6, seed: 661),
            handled("landscape swung side to side, 60° each way", .landscapeLeft(tilt: 30),
                    poses: [Pose(angle: 150, tilt: 30), Pose(angle: 30, tilt: 30)], period: 0.9, cycles: 6, seed: 662),
            handled("portrait pitched forward and back with the arm's swing", .portrait(tilt: 30),
                    poses: [.portrait(tilt: 80), .portrait(tilt: -30)], period: 1.0, cycles: 8, seed: 663),
        ]
    }

    /// Held at `from`, turned to `to` in `turn` s, held there (`there` expected) `hold` s,
    /// turned back: with a phone's gyroscope (bias, noise, 20 ms late) and a hand that is not
    /// still. ``briefHolds`` and ``shortHolds`` are made of it.
    static func heldBriefly(_ name: String, from: Pose, to: Pose, there: DeviceOrientation, turn: Double, hold: Double,
                            seed: UInt64) -> Scenario {
        var script = MotionScript(start: from)
        script.gyroscopeBias = Vector3(0.03, -0.02, 0.015)
        script.gyroscopeNoise = 0.02
        script.gyroscopeDelay = 0.02
        script.tremor = 0.4
        script.handSway = 3
        script.hold(3)
        let thereRest = script.move(to: to, duration: turn)
        script.hold(hold)
        let backStart = script.duration
        let backRest = script.move(to: from, duration: turn)
        script.hold(3)
        return Scenario(name, .briefHold, script: script, expected: [
            .init(from.nominalOrientation), .init(there, restTime: thereRest, moveStart: 3),
            .init(from.nominalOrientation, restTime: backRest, moveStart: backStart),
        ], seed: seed)
    }
}
