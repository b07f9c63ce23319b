import OrientationCore

/// The posture detector's specification: scenarios of a convertible handled through its
/// postures, with the events a careful user expects (docs/DETECTOR.md, "The posture detector").
///
/// The rules behind the expectations:
/// - A stream's first decision is an event (from `unknown`), except that a machine starting with
///   its halves together stays `unknown` until the path of the hinge or a lid switch tells
///   closed from folded back.
/// - Every deliberate change of posture gives exactly one event, after the machine comes to rest;
///   postures passed through on the way (flat and tent while folding to tablet) give none.
/// - Carrying, handling, and standing the machine on its side (hinge axis vertical) give none:
///   the last posture is held.
///
/// Not part of ``ScenarioCatalog/all``: those are single-sensor orientation scenarios.
public enum PostureScenarioCatalog {
    /// Mount matrices as the hwdb gives them for a convertible whose two sensors are mounted
    /// differently (signed permutations, one of them a reflection).
    /// (Both are valid signed permutations: `?? .identity` never applies, and
    /// PostureScenarioTests checks that neither is the identity.)
    public static let displayMount = (try? MountMatrix(rowMajor: [0, -1, 0, 1, 0, 0, 0, 0, 1])) ?? .identity
    public static let baseMount = (try? MountMatrix(rowMajor: [0, 1, 0, 1, 0, 0, 0, 0, -1])) ?? .identity

    /// Every scenario.
    public static var all: [PostureScenario] {
        [roundTripWithLidSwitch, roundTripByPath, stand, carryingHalfOpen, carryingNearlyShut, onItsSide,
         tabletHeldInPortrait, closedWhileOnItsSide, lidSwitchContradicted] + recordedStyle
    }

    /// The rates the specification holds at (issue 38): a governed reader's 2.5 Hz (0.4 s
    /// between readings while the posture is settled) up to the full rate of most convertibles'
    /// sensors.
    public static let rates: [Double] = [2.5, 5, 10, 20]

    /// Scenarios in the style of recordings of real convertibles (issue 38): noise, a hand's
    /// shake, the hinge near vertical for long stretches, fully open lying on a table, a quick
    /// fold, each with the lid switch open as a real one is.
    public static var recordedStyle: [PostureScenario] {
        [laptopShaken, tabletInShakingHands, laptopNearlyOnItsSide, tabletNearlyPortrait, fullyOpenOnTable, flatOnTable,
         quickFold, quickFoldWithoutLidSwitch]
    }

    /// The lid switch of an open machine, as a real one reads at the start.
    static let lidOpen = [PostureScenario.LidChange(time: 0, closed: false)]

    /// A laptop used on a lap in a train: shaken (bounce 1.5 m/s²) for 15 s, noisy sensors.
    public static var laptopShaken: PostureScenario {
        var s = script(.laptop())
        s.accelerometerNoise = 0.12
        s.hold(2)
        s.walk(for: 15, bounce: 1.5)
        s.hold(2)
        return PostureScenario("recorded-style: a laptop used while shaken, noisy sensors", script: s, expected: [.init(.laptop)],
                               lidChanges: lidOpen, seed: 21)
    }

    /// Folded to a tablet and held for 15 s in hands that shake (tremor 1°, sway 5°).
    public static var tabletInShakingHands: PostureScenario {
        var s = script(.laptop())
        s.tremor = 0.4
        s.handSway = 4
        s.accelerometerNoise = 0.08
        s.hold(2)
        let fold = s.duration
        let tablet = s.move(to: ConvertiblePose(pitch: 200, hinge: 360), duration: 2, handHeld: true)
        s.hold(15, handHeld: true)
        return PostureScenario("recorded-style: a tablet in shaking hands", script: s,
                               expected: [.init(.laptop), .init(.tablet, restTime: tablet, moveStart: fold)], lidChanges: lidOpen, seed: 22)
    }

    /// A laptop held on its side with the hinge 10° off vertical for 30 s (the angle is noise
    /// there, yet the path is followed down to 10°), then laid down.
    public static var laptopNearlyOnItsSide: PostureScenario {
        var s = script(.laptop())
        s.hold(2)
        s.move(to: ConvertiblePose(roll: 80, hinge: 110), duration: 1.5, handHeld: true)
        s.hold(30, handHeld: true)
        s.move(to: .laptop(), duration: 1.5, handHeld: true)
        s.hold(3)
        return PostureScenario("recorded-style: a laptop held with the hinge near vertical for 30 s", script: s, expected: [.init(.laptop)],
                               lidChanges: lidOpen, expectedHolds: [.hingeVertical], seed: 23)
    }

    /// A tablet held in portrait with the hinge 10° off vertical for 30 s: folded back all along,
    /// never closed.
    public static var tabletNearlyPortrait: PostureScenario {
        var s = script(.laptop())
        s.hold(2)
        let fold = s.duration
        let tablet = s.move(to: ConvertiblePose(pitch: 200, hinge: 360), duration: 2, handHeld: true)
        s.hold(3, handHeld: true)
        s.move(to: ConvertiblePose(pitch: 180, roll: 80, hinge: 360), duration: 1.2, handHeld: true)
        s.hold(30, handHeld: true)
        s.move(to: .tabletOnTable, duration: 1.5, handHeld: true)
        s.hold(3)
        return PostureScenario("recorded-style: a tablet held with the hinge near vertical for 30 s", script: s,
                               expected: [.init(.laptop), .init(.tablet, restTime: tablet, moveStart: fold)],
                               lidChanges: lidOpen, expectedHolds: [.hingeVertical], seed: 24)
    }

    /// Folded fully open (360°) lying screen up on a table for 20 s, noisy sensors: the halves
    /// lie together and the switch is open, so folded back from the first moment.
    public static var fullyOpenOnTable: PostureScenario {
        var s = script(.tabletOnTable)
        s.accelerometerNoise = 0.12
        s.hold(20)
        return PostureScenario("recorded-style: folded fully open, lying on a table", script: s, expected: [.init(.tablet)],
                               lidChanges: lidOpen, seed: 25)
    }

    /// Opened out flat (180°) on a table for 20 s, noisy sensors.
    public static var flatOnTable: PostureScenario {
        var s = script(.flat)
        s.accelerometerNoise = 0.12
        s.hold(20)
        return PostureScenario("recorded-style: opened flat, lying on a table", script: s, expected: [.init(.flat)],
                               lidChanges: lidOpen, seed: 26)
    }

    /// Tent (300°) folded to a tablet in a quarter of a second: at a governed 2.5 Hz the whole
    /// fold falls between two readings of each sensor, and the two sensors' readings are apart
    /// in time. Never closed.
    public static var quickFold: PostureScenario {
        var s = script(.tent())
        s.hold(3)
        let fold = s.duration
        let tablet = s.move(to: .tabletOnTable, duration: 0.25, handHeld: true)
        s.hold(4)
        return PostureScenario("recorded-style: tent → tablet in a quarter of a second", script: s,
                               expected: [.init(.tent), .init(.tablet, restTime: tablet, moveStart: fold, latencyBudget: 1.2)],
                               lidChanges: lidOpen, seed: 27)
    }

    /// The same quick fold on a machine without a lid switch: the path alone must not call it
    /// closed.
    public static var quickFoldWithoutLidSwitch: PostureScenario {
        var s = quickFold
        s.name = "recorded-style: tent → tablet in a quarter of a second, the switch not wired"
        s.lidChanges = []
        s.seed = 28
        return s
    }

    static func script(_ start: ConvertiblePose) -> ConvertibleScript {
        var script = ConvertibleScript(start: start)
        script.displayMount = displayMount
        script.baseMount = baseMount
        return script
    }

    /// Closed → laptop → flat → tent → tablet → laptop, on a table, with the lid switch wired:
    /// closed is known from the first moment.
    public static var roundTripWithLidSwitch: PostureScenario {
        var s = script(.closed)
        s.hold(2)
        let open = s.duration
        let opened = s.move(to: .laptop(), duration: 1.2)
        s.hold(3)
        let flatten = s.duration
        let flat = s.move(to: .flat, duration: 1)
        s.hold(3)
        let fold = s.duration
        let tent = s.move(to: .tent(), duration: 2)
        s.hold(3)
        let toTablet = s.duration
        let tablet = s.move(to: .tabletOnTable, duration: 2.5)
        s.hold(3)
        let unfold = s.duration
        let laptop = s.move(to: .laptop(), duration: 2.5)
        s.hold(3)
        return PostureScenario(
            "closed → laptop → flat → tent → tablet → laptop, lid switch wired", script: s,
            expected: [.init(.closed), .init(.laptop, restTime: opened, moveStart: open),
                       .init(.flat, restTime: flat, moveStart: flatten), .init(.tent, restTime: tent, moveStart: fold),
                       .init(.tablet, restTime: tablet, moveStart: toTablet), .init(.laptop, restTime: laptop, moveStart: unfold)],
            lidChanges: [.init(time: 0, closed: true), .init(time: open + 0.15, closed: false)])
    }

    /// The same round without a lid switch, then closed again: the machine starts with its
    /// halves together, so it is `unknown` until it opens; closing it at the end is known to be
    /// closed (not folded back) from the path the hinge took.
    public static var roundTripByPath: PostureScenario {
        var s = script(.closed)
        s.hold(2)
        let open = s.duration
        let opened = s.move(to: .laptop(), duration: 1.2)
        s.hold(3)
        let flatten = s.duration
        let flat = s.move(to: .flat, duration: 1)
        s.hold(3)
        let fold = s.duration
        let tent = s.move(to: .tent(), duration: 2)
        s.hold(3)
        let toTablet = s.duration
        let tablet = s.move(to: .tabletOnTable, duration: 2.5)
        s.hold(3)
        let unfold = s.duration
        let laptop = s.move(to: .laptop(), duration: 2.5)
        s.hold(3)
        let shut = s.duration
        let closed = s.move(to: .closed, duration: 1.2)
        s.hold(3)
        return PostureScenario(
            "closed → laptop → flat → tent → tablet → laptop → closed, no lid switch", script: s,
            expected: [.init(.laptop, restTime: opened, moveStart: open),
                       .init(.flat, restTime: flat, moveStart: flatten), .init(.tent, restTime: tent, moveStart: fold),
                       .init(.tablet, restTime: tablet, moveStart: toTablet), .init(.laptop, restTime: laptop, moveStart: unfold),
                       .init(.closed, restTime: closed, moveStart: shut)],
            expectedHolds: [.closedOrFoldedBack], seed: 2)
    }

    /// Laptop → stand (turned over, keyboard down, display facing out) → laptop.
    public static var stand: PostureScenario {
        var s = script(.laptop())
        s.hold(3)
        let turn = s.duration
        let stood = s.move(to: .stand(), duration: 2.5)
        s.hold(4)
        let back = s.duration
        let laptop = s.move(to: .laptop(), duration: 2.5)
        s.hold(3)
        return PostureScenario(
            "laptop → stand → laptop", script: s,
            expected: [.init(.laptop), .init(.stand, restTime: stood, moveStart: turn), .init(.laptop, restTime: laptop, moveStart: back)],
            seed: 3)
    }

    /// A half-open laptop picked up, carried across a room (walking bounce) while the lid sags to
    /// 70°, and set down again: laptop throughout.
    public static var carryingHalfOpen: PostureScenario {
        var s = script(.laptop())
        s.hold(3)
        s.move(to: ConvertiblePose(pitch: 12, roll: 4, hinge: 70), duration: 1.5, handHeld: true)
        s.walk(for: 10)
        s.move(to: .laptop(), duration: 1.5, handHeld: true)
        s.hold(3)
        return PostureScenario("carrying a half-open laptop", script: s, expected: [.init(.laptop)],
                               expectedHolds: [.baseMoving], seed: 4)
    }

    /// Carried nearly shut (35°), with a brisk step: still laptop, never closed.
    public static var carryingNearlyShut: PostureScenario {
        var s = script(.laptop())
        s.hold(3)
        s.move(to: ConvertiblePose(pitch: -10, roll: 0, hinge: 35), duration: 1.5, handHeld: true)
        s.walk(for: 8, bounce: 3.5)
        s.move(to: .laptop(), duration: 1.5, handHeld: true)
        s.hold(3)
        return PostureScenario("carrying a laptop nearly shut", script: s, expected: [.init(.laptop)], seed: 5)
    }

    /// A laptop stood on its side (hinge axis vertical) like a book, the lid moved while it is
    /// there, then laid down again as it was: the angle is unknowable on its side, laptop is held.
    public static var onItsSide: PostureScenario {
        var s = script(.laptop())
        s.hold(3)
        s.move(to: ConvertiblePose(roll: 90, hinge: 110), duration: 1.5, handHeld: true)
        s.hold(2)
        s.move(to: ConvertiblePose(roll: 90, hinge: 200), duration: 1.5)
        s.hold(3)
        s.move(to: ConvertiblePose(roll: 90, hinge: 100), duration: 1.5)
        s.hold(2)
        s.move(to: .laptop(100), duration: 1.5, handHeld: true)
        s.hold(3)
        return PostureScenario("a laptop stood on its side (hinge vertical)", script: s, expected: [.init(.laptop)],
                               expectedHolds: [.hingeVertical], seed: 6)
    }

    /// Folded to a tablet, then held in portrait (hinge axis vertical) for a while: tablet is
    /// held, and stays known when it is laid down again.
    public static var tabletHeldInPortrait: PostureScenario {
        var s = script(.laptop())
        s.hold(3)
        let fold = s.duration
        let tablet = s.move(to: ConvertiblePose(pitch: 210, hinge: 360), duration: 2.5, handHeld: true)
        s.hold(3, handHeld: true)
        s.move(to: ConvertiblePose(pitch: 180, roll: 90, hinge: 360), duration: 1.2, handHeld: true)
        s.hold(8, handHeld: true)
        s.move(to: .tabletOnTable, duration: 1.5, handHeld: true)
        s.hold(3)
        return PostureScenario("a tablet held in portrait (hinge vertical)", script: s,
                               expected: [.init(.laptop), .init(.tablet, restTime: tablet, moveStart: fold)],
                               expectedHolds: [.hingeVertical], seed: 7)
    }

    /// Stood on its side, the lid shut there (unseen), laid down: closed or folded back cannot be
    /// told without a lid switch, so the posture becomes unknown rather than staying laptop.
    public static var closedWhileOnItsSide: PostureScenario {
        var s = script(.laptop())
        s.hold(3)
        s.move(to: ConvertiblePose(roll: 90, hinge: 110), duration: 1.5, handHeld: true)
        s.hold(1)
        s.move(to: ConvertiblePose(roll: 90, hinge: 0), duration: 1.5)
        s.hold(3)
        let down = s.duration
        let rest = s.move(to: .closed, duration: 1.5, handHeld: true)
        s.hold(3)
        return PostureScenario("shut while on its side, then laid down", script: s,
                               expected: [.init(.laptop), .init(.unknown, restTime: rest, moveStart: down)],
                               expectedHolds: [.hingeVertical, .closedOrFoldedBack], seed: 8)
    }

    /// A lid switch that says shut while both sensors say the laptop is open (a magnet nearby):
    /// the switch is a fact (issue 38), so closed at once, and open again is the angle's laptop.
    /// The disagreement is the detector's to report (``PostureDetector/lidDisagreement``).
    public static var lidSwitchContradicted: PostureScenario {
        var s = script(.laptop())
        s.hold(8)
        return PostureScenario("a lid switch saying shut on an open laptop wins", script: s,
                               expected: [.init(.laptop), .init(.closed, restTime: 4, moveStart: 4), .init(.laptop, restTime: 6, moveStart: 6)],
                               lidChanges: [.init(time: 0, closed: false), .init(time: 4, closed: true), .init(time: 6, closed: false)], seed: 9)
    }
}
