// orientationd benchmarks: run in a release build,
//   swift run -c release OrientationBenchmarks [--quick] [--detector-only] [--output FILE]
// Prints a Markdown report (the numbers quoted in docs/PERFORMANCE.md). Nothing here asserts a
// time: performance is measured, not tested.
import Glibc
import MotionSynthesis
import OrientationCore
import SensorLog

var arguments = CommandLine.arguments.dropFirst()
let quick = arguments.contains("--quick")
/// Only the detectors' throughput (orientation and posture): quick to compare two versions of
/// the hot path.
let detectorOnly = arguments.contains("--detector-only")
var outputPath: String? = nil
if let index = arguments.firstIndex(of: "--output"), arguments.index(after: index) < arguments.endIndex {
    outputPath = arguments[arguments.index(after: index)]
}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

func cpuTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// The project's one fixed-point formatter (SensorLog's).
func fixed(_ v: Double, _ decimals: Int) -> String {
    FixedPointFormatter.string(v, decimals: decimals)
}

var report: [String] = []
@MainActor func emit(_ line: String = "") {
    print(line)
    report.append(line)
}

// MARK: - Machine

var uts = utsname()
uname(&uts)
let machine = withUnsafeBytes(of: &uts.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
emit("# orientationd benchmark report")
emit()
emit("Machine: \(machine), \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores online; single-threaded measurements; best of \(quick ? 3 : 5) runs.")
emit()

// MARK: - Detector throughput

/// A realistic mixed stream: every scenario at 100 Hz, with and without a gyroscope, concatenated.
func mixedStream() -> [Sample] {
    var out: [Sample] = []
    var offset = 0.0
    for (index, scenario) in ScenarioCatalog.all.enumerated() {
        for sample in scenario.samples(rate: 100, gyroscope: index % 2 == 0) {
            var s = sample
            s.time += offset
            out.append(s)
        }
        offset = (out.last?.time ?? 0) + 0.01
    }
    return out
}

let stream = mixedStream()
let repetitions = quick ? 3 : 10
emit("## Detector throughput")
emit()
emit("Stream: every catalog scenario at 100 Hz, alternately with and without gyroscope, \(stream.count) samples, processed \(repetitions) times per run.")
emit()
emit("| configuration | samples/s (best) | ns/sample |")
emit("|---|---:|---:|")
/// `pipelineStages`: also what the pipeline runs per sample before the detector (the scale check,
/// `GravityNormalizer`, and the tilt classes, `TiltTracker`; issue 16).
@MainActor func measureDetector(_ label: String, _ samples: [Sample], pipelineStages: Bool = false) {
    var best = 0.0
    var sink = 0
    for _ in 0..<(quick ? 3 : 5) {
        var detector = try! OrientationDetector()
        var normalizer = GravityNormalizer()
        var tilt = TiltTracker()
        let start = cpuTime()
        for r in 0..<repetitions {
            let shift = Double(r) * 1e6  // keep time increasing across repetitions
            for sample in samples {
                var s = sample
                s.time += shift
                if pipelineStages {
                    s = normalizer.normalize(s)
                    if tilt.process(s) != nil { sink &+= 1 }
                }
                if detector.process(s) != nil { sink &+= 1 }
            }
        }
        let elapsed = cpuTime() - start
        best = max(best, Double(samples.count * repetitions) / elapsed)
    }
    emit("| \(label) | \(fixed(best / 1e6, 2)) M | \(fixed(1e9 / best, 1)) |")
    if sink < 0 { print(sink) }
}
measureDetector("mixed (accelerometer + gyroscope)", stream)
measureDetector("accelerometer only", stream.map { Sample(time: $0.time, acceleration: $0.acceleration) })
measureDetector("accelerometer only, with the scale check and tilt classes before it (the pipeline's per-sample work)",
                stream.map { Sample(time: $0.time, acceleration: $0.acceleration) }, pipelineStages: true)
emit()
measurePosture(repetitions: repetitions, runs: quick ? 3 : 5)
if detectorOnly { exit(0) }

// MARK: - Replay throughput

let logPath = "/tmp/orientationd-bench-\(getpid()).log"
let lineCount = quick ? 1_000_000 : 3_000_000
do {
    var writer = try SensorLogWriter(path: logPath, metadata: SensorLogMetadata([(key: "source", value: "benchmark")]), includesGyroscope: true)
    var k = 0
    while k < lineCount {
        for sample in stream where k < lineCount {
            try writer.write(Sample(time: Double(k) * 0.01, acceleration: sample.acceleration, angularRate: sample.angularRate))
            k += 1
        }
    }
    try writer.finish()
} catch {
    print("benchmark: cannot write \(logPath): \(error)")
    exit(1)
}
var statBuffer = stat()
stat(logPath, &statBuffer)
emit("## Log reading and replay")
emit()
emit("A \(lineCount)-line v1 log with gyroscope columns (\(fixed(Double(statBuffer.st_size) / 1e6, 0)) MB), read from the page cache.")
emit()
emit("| work | lines/s (best) | MB/s |")
emit("|---|---:|---:|")
@MainActor func measureLog(_ label: String, detect: Bool) {
    var best = 0.0
    for _ in 0..<(quick ? 2 : 3) {
        let start = now()
        var reader = try! SensorLogReader(path: logPath)
        var detector = try! OrientationDetector()
        var count = 0, events = 0
        while let sample = try! reader.next() {
            count += 1
            if detect, detector.process(sample) != nil { events += 1 }
        }
        let elapsed = now() - start
        best = max(best, Double(count) / elapsed)
    }
    emit("| \(label) | \(fixed(best / 1e6, 2)) M | \(fixed(best * Double(statBuffer.st_size) / Double(lineCount) / 1e6, 0)) |")
}
measureLog("read and parse only (SensorLogReader)", detect: false)
measureLog("read, parse and detect (what `orientationctl replay` does)", detect: true)
// The real binary, end to end (process start, reading, detecting, printing events), when it was
// built next to this one (`make bench` builds both in release).
let directory = CommandLine.arguments[0].split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
let orientationctl = (directory.isEmpty ? "." : directory) + "/orientationctl"
if access(orientationctl, X_OK) == 0 {
    var best = Double.infinity
    for _ in 0..<(quick ? 2 : 3) {
        var pid: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(orientationctl), strdup("replay"), strdup("--quiet"), strdup(logPath), nil]
        let start = now()
        let spawned = posix_spawn(&pid, orientationctl, &actions, nil, argv, environ)
        var status: Int32 = 0
        if spawned == 0 { waitpid(pid, &status, 0) }
        let elapsed = now() - start
        posix_spawn_file_actions_destroy(&actions)
        argv.forEach { free($0) }
        if spawned == 0 && status == 0 { best = min(best, elapsed) }
    }
    if best.isFinite {
        emit("| `orientationctl replay --quiet` end to end (process start to exit) | \(fixed(Double(lineCount) / best / 1e6, 2)) M | \(fixed(Double(statBuffer.st_size) / best / 1e6, 0)) |")
    }
} else {
    emit("(orientationctl not found beside the benchmark: build it in release to time it end to end)")
}
emit()

// MARK: - Latency over the scenario catalog

emit("## Decision latency over the scenario catalog")
emit()
emit("Latency = event time − the moment the device came to rest in the new orientation (negative: published before the motion fully ended, as happens for slow turns). Every deliberate turn in the catalog (quarter turns, half turns, put-down/pick-up, bed, gaps, jitter).")
emit()
emit("| rate | gyroscope | turns | median | p90 | max | scenarios passing |")
emit("|---:|---|---:|---:|---:|---:|---:|")
for rate in [10.0, 50.0, 100.0] {
    for gyro in [false, true] {
        var latencies: [Double] = []
        var passing = 0, total = 0
        for scenario in ScenarioCatalog.all {
            let run = try! ScenarioRun(scenario, rate: rate, gyroscope: gyro)
            latencies += run.latencies
            total += 1
            if run.failures.isEmpty { passing += 1 }
        }
        latencies.sort()
        func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
        emit("| \(Int(rate)) Hz | \(gyro ? "yes" : "no") | \(latencies.count) | \(fixed(percentile(0.5) * 1000, 0)) ms | \(fixed(percentile(0.9) * 1000, 0)) ms | \(fixed((latencies.last ?? 0) * 1000, 0)) ms | \(passing)/\(total) |")
    }
}
emit()
emit("Quarter turns only (the acceptance bar: within 300 ms of rest at 50 Hz and above):")
emit()
emit("| rate | gyroscope | turn duration | median | max |")
emit("|---:|---|---:|---:|---:|")
for rate in [50.0, 100.0] {
    for gyro in [false, true] {
        for duration in ["0.35", "0.7", "1.5"] {
            var latencies: [Double] = []
            for scenario in ScenarioCatalog.rotations where scenario.name.contains(" in \(duration) s") {
                latencies += try! ScenarioRun(scenario, rate: rate, gyroscope: gyro).latencies
            }
            latencies.sort()
            emit("| \(Int(rate)) Hz | \(gyro ? "yes" : "no") | \(duration) s | \(fixed(latencies[latencies.count / 2] * 1000, 0)) ms | \(fixed(latencies.last! * 1000, 0)) ms |")
        }
    }
}
unlink(logPath)
emit()

// MARK: - Socket server

emit("## Event delivery over the socket")
emit()
emit("Latency from the publisher handing an event to the hub (what the detector's sink does) to a subscriber reading its line, over real Unix sockets; subscribers are plain sockets read with poll(2) by one thread. Stalled clients subscribed, filled their socket buffers, and never read again.")
emit()
emit("| subscribers | stalled clients | events | median | p99 | max |")
emit("|---:|---:|---:|---:|---:|---:|")
for (subscribers, stalled, events) in [(1, 0, quick ? 200 : 1000), (1000, 0, quick ? 20 : 100), (100, 0, quick ? 50 : 200), (100, 1, quick ? 50 : 200)] {
    let latencies = await measureEventLatency(subscribers: subscribers, events: events, stalledClients: stalled)
    func p(_ q: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * q))] * 1e6 }
    emit("| \(subscribers) | \(stalled) | \(events) | \(fixed(p(0.5), 0)) µs | \(fixed(p(0.99), 0)) µs | \(fixed(latencies.last! * 1e6, 0)) µs |")
}
emit()

// The real daemon's memory, idle and with 1,000 subscribers.
let orientationd = (directory.isEmpty ? "." : directory) + "/orientationd"
let recording = "data/xio-fusion/handheld.log"
if access(orientationd, X_OK) == 0, access(recording, R_OK) == 0 {
    let socketPath = temporarySocketPath()
    var pid: pid_t = 0
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let daemonArguments: [String] = [orientationd, "--replay", recording, "--loop", "--speed", "10", "--socket", socketPath, "--log-level", "warning"]
    let argv: [UnsafeMutablePointer<CChar>?] = daemonArguments.map { strdup($0) } + [nil]
    posix_spawn(&pid, orientationd, &actions, nil, argv, environ)
    var waited = 0
    while access(socketPath, F_OK) != 0 && waited < 500 { usleep(10_000); waited += 1 }
    usleep(500_000)
    let idle = residentKiB(pid: pid) ?? 0
    var subscribers = RawSubscribers()
    subscribers.connect(1000, path: socketPath)
    _ = subscribers.waitForLines(3) { $0.contains("\"orientation\"") }  // events flowing to all
    let busy = residentKiB(pid: pid) ?? 0
    subscribers.closeAll()
    kill(pid, SIGTERM)
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    emit("## Daemon memory")
    emit()
    emit("`orientationd --replay data/xio-fusion/handheld.log --loop --speed 10` as built beside this benchmark, VmRSS from /proc after 0.5 s idle, then with 1,000 subscribers once each had received three events:")
    emit()
    emit("| state | resident memory |")
    emit("|---|---:|")
    emit("| idle, no client | \(fixed(Double(idle) / 1024, 1)) MiB |")
    emit("| 1,000 subscribers receiving events | \(fixed(Double(busy) / 1024, 1)) MiB |")
    emit()
} else {
    emit("(orientationd not found beside the benchmark, or run outside the repository: memory not measured)")
}

if let outputPath {
    let text = report.joined(separator: "\n") + "\n"
    if let file = fopen(outputPath, "w") {
        fputs(text, file)
        fclose(file)
    }
}
