import Glibc
import OwnerThreads
import Synchronization

/// The daemon's resident memory once it has started (issue 28, item 4; docs/PERFORMANCE.md,
/// "Resident memory (issue 28)").
///
/// Starting touches code and read-only data that running never needs again: argument parsing,
/// configuration, discovery, the first metadata lookups. The kernel keeps every page a process
/// touched in its page tables, and on each fault in a file mapping it maps the 64–128 KB around
/// the page too (fault-around, and the page cache's large folios), so the idle daemon kept
/// about 4.5 MB of its own binary resident. ``releaseStartupPages(smapsPath:executablePath:)``
/// drops those pages from the process's page tables once start-up is over, and again once each
/// claim or release has settled (``releaseWhenStartupIsOver()``, on the main thread); whatever
/// the daemon runs afterwards faults back in (a minor fault: the page is still in the page
/// cache, unless memory pressure took it). The C heap is left as it is: `malloc_trim` after start-up and a limit of
/// one or two malloc arenas were measured and saved nothing (docs/PERFORMANCE.md).
public enum WorkingSet {
    /// What ``releaseStartupPages(smapsPath:executablePath:)`` did.
    public struct Release: Sendable, Equatable {
        /// Mappings whose pages were dropped.
        public var mappings: Int
        /// Their resident size before, in kB (`Rss` in smaps).
        public var kilobytes: Int
        /// Mappings of the executable left alone: writable, shared, or holding modified pages.
        public var skipped: Int
        /// Mappings whose `madvise` failed (they stay resident, and are not counted above).
        public var failed = 0
    }

    /// Drops from the page tables every resident page of the executable's own mappings that
    /// are private, not writable and hold no modified page (`Anonymous: 0 kB` in smaps): the
    /// code, and the read-only segment with the ELF tables and Swift's metadata sections.
    ///
    /// Contract: nothing is lost. Such a page is byte for byte the file's page, and
    /// `madvise(MADV_DONTNEED)` on a private file mapping only unmaps it; the next access maps
    /// the page cache's copy again. Mappings that can differ from the file are never touched:
    /// writable ones (`.data`, `.bss`, the GOT, and `.rodata`, which Swift's objects make
    /// writable), and the RELRO segment, which the loader wrote its relocations into before
    /// making it read-only (its pages count as `Anonymous`). A breakpoint a debugger wrote into
    /// the code also makes that mapping `Anonymous`, so it is skipped as well. Shared libraries
    /// are left alone: their pages stay mapped by every other process using them, so dropping
    /// them here would free nothing.
    ///
    /// Everything is decided before the first `madvise`, and nothing is freed after it: code
    /// that runs afterwards faults its pages back in, with the 64–128 KB around each. So call
    /// it from a thread that then does nothing (the daemon's main thread, back to `sigwait`;
    /// measured: a thread that returned to an event loop, or ended, brought 1.4–2 MB back).
    ///
    /// Returns nil when smaps or the executable's path cannot be read (no /proc): then nothing
    /// was done.
    public static func releaseStartupPages(smapsPath: String = "/proc/self/smaps",
                                           executablePath: String? = nil) -> Release? {
        withUnsafeTemporaryAllocation(of: Range.self, capacity: Self.rangeCapacity) { ranges -> Release? in
            guard var release = Self.plan(into: ranges, smapsPath: smapsPath, executablePath: executablePath) else { return nil }
            for index in 0..<release.mappings where madvise(ranges[index].start, ranges[index].length, MADV_DONTNEED) != 0 {
                release.kilobytes -= ranges[index].kilobytes
                release.failed += 1
            }
            release.mappings -= release.failed
            return release
        }
    }

    /// A mapping to drop: plain values only, so that nothing is released after the `madvise`.
    struct Range {
        var start: UnsafeMutableRawPointer
        var length: Int
        var kilobytes: Int
    }

    /// The executable has five or six mappings; droppable ones beyond this many are left alone.
    static let rangeCapacity = 16

    /// What ``releaseStartupPages(smapsPath:executablePath:)`` will drop, in `ranges`, with the
    /// counts as if every `madvise` succeeds. Not inlined: its strings and arrays are gone when
    /// it returns.
    @inline(never)
    static func plan(into ranges: UnsafeMutableBufferPointer<Range>, smapsPath: String, executablePath: String?) -> Release? {
        guard let executable = executablePath ?? Self.executablePath(),
              let smaps = Self.readFile(smapsPath) else { return nil }
        var release = Release(mappings: 0, kilobytes: 0, skipped: 0)
        for mapping in Self.mappings(in: smaps) where mapping.path == executable {
            guard mapping.isPrivate, !mapping.isWritable, mapping.anonymousKilobytes == 0, release.mappings < ranges.count else {
                release.skipped += 1
                continue
            }
            guard mapping.residentKilobytes > 0,
                  let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            ranges[release.mappings] = Range(start: start, length: Int(mapping.end - mapping.start),
                                             kilobytes: mapping.residentKilobytes)
            release.mappings += 1
            release.kilobytes += mapping.residentKilobytes
        }
        return release
    }

    // MARK: - When start-up is over, and when a claim has settled

    /// When the main thread should release the pages (monotonic seconds, as bits; 0: not yet).
    private static let releaseAt = Atomic<UInt64>(0)
    private static let unfinishedChecks = Atomic<Int>(0)

    /// Marks start-up as over (the daemon calls it after `READY=1`):
    /// ``releaseWhenStartupIsOver()`` releases the pages a second later. Not at `READY=1`
    /// itself: the service group starts its services after it, and that start touched another
    /// 1–2 MB of code (measured), which would otherwise stay resident.
    public static func startupFinished() {
        releaseAt.store((OwnerThread.monotonic() + 1).bitPattern, ordering: .releasing)
    }

    /// The accelerometer was claimed or released (the daemon calls it on every change): the
    /// pages are released again 5 s after the last change. A claim's own path (the D-Bus call,
    /// polkit, opening and configuring the sensor) runs once and stayed resident for as long
    /// as the claim, 1.8 MB of code (measured); after a release, the reading path's. Wakes the
    /// main thread (``ProcessSignals/wakeTimer()``); a burst of changes wakes it once.
    public static func claimsChanged() {
        releaseAt.store((OwnerThread.monotonic() + 5).bitPattern, ordering: .releasing)
        ProcessSignals.wakeTimer()
    }

    /// The main thread's timer (``ProcessSignals/waitForever(firstTimer:timer:)``): until it is
    /// time (``startupFinished()``, ``claimsChanged()``), how long to wait before asking again;
    /// then ``releaseStartupPages(smapsPath:executablePath:)``, and nil (done until the next
    /// ``claimsChanged()``). A process that never finishes starting as a daemon (`--record`,
    /// `--list-sensors`, a start that fails slowly) is asked at most 120 times, every half
    /// second, then no more: no wake-ups for good.
    public static func releaseWhenStartupIsOver() -> Double? {
        let bits = releaseAt.load(ordering: .acquiring)
        guard bits != 0 else {
            return unfinishedChecks.add(1, ordering: .relaxed).newValue < 120 ? 0.5 : nil
        }
        let remaining = Double(bitPattern: bits) - OwnerThread.monotonic()
        guard remaining <= 0 else { return remaining }
        _ = releaseStartupPages()
        return nil
    }

    // MARK: - smaps

    /// One mapping of smaps: its address range, permissions, path, and two of its counters.
    struct Mapping: Equatable {
        var start: UInt
        var end: UInt
        var permissions: String
        var path: String
        var residentKilobytes = 0
        var anonymousKilobytes = 0

        var isWritable: Bool { permissions.dropFirst().first == "w" }
        var isPrivate: Bool { permissions.dropFirst(3).first == "p" }
    }

    /// The mappings of an smaps text: a header line (`start-end perms offset dev inode path`)
    /// followed by `Key: value kB` lines. A line whose first field has a `-` is a header (no
    /// counter's name has one); a header that does not parse is dropped with its counters, so
    /// they can never be taken for the mapping before it.
    static func mappings(in smaps: String) -> [Mapping] {
        var result: [Mapping] = []
        var current: Mapping?
        for line in smaps.split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            if first.contains("-") {
                if let done = current { result.append(done) }
                current = Self.header(line)
                continue
            }
            guard current != nil, fields.count >= 2, let value = Int(fields[1]) else { continue }
            switch first {
            case "Rss:": current?.residentKilobytes = value
            case "Anonymous:": current?.anonymousKilobytes = value
            default: break
            }
        }
        if let done = current { result.append(done) }
        return result
    }

    private static func header(_ line: Substring) -> Mapping? {
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        guard fields.count >= 5 else { return nil }
        let range = fields[0].split(separator: "-")
        guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16), start < end,
              fields[1].count == 4 else { return nil }
        let path = fields.count == 6 ? String(fields[5].drop(while: { $0 == " " })) : ""
        return Mapping(start: start, end: end, permissions: String(fields[1]), path: path)
    }

    private static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return count == 0 ? String(decoding: bytes, as: UTF8.self) : nil }
            bytes.append(contentsOf: chunk[0..<count])
        }
    }
}
