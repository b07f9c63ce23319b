import OrientationCore
import PostureCore
import PostureSynthesis

/// The posture detector's cost per sample (issue 30): the hinge geometry alone, and the whole
/// detector (both sensors' filters and motion tests, the geometry, the path, the posture), over
/// every posture scenario at 100 Hz with the mount matrices applied first, as the daemon will.
@MainActor func measurePosture(repetitions: Int, runs: Int) {
    var stream: [PostureSample] = []
    var offset = 0.0
    for scenario in PostureScenarioCatalog.all {
        for var sample in scenario.script.samples(rate: 100, seed: scenario.seed) {
            let mount = sample.location == .display ? scenario.script.displayMount : scenario.script.baseMount
            sample.acceleration = mount.apply(sample.acceleration)
            sample.time += offset
            stream.append(sample)
        }
        offset = (stream.last?.time ?? 0) + 0.01
    }
    // Pairs for the geometry alone: each display reading with the base reading after it.
    var pairs: [(display: Vector3, base: Vector3)] = []
    var lastDisplay: Vector3? = nil
    for sample in stream {
        if sample.location == .display { lastDisplay = sample.acceleration } else if let d = lastDisplay { pairs.append((d, sample.acceleration)) }
    }

    emit("## Posture (two accelerometers)")
    emit()
    emit("Stream: every posture scenario at 100 Hz per sensor, both sensors merged, \(stream.count) samples (\(pairs.count) display/base pairs), processed \(repetitions) times per run.")
    emit()
    emit("| work | per second (best) | ns each |")
    emit("|---|---:|---:|")
    var sink = 0.0
    var best = 0.0
    for _ in 0..<runs {
        let start = cpuTime()
        for _ in 0..<repetitions {
            for pair in pairs {
                if let angle = HingeAngle.measure(display: pair.display, base: pair.base) { sink += angle.degrees }
            }
        }
        best = max(best, Double(pairs.count * repetitions) / (cpuTime() - start))
    }
    emit("| hinge angle from one display/base pair (`HingeAngle.measure`) | \(fixed(best / 1e6, 2)) M | \(fixed(1e9 / best, 1)) |")
    best = 0
    var events = 0
    for _ in 0..<runs {
        var detector = try! PostureDetector()
        let start = cpuTime()
        for r in 0..<repetitions {
            let shift = Double(r) * 1e6  // keep time increasing across repetitions
            for sample in stream {
                var s = sample
                s.time += shift
                if detector.process(s) != nil { events += 1 }
            }
        }
        best = max(best, Double(stream.count * repetitions) / (cpuTime() - start))
    }
    emit("| posture detector, per sample of either sensor (`PostureDetector.process`) | \(fixed(best / 1e6, 2)) M | \(fixed(1e9 / best, 1)) |")
    // The daemon's path: each reader's sample through the merger, then the detector (issue 30:
    // `PostureService.take`, less its lock). Fed as two readers deliver: batches of five.
    var batched: [PostureSample] = []
    var displayBatch: [PostureSample] = [], baseBatch: [PostureSample] = []
    for sample in stream {
        if sample.location == .display { displayBatch.append(sample) } else { baseBatch.append(sample) }
        if displayBatch.count == 5 { batched += displayBatch; displayBatch = [] }
        if baseBatch.count == 5 { batched += baseBatch; baseBatch = [] }
    }
    batched += displayBatch + baseBatch
    best = 0
    for _ in 0..<runs {
        var detector = try! PostureDetector()
        var merger = PostureSampleMerger(maximumLag: detector.configuration.pairingWindow)
        let start = cpuTime()
        for r in 0..<repetitions {
            let shift = Double(r) * 1e6
            for sample in batched {
                var s = sample
                s.time += shift
                for merged in merger.push(s) where detector.process(merged) != nil { events += 1 }
            }
            for merged in merger.flush() where detector.process(merged) != nil { events += 1 }
        }
        best = max(best, Double(batched.count * repetitions) / (cpuTime() - start))
    }
    emit("| merger and detector, per sample of either sensor as two readers deliver them in batches of 5 (`PostureSampleMerger.push`, then `process`: the daemon's path) | \(fixed(best / 1e6, 2)) M | \(fixed(1e9 / best, 1)) |")
    emit()
    if sink.isNaN || events < 0 { print(sink, events) }
}
