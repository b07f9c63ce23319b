# orientationd: the two commands of the README's quick start are `make demo` and `make test`.
SWIFT ?= swift
LOG ?= data/xio-fusion/handheld.log
# Every release build links the Swift runtime statically (Foundation and Dispatch included), so
# the installed binaries need no toolchain, only Debian's libraries; one set of flags for every
# target, so that they share one build instead of rebuilding each other's.
# Linked by the toolchain's lld with packed relative relocations (DT_RELR, glibc >= 2.36), without
# exporting every Swift symbol, and with the functions the daemon runs laid out together
# (linker/orientationd.order, from `make symbol-order`): the idle daemon is 3–4 MB smaller in
# memory (docs/PERFORMANCE.md, "Memory"). The same file lists the data the daemon writes, so that
# lld puts it together at the front of `.data` and `.bss`: 140 kB fewer private dirty pages
# (issue 37; docs/PERFORMANCE.md, "Where each MB goes").
# Identical code folding (`--icf=all`): lld merges functions whose code is byte for byte the same
# (Swift's generic specialisations give many); 356 KB less, which keeps the package within issue
# 19's 20,000 KB once light, proximity and compass came (docs/PACKAGING.md). `--icf=safe` saved
# 24 KB only: swiftc emits no address-significance table, so lld must assume every address is taken.
# Optimised for size (`-Osize`, every module and package): issues 26, 27 and 30 took the package to
# 20,120 KB, past issue 19's 20,000; -Osize made it 19,296 KB and the idle daemon smaller too
# (14.1 vs 14.5 MiB, each with its own symbol order), for about 30 ns more per sample in the
# pipeline (docs/PERFORMANCE.md, "Optimising for size").
# One section per function (`-function-sections` for Swift, `-ffunction-sections` for C): swiftc
# puts all of a module's functions in one `.text` by default, so the order file could only move
# whole modules and most of the functions it names lay scattered (issue 28: 4,049 of 5,097 more
# than 2 MB from the start of the code). The standard library's prebuilt `.text` stays one block.
# Reproducible (docs/PACKAGING.md): the checkout's path is mapped to `.` in file names that reach
# the binary (a C assert in SwiftNIO, debug information), and swiftc's incremental LLVM code
# generation is off (with it on, a fifth of the hashes in `.swift_modhash` differed between builds).
RELEASE = $(SWIFT) build -c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xswiftc -Osize \
	-Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic -Xlinker --icf=all \
	-Xlinker --symbol-ordering-file=$(CURDIR)/linker/orientationd.order -Xlinker --no-warn-symbol-ordering \
	-Xswiftc -file-prefix-map -Xswiftc $(CURDIR)=. -Xcc -ffile-prefix-map=$(CURDIR)=. \
	-Xswiftc -Xfrontend -Xswiftc -disable-incremental-llvm-codegen \
	-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections
PREFIX ?= /usr/local
DESTDIR ?=
# The manuals' date: SOURCE_DATE_EPOCH's when set (dpkg-buildpackage sets it from
# debian/changelog), else the last commit's (reproducible), else today.
MANUAL_DATE ?= $(if $(SOURCE_DATE_EPOCH),$(shell date -u -d @$(SOURCE_DATE_EPOCH) +%F),$(shell git log -1 --format=%cs 2>/dev/null || date +%F))

.PHONY: all setup build release manuals install uninstall deb demo replay test test-repeat check-docs bench bench-iio bench-idle bench-claimed bench-dos symbol-order clean

all: build

## Install the Debian packages the project needs (only those missing).
setup:
	@scripts/setup-system-packages.sh

build: setup
	$(SWIFT) build

## The main job on the bundled real recording: the daemon replays it over a private socket and
## orientationctl monitor prints what it publishes (DEMO_SPEED=5 by default).
## A debug build of the one binary (the demo runs it as orientationctl too, through a link), in a
## build directory of its own without debug information or an index store (what nobody reads in
## a demo): the first event in about two minutes on 2 cores (issue 40; docs/PERFORMANCE.md,
## "First run"), where the static release build (what make install and make deb ship) took over
## three and a half for the daemon alone. Its own directory, so that `make test` (which keeps
## the default flags) does not rebuild what the demo built, nor the demo what the tests built.
## At 5x speed the debug daemon idles.
DEMO_BUILD = .build-demo
demo: setup
	$(SWIFT) build --scratch-path $(DEMO_BUILD) --product orientationd -Xswiftc -gnone --disable-index-store
	DEMO_BIN=$(DEMO_BUILD)/debug scripts/demo.sh

## The detector alone on the recording, as fast as possible.
replay: setup
	$(RELEASE) --product orientationctl
	.build/release/orientationctl replay $(LOG)

## Every test (the umockdev integration suite in its own process); the last line printed is the
## combined "tests: N passed, N failed".
test: setup
	scripts/run-tests.sh

## The suites that touch threads, sockets and umockdev, N times in a row (default 20), stopping
## at the first failure: a flaky test blocks every landing, so hunt them here.
N ?= 20
test-repeat: setup
	scripts/test-repeat.sh $(N)

## Docs that disagree with the code: every ``symbol`` link in a `///` comment and every repository
## path in README.md, docs/ and the comments must resolve (also the first test of `make test`);
## and no lock held across a callback, a log write, a thread start or a D-Bus call
## (scripts/check-locks.py, the second).
check-docs:
	scripts/check-docs.py --self-test
	scripts/check-docs.py
	scripts/check-locks.py --self-test
	scripts/check-locks.py

## Benchmarks in a release build; writes the report quoted in docs/PERFORMANCE.md.
bench: setup
	$(RELEASE) --product orientationctl
	$(RELEASE) --product orientationd
	$(RELEASE) --product OrientationBenchmarks
	.build/release/OrientationBenchmarks --output bench-results.md

## Wake-ups and CPU of the daemon reading a (umockdev) 100 Hz sensor, by batch size.
bench-iio: setup
	$(RELEASE) --product orientationd
	Benchmarks/iio-wakeups.py .build/release/orientationd

## An idle daemon (a umockdev sensor present, nobody subscribed) over 20 s: wake-ups, CPU,
## resident memory, threads.
bench-idle: setup
	$(RELEASE) --product orientationd
	Benchmarks/iio-wakeups.py --idle .build/release/orientationd

## Issue 28: the daemon beside Debian's iio-sensor-proxy while a D-Bus client holds
## ClaimAccelerometer (and ClaimLight), on umockdev fixtures (polled 10 Hz; buffered 100 Hz fed
## live) and a private system-like bus: wake-ups/s still (all threads and per thread), CPU, RSS,
## threads, and the delay from each of 8 turns to PropertiesChanged (Benchmarks/claimed.py, about
## 8 minutes; needs umockdev's gir bindings, python3-dbus). Writes bench-claimed.md.
bench-claimed: setup
	$(RELEASE) --product orientationd
	Benchmarks/claimed.py --report bench-claimed.md .build/release/orientationd

## Issue 9's three denial-of-service loads at once (as other users; needs root): root's get
## latency, fresh connections, the daemon's memory and CPU. SECONDS=120 by default. Then issue
## 18's D-Bus and claim loads, one after the other (Benchmarks/dbus-load.py; DBUS_SECONDS=20 each):
## sensor opens, log lines, PropertiesChanged latency, whether the daemon keeps the bus; and
## issue 26's, with a stand-in polkit (Benchmarks/polkit-standin.py): a polkit that never answers
## one uid, a slow polkit with vanishing callers, a claim loop's polkit checks (another user's
## claim latency during and after each), RSS after 30 MB messages, log lines after 1,500 SIGHUPs.
bench-dos: setup
	$(RELEASE) --product orientationd
	Benchmarks/dos-load.py --seconds $(or $(SECONDS),120) --report bench-dos.md .build/release/orientationd
	Benchmarks/dbus-load.py bench --seconds $(or $(DBUS_SECONDS),20) --report bench-dos-dbus.md .build/release/orientationd

## Regenerate linker/orientationd.order (the functions the daemon runs, profiled with valgrind's
## callgrind, and the data it writes, read from /proc/PID/mem; scripts/symbol-order.py) and
## relink with it. Needs valgrind. A stale list only costs memory: run it after large changes and
## commit the file (`scripts/symbol-order.py --data` refreshes the data part alone, in seconds).
symbol-order: setup
	$(RELEASE) --product orientationd
	scripts/symbol-order.py .build/release/orientationd
	rm -f .build/release/orientationd .build/release/orientationctl
	$(RELEASE) --product orientationd

## The installed binary, release, Swift runtime linked in: orientationd is also orientationctl
## and monitor-sensor by the name it runs as (make install links those names to it).
release: setup
	$(RELEASE) --product orientationd

## Man pages: orientationd(8) and orientationctl(1) from the same declarations as --help
## (swift-argument-parser's GenerateManual plugin), orientationd.conf(5) from the sample
## configuration and the detector's parameter table (scripts/config-manpage.py).
manuals: setup
	$(SWIFT) build --product orientationd
	$(SWIFT) build --product orientationctl
	mkdir -p .build/manuals
	# From the programs' own option tables (every character kept) and man/*.extra (FILES,
	# SIGNALS, EXIT STATUS, ENVIRONMENT…): scripts/manpage.py.
	.build/debug/orientationd --experimental-dump-help > .build/manuals/orientationd.json
	scripts/manpage.py .build/manuals/orientationd.json 8 $(MANUAL_DATE) man/orientationd.8.extra > .build/manuals/orientationd.8
	.build/debug/orientationctl --experimental-dump-help > .build/manuals/orientationctl.json
	scripts/manpage.py .build/manuals/orientationctl.json 1 $(MANUAL_DATE) man/orientationctl.1.extra > .build/manuals/orientationctl.1
	.build/debug/orientationctl parameters > .build/manuals/parameters.txt
	scripts/config-manpage.py config/orientationd.conf .build/manuals/parameters.txt $(MANUAL_DATE) > .build/manuals/orientationd.conf.5
	# monitor-sensor is orientationctl run by that name: its page is orientationctl's.
	echo '.so man1/orientationctl.1' > .build/manuals/monitor-sensor.1

## Install under PREFIX (default /usr/local; DESTDIR for staging): the binary (stripped, as the
## package's; STRIP=no keeps its symbols), systemd units, the
## udev rule, the D-Bus policy, /etc/orientationd/orientationd.conf (never overwritten), man
## pages and orientationctl's shell completions. `make uninstall` removes exactly those.
install: release manuals
	PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) BUILD=.build/release MANUALS=.build/manuals STRIP=$(or $(STRIP),yes) scripts/install.sh install

uninstall:
	PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) scripts/install.sh uninstall

## The Debian package in dist/: `dpkg-buildpackage -b` on debian/ (which builds through
## `make release manuals`); orientationd and orientationd-dbgsym, lintian-checked.
deb: setup
	scripts/make-deb.sh dist

clean:
	$(SWIFT) package clean
	rm -rf $(DEMO_BUILD)
