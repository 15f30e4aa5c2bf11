# Two commands on a fresh machine: `make demo` and `make test`.
SWIFT ?= swift
TSAN_SCRATCH ?= .build-tsan

.PHONY: deps demo build test test-core-tsan bench clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c release --product shashin

demo: build
	$$($(SWIFT) build -c release --show-bin-path)/shashin demo

test: deps
	$(SWIFT) test
	$(MAKE) test-core-tsan

# The core's tests again under ThreadSanitizer, in their own build folder (the flag rebuilds everything).
test-core-tsan:
	SHASHIN_CORE_ONLY=1 $(SWIFT) test --sanitize=thread --scratch-path $(TSAN_SCRATCH)

bench: deps
	NEED_PILLOW=1 scripts/install-deps.sh
	cd Benchmarks && $(SWIFT) package benchmark

clean:
	rm -rf .build $(TSAN_SCRATCH)
