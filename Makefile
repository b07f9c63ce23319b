# orientationd: the two commands of the README's quick start are `make demo` and `make test`.
SWIFT ?= swift
LOG ?= data/xio-fusion/handheld.log

.PHONY: all setup build demo replay test test-repeat bench bench-iio bench-idle bench-dos clean

all: build

## Install the Debian packages the project needs (only those missing).
setup:
	@scripts/setup-system-packages.sh

build: setup
	$(SWIFT) build

## The main job on the bundled real recording: the daemon replays it over a private socket and
## orientationctl monitor prints what it publishes (DEMO_SPEED=5 by default).
demo: setup
	$(SWIFT) build -c release --product orientationd
	$(SWIFT) build -c release --product orientationctl
	scripts/demo.sh

## The detector alone on the recording, as fast as possible.
replay: setup
	$(SWIFT) build -c release --product orientationctl
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

## Benchmarks in a release build; writes the report quoted in docs/PERFORMANCE.md.
bench: setup
	$(SWIFT) build -c release --product orientationctl
	$(SWIFT) build -c release --product orientationd
	$(SWIFT) build -c release --product OrientationBenchmarks
	.build/release/OrientationBenchmarks --output bench-results.md

## Wake-ups and CPU of the daemon reading a (umockdev) 100 Hz sensor, by batch size.
bench-iio: setup
	$(SWIFT) build -c release --product orientationd
	Benchmarks/iio-wakeups.py .build/release/orientationd

## An idle daemon (a umockdev sensor present, nobody subscribed) over 20 s: wake-ups, CPU,
## resident memory, threads.
bench-idle: setup
	$(SWIFT) build -c release --product orientationd
	Benchmarks/iio-wakeups.py --idle .build/release/orientationd

## Issue 9's three denial-of-service loads at once (as other users; needs root): root's get
## latency, fresh connections, the daemon's memory and CPU. SECONDS=120 by default.
bench-dos: setup
	$(SWIFT) build -c release --product orientationd
	Benchmarks/dos-load.py --seconds $(or $(SECONDS),120) --report bench-dos.md .build/release/orientationd

clean:
	$(SWIFT) package clean
