# On a fresh machine: `make demo`, `make test` (the contributor loop) and `make check` (what CI runs).
SWIFT ?= swift
TSAN_SCRATCH ?= .build-tsan

.PHONY: deps demo build test check check-apple-sdk check-ios-sdk check-macos-sdk check-readme docs check-apple-shape test-sanitizers test-core-tsan bench bench-smoke soak clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release --product shashin

demo: build
	$$($(SWIFT) build -c release --show-bin-path)/shashin demo

# The contributor loop: the plain debug build, every plain suite (core, feed, libvips, memory,
# server and over-HTTP, process; scripts/test-suites.sh says why each group runs in a process of
# its own), then the README's and the DocC articles' samples compiled against that build and every
# relative link of the Markdown pages followed.
test: deps
	$(SWIFT) build --build-tests
	SWIFT=$(SWIFT) scripts/test-suites.sh
	SWIFT=$(SWIFT) scripts/check-readme --skip-build
	scripts/check-links

# Everything CI runs (`.ci/run`): `make test`, then the Apple SDK type-checks where the SDKs are
# at hand, the DocC catalogues (with the Apple symbols from those checks' modules), every
# benchmark's smoke run, the Apple-shape build, and the whole suite again under ThreadSanitizer
# and under AddressSanitizer. The DocC step runs before the Apple-shape build, which rebuilds this
# package's modules in .build under another condition.
check: deps
	$(MAKE) test
	$(MAKE) check-apple-sdk
	SWIFT=$(SWIFT) scripts/build-docs --skip-build
	$(MAKE) bench-smoke
	$(MAKE) check-apple-shape
	$(MAKE) test-sanitizers

# The Apple targets (ShashinCore, Shashin, ShashinUI, ShashinAppleTests) type-checked with the
# Linux compiler against Apple's SDKs (no code generated, nothing linked): arm64-apple-ios15.0
# against iOS 26.2 and arm64-apple-macos12.0 against macOS 15.5 (the AppKit branches), by the tool
# in ../shared/apple-sdk, given a clone of github:seayou2468-web/maciOS as APPLE_SDK_GIT (or an
# SDK per OS: scripts/check-apple-sdk says how); then, against the modules it emits, the
# Apple-only samples of the Markdown pages and the samples in ShashinUI's doc comments
# (`SAMPLES_ONLY=1 make check-apple-sdk`: those alone, of the working tree, in about 30 s against
# the modules of an earlier check). Each must end with 0 errors and 0 warnings; each
# is skipped, saying so, where the tool or its SDK is missing (a user's clone has neither). They
# check the last commit. About 2 minutes each, 4 the first time. The iOS 17.4 SDK is no longer a
# gate: it is older than the package's Xcode 26 and lacks `ScrollPhase` (iOS 18).
check-apple-sdk:
	scripts/check-apple-sdk all

check-ios-sdk:
	scripts/check-apple-sdk ios

check-macos-sdk:
	scripts/check-apple-sdk macos

# Every Swift sample in README.md and in the DocC articles (Sources/Shashin/Shashin.docc),
# compiled against the built package; errors and warnings fail (scripts/check-readme says how
# each sample is compiled). Then every relative link of the Markdown pages: the file exists and
# the anchor is one of its headings' (scripts/check-links). Seconds once the package is built.
check-readme: deps
	SWIFT=$(SWIFT) scripts/check-readme
	scripts/check-links

# The DocC catalogues, into .build/docs: a static site to serve with any web server (open
# /documentation/shashin/ and /documentation/shashinui/). Shashin.docc with the symbols of
# `import Shashin` read from the modules the plain build made (no second build), and, where the
# Apple SDKs are at hand (as for `make check-apple-sdk`), Shashin's Apple symbols and the
# ShashinUI.docc catalogue from the SDK checks' modules; "skipped" for the Apple part otherwise.
# Any DocC warning fails. About 10 s once the package is built and the SDK checks have run on
# the last commit (else they run first); scripts/build-docs says how.
docs: deps
	SWIFT=$(SWIFT) scripts/build-docs

# The Apple build's compile check, on Linux (compiles, runs nothing). With SHASHIN_APPLE_SHAPE=1
# the manifest builds every target under the condition SHASHIN_APPLE_SHAPE: `PlatformImage` is
# then an opaque, non-Sendable class shaped as UIImage/NSImage are to this code (no pixels, no
# width, not Bitmap: Sources/ShashinCore/Imaging/AppleShapeImage.swift), and Shashin's ImageIO and
# Core Graphics types are signature-only stand-ins (Sources/Shashin/AppleShape/). Any line outside
# the platform files that assumes `PlatformImage` is `Bitmap`, or sends an image where NSImage
# (Sendable only from macOS 14) cannot go, fails here as it would on a Mac. It builds the core,
# Shashin, ImageServer, the `shashin`, `shashin-bench` and `shashin-dev` tools and the shared tests (ShashinCoreTests, ShashinTests,
# ImageServerTests); the libvips targets are left out, as on Apple platforms, where ImageIO decodes.
# The Apple-only files themselves (ImageIO, Core Graphics, UIKit) need a Mac: the hosted Apple CI.
# It builds in `.build`, the plain build's folder: only this package's own modules change under
# the condition, so SwiftNIO, BoringSSL and the other dependencies are not compiled a second time
# (a folder of its own costs a whole dependency build on a fresh clone). The next plain build then
# recompiles this package's modules only.
APPLE_SHAPE_SCRATCH ?= .build
check-apple-shape: deps
	SHASHIN_APPLE_SHAPE=1 $(SWIFT) build --build-tests --scratch-path $(APPLE_SHAPE_SCRATCH)

# The whole suite again under ThreadSanitizer, then AddressSanitizer (scripts/test-sanitized.sh
# says what it leaves out and why). `make test-core-tsan` is the quick check of the core alone.
test-sanitizers:
	SWIFT=$(SWIFT) scripts/test-sanitized.sh thread
	SWIFT=$(SWIFT) scripts/test-sanitized.sh address

test-core-tsan:
	TSAN_OPTIONS="halt_on_error=1" \
		SHASHIN_CORE_ONLY=1 SHASHIN_STRESS_REQUESTS=10000 $(SWIFT) test --sanitize=thread --scratch-path $(TSAN_SCRATCH)

# Every comparison script and benchmark command of `make bench` in its smoke mode: the debug build
# `make test` has made, tiny counts, about a minute, figures discarded. It proves the tools still
# run end to end (a script that rots fails CI, not the next person who needs its figure).
# Installs what they compare against (Pillow, vipsthumbnail, nginx-light). The commands are
# `shashin-bench`'s, a product of this package (sources in Benchmarks/Commands). Not covered: the
# ordo-one benchmarks of Benchmarks/Package.swift, a package of their own whose build (release,
# every dependency again) would cost CI more than the whole suite; `make bench` runs them.
bench-smoke: deps
	SMOKE=1 SWIFT=$(SWIFT) scripts/bench-decode-vs-pillow.sh
	SMOKE=1 SWIFT=$(SWIFT) scripts/bench-process-vs-pillow.sh
	SMOKE=1 SWIFT=$(SWIFT) scripts/bench-animation-vs-pillow.sh
	SMOKE=1 SWIFT=$(SWIFT) scripts/bench-memory.sh
	SMOKE=1 SWIFT=$(SWIFT) scripts/bench-network.sh
	SMOKE=1 SWIFT=$(SWIFT) scripts/bench-progressive.sh
	SMOKE=1 SWIFT=$(SWIFT) scripts/bench-pipeline-cost.sh
	SMOKE=1 SWIFT=$(SWIFT) scripts/bench-disk-store.sh
	$$($(SWIFT) build --show-bin-path)/shashin-bench disk --counts 200 --passes 1
	for d in streamed whole first; do $$($(SWIFT) build --show-bin-path)/shashin-bench animation --frames 12 --width 160 --height 120 --delivery $$d || exit 1; done

# The benchmarks (ordo-one/benchmark, in Benchmarks/), the side-by-side decode (JPEG, PNG, WebP;
# vipsthumbnail for reference) and processor comparisons with Pillow, peak memory over 100
# 12 MP JPEGs, the disk cache against a file-per-entry store, the network loaders against nginx,
# progressive previews, then the disk cache's store cost against a baseline commit's; release
# builds; a few minutes. Results and how to read them: BENCHMARKS.md.
bench: deps
	NEED_PILLOW=1 scripts/install-deps.sh
	cd Benchmarks && $(SWIFT) package benchmark --no-progress
	SWIFT=$(SWIFT) scripts/bench-decode-vs-pillow.sh
	SWIFT=$(SWIFT) scripts/bench-process-vs-pillow.sh
	SWIFT=$(SWIFT) scripts/bench-animation-vs-pillow.sh
	SWIFT=$(SWIFT) scripts/bench-memory.sh
	$(SWIFT) build -c release --product shashin-bench
	$$($(SWIFT) build -c release --show-bin-path)/shashin-bench disk
	SWIFT=$(SWIFT) scripts/bench-network.sh
	SWIFT=$(SWIFT) scripts/bench-progressive.sh
	WINDOW=32 SWIFT=$(SWIFT) scripts/bench-pipeline-cost.sh
	SWIFT=$(SWIFT) scripts/bench-disk-store.sh
	for d in streamed whole first; do $$($(SWIFT) build -c release --show-bin-path)/shashin-bench animation --delivery $$d; done

# The soak under faults at full length (50,000 requests, a few minutes; a short one runs in
# `make test`). Figures and how to read them: RELIABILITY.md.
soak: deps
	SWIFT=$(SWIFT) scripts/soak

clean:
	rm -rf .build $(TSAN_SCRATCH) .build-apple-shape .build-thread-sanitized .build-address-sanitized .build-fuzz

# The libFuzzer targets in Fuzz/ (decoding, HTTP cache headers, the disk index on damaged files),
# FUZZ_SECONDS each, one after another, with AddressSanitizer; too slow for `make test`. Findings go
# to Fuzz/Findings/; how to read them: RELIABILITY.md, "Fuzzing".
FUZZ_SECONDS ?= 60
.PHONY: fuzz
fuzz: deps
	SWIFT=$(SWIFT) scripts/fuzz $(FUZZ_SECONDS)
