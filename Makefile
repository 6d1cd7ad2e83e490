# OpenHealthKit: every set-up step lives here, so a brand-new machine needs
# only `make quickstart` (the main job) or `make test` (every test).

SWIFT      ?= swift
BENCH_N    ?= 1000000
BENCH_DIR  ?= /work/ohk-bench-store
PEERS      ?= ../shared/bench/peers

.PHONY: deps build test quickstart bench clean catalogue

# Installs what is missing (quick when already present).
deps:
	@{ command -v pkg-config >/dev/null && pkg-config --exists lmdb; } 2>/dev/null || { \
	  echo "installing liblmdb-dev and pkg-config"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq liblmdb-dev pkg-config >/dev/null; }

build: deps
	$(SWIFT) build

# Every test: the Swift suites (C and Python arrive with their issues).
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# The main job: a Swift walk-through of save -> anchored query -> save -> delta.
quickstart: deps
	$(SWIFT) run swift-quickstart

# The reference workload (../shared/bench/WORKLOAD.md) on the core, release build.
bench: deps
	$(SWIFT) build -c release --product ohk-bench
	rm -rf $(BENCH_DIR) $(BENCH_DIR)-bulk
	.build/release/ohk-bench --n $(BENCH_N) --dir $(BENCH_DIR)
	rm -rf $(BENCH_DIR) $(BENCH_DIR)-bulk

# Regenerates the type catalogue from ../shared/data/healthkit-types.md.
catalogue:
	python3 scripts/gen_catalogue.py

clean:
	rm -rf .build
