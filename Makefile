# OpenHealthKit: every set-up step lives here, so a brand-new machine needs
# only `make quickstart` (the main job) or `make test` (every test).

SWIFT      ?= swift
# The ohk tool is a package trait, off for packages that use the libraries.
TRAITS     := --traits CommandLineTool,Server,MCPServer
# Release builds (the quickstart, benchmarks) leave the server out: a
# release build of its HTTP library takes minutes, and they do not need it.
RELEASE_TRAITS := --traits CommandLineTool
BENCH_N    ?= 1000000
# Benchmark stores (BENCH_DIR, and BENCH_DIR-c, -hk, -py… beside it) go
# inside the clone by default: on the clone's disk, where durable commits
# cost what they cost (a tmpfs /tmp would make them free), and removed by
# make clean. BENCH_DIR=/some/dir puts them on the disk you mean to measure.
BENCH_DIR  ?= $(CURDIR)/build/bench-store
# The peer programs (the workload in C on SQLite and raw LMDB) are not part
# of the repository; the comparisons skip, saying so, when they are absent.
PEERS      ?= ../shared/bench/peers
NO_PEERS   := echo "no peer benchmarks at $(PEERS) (the workload's harness, SQLite and raw-LMDB peers): \
              set PEERS=DIR to a copy of them; skipping the comparison"

PYTHON     ?= python3
PYPKG      := bindings/python
PREFIX     ?= /usr/local
# The docs install as they sit in the clone (README.md beside docs/), so
# that their links to one another still work.
DOCDIR     ?= $(PREFIX)/share/doc/openhealthkit
DOCS       := README.md CHANGELOG.md LICENSE $(sort $(wildcard docs/*.md)) docs/openapi.yaml
# Both come from the C types header, their one home.
ABI        := $(shell sed -n 's/^\#define OHK_ABI_VERSION \([0-9]*\)$$/\1/p' include/openhealthkit_types.h)
VERSION    := $(shell sed -n 's/^\#define OHK_VERSION_STRING "\(.*\)"$$/\1/p' include/openhealthkit_types.h)
LIBDIR     := build/lib
LIB        := $(LIBDIR)/libopenhealthkit.so.$(VERSION)
# The C library: Swift runtime linked in, only ohk_* exported (docs/architecture.md).
# Each function in a section of its own, so that gold can put the ones the
# workload runs most first, side by side (scripts/hot-text.txt, `make hot-text`).
# Swift's run-time exclusivity checks are off in this build (a twentieth of
# a short query's instructions); the debug builds the tests run keep them.
# A generic type's metadata comes from its accessor, not from demangling its
# name: some 7k instructions less at its first use in a process.
LIB_FLAGS  := -c release --product openhealthkit --scratch-path .build-lib -Xswiftc -static-stdlib \
              -Xlinker -soname=libopenhealthkit.so.$(ABI) \
              -Xlinker --version-script=$(CURDIR)/scripts/openhealthkit.map -Xlinker --gc-sections \
              -Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -enforce-exclusivity=unchecked \
              -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
              -Xlinker --section-ordering-file=$(CURDIR)/scripts/hot-text.txt

# `make help`: each target a user runs, with the line after its `## `.
.DEFAULT_GOAL := help
help: ## list the targets, one line each (this list)
	@echo "make TARGET [VARIABLE=value ...]; the targets:"
	@awk -F ':.*## ' '/^[a-zA-Z0-9_.-]+:.*## / { printf "  %-20s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
	@echo "variables: PREFIX=$(PREFIX) DOCDIR=$(DOCDIR) BENCH_N=$(BENCH_N) BENCH_DIR=$(BENCH_DIR)"
	@echo "           IMPORT_DIR=$(IMPORT_DIR) PEERS=$(PEERS) FUZZ_TIME=$(FUZZ_TIME) SWIFT=$(SWIFT)"

.PHONY: help install-docs install-docs-check enums enums-check ctypes ctypes-check deps c-deps pg-deps py-deps build test quickstart swift-quickstart bench hk-bench clean catalogue lib header header-check install c-test cli-test c-bench c-delta-loop \
        python-lib py-test py-install-check py-bench import-bench delta-footprint peer-delta-footprint fuzz fuzz-build fuzz-replay fuzz-smoke \
        reliability reliability-smoke test-sanitize c-bench-run py-bench-peer swift6-app \
        latest-bench latest-bench-run workout-bench ecg-bench server-deps server-test wheel wheel-check cookbook \
        lmdb-walk-bench hot-text hot-text-run

# Installs what is missing (quick when already present).
# LMDB for the core; expat, libarchive and libcrypto for the importer;
# libcurl's headers for ohk sync over HTTP; the tz database for
# statistics in named time zones.
deps: ## install the build's Debian packages when missing (LMDB, expat, libarchive, libssl, libcurl, tzdata)
	@{ command -v pkg-config >/dev/null && pkg-config --exists lmdb expat libarchive libcrypto libcurl \
	   && test -f /usr/share/zoneinfo/Europe/Paris; } 2>/dev/null || { \
	  echo "installing liblmdb-dev, libexpat1-dev, libarchive-dev, libssl-dev, libcurl4-openssl-dev, pkg-config and tzdata"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    liblmdb-dev libexpat1-dev libarchive-dev libssl-dev libcurl4-openssl-dev pkg-config tzdata >/dev/null; }

# What the C tests need: cmocka and valgrind.
c-deps: deps ## install cmocka and valgrind for the C tests when missing
	@{ pkg-config --exists cmocka && command -v valgrind >/dev/null; } 2>/dev/null || { \
	  echo "installing libcmocka-dev and valgrind"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcmocka-dev valgrind >/dev/null; }

# PostgreSQL's server, client and libpq for the sink's tests, which start
# a throwaway cluster of their own (scripts/pg_cluster.sh).
pg-deps: ## install PostgreSQL for the sink's tests when missing
	@{ ls /usr/lib/postgresql/*/bin/initdb && ldconfig -p | grep -q libpq.so.5 && command -v psql \
	   && command -v runuser; } >/dev/null 2>&1 || { \
	  echo "installing postgresql, postgresql-client and libpq5"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    postgresql postgresql-client libpq5 util-linux >/dev/null; }

# What the Python tests need: pytest, NumPy for the columnar path, pandas
# for statistics as a DataFrame, mypy for tests/test_typing.py, pyarrow
# and DuckDB for the Arrow tables and Parquet folders.
py-deps: ## install pytest, NumPy, pandas, mypy, pyarrow and DuckDB when missing
	@$(PYTHON) -c "import pytest, numpy, pandas, mypy, pyarrow, duckdb" 2>/dev/null || { \
	  echo "installing pytest, numpy, pandas, mypy, pyarrow and duckdb"; \
	  $(PYTHON) -m pip install -q pytest numpy pandas mypy pyarrow duckdb; }

# libopenhealthkit.so (stripped), its links and openhealthkit.pc under build/.
lib: deps ## build the C library, its links and openhealthkit.pc under build/lib
	$(SWIFT) build $(LIB_FLAGS)
	mkdir -p $(LIBDIR)/pkgconfig
	strip --strip-unneeded -o $(LIB).stripped .build-lib/release/libopenhealthkit.so
	mv -f $(LIB).stripped $(LIB)
	ln -sf libopenhealthkit.so.$(VERSION) $(LIBDIR)/libopenhealthkit.so.$(ABI)
	ln -sf libopenhealthkit.so.$(ABI) $(LIBDIR)/libopenhealthkit.so

# Regenerates include/openhealthkit.h from Sources/OpenHealthKitC.
header: deps ## regenerate include/openhealthkit.h from Sources/OpenHealthKitC
	python3 scripts/gen_header.py $(TRAITS)

# Every enum and status table, from api/enums.toml: the C header's block,
# the Swift enums of the core and the HealthKit layer, Python's IntEnums.
enums: ## regenerate every enum table from api/enums.toml
	python3 scripts/gen_enums.py

enums-check: ## fail when an enum table is not what api/enums.toml generates
	python3 scripts/gen_enums.py --check

# Python's ctypes declarations (_structs.py, _signatures.py) from the C
# headers; after `make enums`, which rewrites the types header's enums.
ctypes: ## regenerate the Python package's ctypes declarations from the C headers
	python3 scripts/gen_ctypes.py

ctypes-check: ## fail when the ctypes declarations are not what the C headers generate
	python3 scripts/gen_ctypes.py --check

# Fails when the committed header is not what the sources generate.
# The header comes from a debug build with make test's traits: built
# without them, the server test's `swift build $(TRAITS)` after it rebuilt
# the modules (94 s of CI, 23 s with them).
header-check: deps ## fail when include/openhealthkit.h is not what the sources generate
	python3 scripts/gen_header.py --check $(TRAITS)

# make install PREFIX=/opt/ohk: library, headers, openhealthkit.pc, and
# the docs under $(PREFIX)/share/doc/openhealthkit.
install: lib install-docs ## install the library, headers, openhealthkit.pc and docs under PREFIX (and DESTDIR)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	scripts/install_file.sh $(LIB) $(DESTDIR)$(PREFIX)/lib/$(notdir $(LIB))
	ln -sf libopenhealthkit.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libopenhealthkit.so.$(ABI)
	ln -sf libopenhealthkit.so.$(ABI) $(DESTDIR)$(PREFIX)/lib/libopenhealthkit.so
	install -m 644 include/openhealthkit.h include/openhealthkit_types.h $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' scripts/openhealthkit.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/openhealthkit.pc

# The docs alone: README.md, CHANGELOG.md and LICENSE in DOCDIR, docs/*.md
# and docs/openapi.yaml in DOCDIR/docs. Builds nothing.
install-docs: ## install the docs (README, CHANGELOG, LICENSE, docs/) under DOCDIR alone
	install -d $(DESTDIR)$(DOCDIR)/docs
	install -m 644 $(filter-out docs/%,$(DOCS)) $(DESTDIR)$(DOCDIR)/
	install -m 644 $(filter docs/%,$(DOCS)) $(DESTDIR)$(DOCDIR)/docs/

# install-docs into a scratch DESTDIR; fails unless every doc is there,
# byte for byte. Part of make test (c-test's installed copy runs the whole
# of make install).
install-docs-check: ## check that make install puts every doc under DOCDIR
	rm -rf build/install-docs-check
	$(MAKE) --no-print-directory install-docs DESTDIR=$(CURDIR)/build/install-docs-check
	@for f in $(DOCS); do cmp -s $$f build/install-docs-check$(DOCDIR)/$$f || { \
	  echo "install-docs-check: $$f is not installed as $(DOCDIR)/$$f" >&2; exit 1; }; done
	@echo "install-docs-check: $(words $(DOCS)) docs under $(DOCDIR)"
	rm -rf build/install-docs-check

build: deps ## debug build of every product (swift build)
	$(SWIFT) build $(TRAITS)

# Every test: no reference outside the repository, the Swift suites, a
# user's package (no warning in Swift 5 or 6 mode, nothing fetched), then
# the C API (header, library, C tests under valgrind and AddressSanitizer,
# examples, an installed-copy build), then the Python package (pytest, and
# `pip install` into a fresh venv), then the fuzz and crash smoke runs.
# The suites that SIGKILL ohk at random moments of its runs run one at a
# time, on their own: beside the rest of the Swift tests, a loaded machine
# stretched the runs' start until few kills landed where the runs commit
# (41 of 100 in 2,000 rounds).
KILL_SUITES := SyncProcessTests SinkProcessTests
space := $(subst ,, )
test: deps pg-deps ## every test: repository checks, Swift, C, Python, server, wheel, cookbook, fuzz and crash smoke runs
	python3 scripts/check_self_contained.py
	python3 scripts/check_semantics.py
	$(MAKE) install-docs-check
	python3 scripts/gen_identifiers.py --check
	python3 scripts/gen_enums.py --check
	python3 scripts/gen_ctypes.py --check
	python3 scripts/gen_fhir.py --check
	$(SWIFT) build $(TRAITS) --build-tests
	$(SWIFT) test $(TRAITS) --skip-build --skip "$(subst $(space),|,$(KILL_SUITES))"
	for suite in $(KILL_SUITES); do $(SWIFT) test $(TRAITS) --skip-build --filter "$$suite" || exit 1; done
	$(MAKE) swift6-app
	scripts/check_user_package.sh
	$(MAKE) fuzz-replay
	$(MAKE) c-test
	$(MAKE) py-test
	$(MAKE) server-test
	$(MAKE) cli-test
	$(MAKE) wheel-check
	$(MAKE) cookbook
	$(MAKE) fuzz-smoke
	$(MAKE) reliability-smoke

# ohk serve on loopback, through real clients: httpx and httpx-sse from
# Python (Tests/server), curl from a shell script.
server-deps: py-deps ## install httpx, httpx-sse, openapi-spec-validator, curl and jq when missing
	@$(PYTHON) -c "import httpx, httpx_sse, openapi_spec_validator" 2>/dev/null || { \
	  echo "installing httpx, httpx-sse and openapi-spec-validator"; \
	  $(PYTHON) -m pip install -q httpx httpx-sse openapi-spec-validator; }
	@{ command -v curl && command -v jq; } >/dev/null || { \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl jq >/dev/null; }

server-test: deps server-deps ## ohk serve on loopback through Python and curl clients
	$(SWIFT) build $(TRAITS) --product ohk
	$(SWIFT) build $(TRAITS) --product phone-sync
	Tests/server/curl_test.sh .build/debug/ohk
	cd Tests/server && OHK_BIN=$(CURDIR)/.build/debug/ohk PHONE_SYNC_BIN=$(CURDIR)/.build/debug/phone-sync \
	  $(PYTHON) -m pytest -q

# ohk run as a user runs it, its output read by real readers: `ohk export`
# to CSV, NDJSON and Parquet (DuckDB, pyarrow), to FHIR (fhir.resources'
# validator), and `ohk mcp` through the `mcp` package's client (Tests/cli).
cli-test: deps py-deps python-lib ## ohk export and ohk mcp, with real readers, on the real-export fixtures
	@$(PYTHON) -c "import fhir.resources.R4B, mcp" 2>/dev/null || { \
	  echo "installing fhir.resources (a FHIR validator) and mcp (an MCP client)"; \
	  $(PYTHON) -m pip install -q "fhir.resources>=8,<9" "mcp>=2.3,<3"; }
	$(SWIFT) build $(TRAITS) --product ohk
	cd Tests/cli && OHK_BIN=$(CURDIR)/.build/debug/ohk $(PYTHON) -m pytest -q

c-test: c-deps header-check lib ## the C tests: header, cmocka under valgrind and ASan, examples, installed copy
	$(MAKE) -C Tests/c all

# Places the library inside the Python package, so that the package works
# from the source tree and `pip install ./bindings/python` ships it. Every
# library is put in place as a new file renamed over the old one
# (scripts/install_file.sh): a process with the old one loaded keeps it.
python-lib: lib ## place the library inside the Python package (bindings/python)
	scripts/install_file.sh $(LIB) $(PYPKG)/openhealthkit/libopenhealthkit.so

py-test: python-lib py-deps ## the Python package's tests, then a pip install into a fresh venv
	cd $(PYPKG) && $(PYTHON) -m pytest -q
	$(MAKE) py-install-check

# A wheel that carries the library (manylinux, checked by auditwheel), for
# `pip install` on a machine without Swift: build/wheel/openhealthkit-*.whl.
wheel: python-lib ## build/wheel/openhealthkit-*.whl with the library inside (manylinux)
	scripts/build_wheel.sh build/wheel

# The wheel installed into a fresh venv and used without the toolchain.
wheel-check: wheel ## install the wheel into a fresh venv and use it without the toolchain
	scripts/check_wheel.sh build/wheel

# The Python cookbook (examples/python): every recipe on a generated
# export (daily steps, hourly heart rate, sleep per night, workouts, what
# changed since last time), each checked for what it shows.
cookbook: python-lib py-deps ## run the Python recipes of examples/python on a generated export
	mkdir -p build/cookbook
	$(PYTHON) scripts/gen_export.py build/cookbook/export.xml --size 3M --seed 48
	cd examples/python && PYTHONPATH=$(CURDIR)/$(PYPKG) $(PYTHON) run_all.py $(CURDIR)/build/cookbook/export.xml \
	  $(CURDIR)/build/cookbook/work

# `pip install ./bindings/python` into a new venv gives a working package.
py-install-check: python-lib ## pip install ./bindings/python into a fresh venv and import it
	rm -rf build/venv && $(PYTHON) -m venv build/venv
	build/venv/bin/pip install -q ./$(PYPKG)
	cd build && env -u OPENHEALTHKIT_LIBRARY venv/bin/python -c \
	  "import openhealthkit as o; print('installed openhealthkit', o.__version__, 'from', o.__file__)"

# The main job: import an Apple Health export with `ohk`, summarise it, run
# an anchored query, save a change, and query from the returned anchor.
QUICKSTART_EXPORT ?= Tests/Fixtures/export-small-b.xml
quickstart: deps ## the main job: import an export with ohk, query, save, query from the anchor
	$(SWIFT) build $(RELEASE_TRAITS) -c release --product ohk
	examples/quickstart.sh .build/release/ohk $(QUICKSTART_EXPORT)

# A HealthKit-style app in Swift 6 mode, nested closures in every handler
# (examples/swift6-app): it traps if a handler type is not @Sendable.
swift6-app: deps ## build and run the Swift 6 HealthKit-style app (examples/swift6-app)
	$(SWIFT) build $(TRAITS) --product swift6-app
	dir=$$(mktemp -d) && .build/debug/swift6-app $$dir/store && rm -rf $$dir

# The same story in Swift on the core (examples/swift-quickstart).
swift-quickstart: deps ## the quickstart in Swift on the core (examples/swift-quickstart)
	$(SWIFT) run $(TRAITS) swift-quickstart

# The reference workload (docs/benchmarks.md) on the core, release build.
bench: deps ## the reference workload on the Swift core (BENCH_N, BENCH_DIR)
	$(SWIFT) build $(RELEASE_TRAITS) -c release --product ohk-bench
	rm -rf $(BENCH_DIR) $(BENCH_DIR)-bulk
	.build/release/ohk-bench --n $(BENCH_N) --dir $(BENCH_DIR)
	rm -rf $(BENCH_DIR) $(BENCH_DIR)-bulk

# Phases 2-4 through the HealthKit-shaped API (OpenHealthKit), beside the
# core's API in the same run (docs/porting.md).
hk-bench: deps ## phases 2-4 through the HealthKit API beside the core
	$(SWIFT) build $(RELEASE_TRAITS) -c release --product hk-bench
	rm -rf $(BENCH_DIR)-hk
	.build/release/hk-bench --n $(BENCH_N) --dir $(BENCH_DIR)-hk
	rm -rf $(BENCH_DIR)-hk

# The latest 100 heart rates by a sorted sample query (hk-bench's
# "latest"), beside the same query on the SQLite peer's file through its
# (type, start_ms) index, in C; three rounds, interleaved.
latest-bench: deps ## the latest 100 heart rates by a sorted query, beside SQLite (needs PEERS)
	@test -f $(PEERS)/sqlite_peer.c || { $(NO_PEERS); exit 0; }; $(MAKE) --no-print-directory latest-bench-run

latest-bench-run:
	$(MAKE) -C $(PEERS) build
	mkdir -p build/bench $(dir $(BENCH_DIR))
	rm -rf $(BENCH_DIR)-sqlite && $(PEERS)/sqlite_peer $(BENCH_N) $(BENCH_DIR)-sqlite --sync normal --phases 1 >/dev/null
	$(CC) -O2 -Wall -o build/bench/sqlite_latest Benchmarks/c/sqlite_latest.c -lsqlite3
	$(SWIFT) build $(RELEASE_TRAITS) -c release --product hk-bench
	for i in 1 2 3; do rm -rf $(BENCH_DIR)-hk; .build/release/hk-bench --n $(BENCH_N) --dir $(BENCH_DIR)-hk --phases latest; \
	  build/bench/sqlite_latest $(BENCH_DIR)-sqlite/samples.sqlite; done
	rm -rf $(BENCH_DIR)-hk $(BENCH_DIR)-sqlite

# A benchmark of Benchmarks/c/ beside SQLite: installs libsqlite3-dev when
# missing, then builds build/bench/NAME against the library.
define sqlite_bench
@pkg-config --exists sqlite3 2>/dev/null || { apt-get update -qq && \
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsqlite3-dev >/dev/null; }
mkdir -p build/bench
$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Iinclude -o build/bench/$(1) Benchmarks/c/$(1).c \
  -Lbuild/lib -Wl,-rpath,$(CURDIR)/build/lib -lopenhealthkit -lsqlite3 -lm
endef

# A workout with a 3,600-point route and 3,600 associated heart rates
# saved and read back through C, beside SQLite doing the same:
# make workout-bench [WORKOUT_RUNS=50].
WORKOUT_RUNS ?= 50
workout-bench: lib ## a workout with route and heart rates through C, beside SQLite
	$(call sqlite_bench,workout_bench)
	rm -rf $(BENCH_DIR)-workout && build/bench/workout_bench $(BENCH_DIR)-workout $(WORKOUT_RUNS)
	rm -rf $(BENCH_DIR)-workout && build/bench/workout_bench $(BENCH_DIR)-workout $(WORKOUT_RUNS) --scratch
	rm -rf $(BENCH_DIR)-workout

# make ecg-bench [ECG_READS=1000]: one 30 s ECG (15,000 voltages) read by
# UUID through C, beside SQLite reading it from a BLOB.
ECG_READS ?= 1000
ecg-bench: lib ## a 30 s ECG read by UUID through C, beside SQLite
	$(call sqlite_bench,ecg_bench)
	rm -rf $(BENCH_DIR)-ecg && build/bench/ecg_bench $(BENCH_DIR)-ecg $(ECG_READS)

# The same workload through the C API, on the peers' harness (same sitting
# as `make -C $(PEERS) run`): make c-bench BENCH_N=100000 [PHASES=1,2,4].
PHASES ?= 1,1b,2,3,4,5,6,7,8
c-bench: lib ## the reference workload through the C API on the peers' harness (needs PEERS)
	@test -f $(PEERS)/bench.c || { $(NO_PEERS); exit 0; }; $(MAKE) --no-print-directory c-bench-run

# The workload's harness on this library (Benchmarks/c/ohk_peer.c and PEERS).
define build-ohk-peer
	mkdir -p build/bench
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Iinclude -I$(PEERS) -o build/bench/ohk_peer \
	  Benchmarks/c/ohk_peer.c $(PEERS)/bench.c -Lbuild/lib -Wl,-rpath,$(CURDIR)/build/lib -lopenhealthkit -lpthread -lm
endef

c-bench-run:
	$(build-ohk-peer)
	rm -rf $(BENCH_DIR)-c $(BENCH_DIR)-c-bulk
	build/bench/ohk_peer $(BENCH_N) $(BENCH_DIR)-c --phases $(PHASES)
	rm -rf $(BENCH_DIR)-c $(BENCH_DIR)-c-bulk

# The library's hot-text order: the reference workload through C at
# HOT_N samples under callgrind (every phase but 7, whose second process
# valgrind cannot start), then the functions it entered, most entered
# first (scripts/gen_hot_text.py). Run it when the C path's functions
# changed much, then `make lib` (relinked) and the benchmarks; commit
# scripts/hot-text.txt with their figures.
HOT_N ?= 20000
hot-text: lib c-deps ## regenerate scripts/hot-text.txt, the C library's function order (needs PEERS)
	@test -f $(PEERS)/bench.c || { $(NO_PEERS); exit 1; }; $(MAKE) --no-print-directory hot-text-run

hot-text-run:
	$(build-ohk-peer)
	rm -rf $(BENCH_DIR)-hot $(BENCH_DIR)-hot-bulk
	valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=build/bench/hot-text.callgrind \
	  build/bench/ohk_peer $(HOT_N) $(BENCH_DIR)-hot --phases 1b,2,3,4,5,6,9 >/dev/null
	python3 scripts/gen_hot_text.py .build-lib/release/libopenhealthkit.so build/bench/hot-text.callgrind > scripts/hot-text.txt
	rm -rf $(BENCH_DIR)-hot $(BENCH_DIR)-hot-bulk build/bench/hot-text.callgrind
	rm -f .build-lib/release/libopenhealthkit.so
	@echo "scripts/hot-text.txt: $$(grep -c '^\.text\.' scripts/hot-text.txt) functions; run make lib to relink"

# A full read through C beside a bare LMDB walk of the same tree
# (Benchmarks/c/lmdb_walk.c), on a store filled by py-bench's filler.
WALK_STORE ?= build/bench-walk-store
lmdb-walk-bench: lib py-deps ## a full read through C beside a bare LMDB cursor walk of the same tree (BENCH_N samples)
	mkdir -p build/bench
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Iinclude -o build/bench/lmdb_walk Benchmarks/c/lmdb_walk.c \
	  -Lbuild/lib -Wl,-rpath,$(CURDIR)/build/lib -lopenhealthkit -llmdb
	test -d $(WALK_STORE) || { $(MAKE) --no-print-directory python-lib && \
	  $(PYTHON) $(PYPKG)/bench/bench.py --fill $(BENCH_N) $(WALK_STORE); }
	build/bench/lmdb_walk $(WALK_STORE)

# The C delta query's fixed costs (Benchmarks/c/delta_loop.c): make
# c-delta-loop [BENCH_N=100000] [LOOP_MODE=hot|sweep:2|save|durable]. For A/B runs of two
# library builds, run build/bench/delta_loop with LD_LIBRARY_PATH at each.
LOOP_MODE ?= hot
c-delta-loop: lib ## the C delta query's fixed costs, hot or after a save (LOOP_MODE)
	mkdir -p build/bench
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Iinclude -o build/bench/delta_loop \
	  Benchmarks/c/delta_loop.c -Lbuild/lib -Wl,-rpath,$(CURDIR)/build/lib -lopenhealthkit -lm
	rm -rf $(BENCH_DIR)-loop
	build/bench/delta_loop $(BENCH_DIR)-loop $(BENCH_N) $(LOOP_MODE)
	rm -rf $(BENCH_DIR)-loop

# $(call footprint,DRIVER,DIR): build/bench/DRIVER on a fresh folder DIR
# under valgrind's lackey, its last query counted by scripts/footprint.py.
footprint = rm -rf $(2) && mkdir -p $(2) && bash -o pipefail -c 'valgrind --tool=lackey --trace-mem=yes --log-fd=9 \
	  build/bench/$(1) $(2) 9>&1 2>build/bench/$(1).err >/dev/null \
	  | python3 scripts/footprint.py build/bench/$(1).err' && rm -rf $(2)

# The cache lines and pages one short delta query through C touches
# (Benchmarks/c/delta_footprint.c, counted by scripts/footprint.py from
# valgrind's lackey trace): figures that do not move with the machine's
# load, for steps whose time is within a shared machine's noise.
delta-footprint: lib c-deps ## the cache lines and pages one delta query through C touches (valgrind lackey)
	mkdir -p build/bench
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Iinclude -o build/bench/delta_footprint \
	  Benchmarks/c/delta_footprint.c -Lbuild/lib -Wl,-rpath,$(CURDIR)/build/lib -lopenhealthkit -lm
	$(call footprint,delta_footprint,$(BENCH_DIR)-footprint)

# The same count for the raw-LMDB-by-sequence peer's delta query
# (Benchmarks/c/peer_delta_footprint.c, the peer's own file compiled in
# with a map valgrind can reserve): the yardstick of the C delta's target.
peer-delta-footprint: c-deps ## the cache lines and pages the raw-LMDB peer's delta query touches (needs PEERS)
	@test -f $(PEERS)/lmdb_seq_peer.c || { $(NO_PEERS); exit 1; }
	mkdir -p build/bench
	sed 's/#define MAP_SIZE (64ull << 30)/#define MAP_SIZE (2ull << 30)/' $(PEERS)/lmdb_seq_peer.c \
	  > build/bench/lmdb_seq_peer_small.c
	grep -q 'MAP_SIZE (2ull << 30)' build/bench/lmdb_seq_peer_small.c
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-function -Ibuild/bench -I$(PEERS) -o build/bench/peer_delta_footprint \
	  Benchmarks/c/peer_delta_footprint.c $(PEERS)/bench.c -llmdb -lpthread -lm
	$(call footprint,peer_delta_footprint,$(BENCH_DIR)-peer-footprint)

# Phases 2, 3 and 7 from Python (bindings/python/bench/bench.py) beside the
# sqlite3-module peer, in one sitting: make py-bench BENCH_N=1000000.
py-bench: python-lib py-deps ## phases 2, 3 and 7 from Python, beside the sqlite3 peer when PEERS has it
	@pkg-config --exists sqlite3 2>/dev/null || { apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libsqlite3-dev >/dev/null; }
	$(PYTHON) $(PYPKG)/bench/bench.py $(BENCH_N) $(BENCH_DIR)-py
	@test -f $(PEERS)/py_sqlite_peer.py || { $(NO_PEERS); exit 0; }; $(MAKE) --no-print-directory py-bench-peer

py-bench-peer:
	mkdir -p build/bench $(dir $(BENCH_DIR))
	$(CC) -O2 -g -std=gnu11 -o build/bench/sqlite_peer $(PEERS)/sqlite_peer.c $(PEERS)/bench.c -lsqlite3 -lpthread
	rm -rf $(BENCH_DIR)-sqlite && build/bench/sqlite_peer $(BENCH_N) $(BENCH_DIR)-sqlite --sync full --phases 1 >/dev/null
	$(PYTHON) $(PEERS)/py_sqlite_peer.py $(BENCH_N) $(BENCH_DIR)-sqlite
	rm -rf $(BENCH_DIR)-sqlite

# Import speed and memory on generated exports, beside healthkit-to-sqlite
# (PyPI) in the same sitting: make import-bench [IMPORT_DIR=/some/dir]. The
# generated exports (over 1 GB) are kept there between runs.
IMPORT_DIR ?= $(CURDIR)/build/import-bench
import-bench: deps ## ohk import on generated exports beside expat and healthkit-to-sqlite (IMPORT_DIR)
	$(SWIFT) build $(RELEASE_TRAITS) -c release --product ohk
	scripts/import_bench.sh .build/release/ohk $(IMPORT_DIR)

# Regenerates the type catalogue from scripts/healthkit-types.md,
# and OpenHealthKit's identifier constants from it.
catalogue: ## regenerate the type catalogue and identifier constants
	python3 scripts/gen_catalogue.py
	python3 scripts/gen_identifiers.py

# Fuzzing (Fuzz/ohk-fuzz, libFuzzer with AddressSanitizer): every target
# for FUZZ_TIME seconds from the seed corpus in Fuzz/corpus; one line of
# figures per target. A long run: make fuzz FUZZ_TIME=3600
# (docs/reliability.md). `make test` runs fuzz-smoke: FUZZ_RUNS inputs a
# target from the seed corpus with a fixed seed, the same every time.
FUZZ_TIME ?= 60
FUZZ_RUNS ?= 100000
FUZZ_TARGETS := predicate unit anchor record export upload
FUZZ_BIN  := .build-fuzz/release/ohk-fuzz
fuzz-build: deps ## build the libFuzzer targets (.build-fuzz)
	$(SWIFT) build $(RELEASE_TRAITS) -c release --scratch-path .build-fuzz --product ohk-fuzz -Xswiftc -sanitize=fuzzer,address \
	  -Xswiftc -DOHK_FUZZING -Xswiftc -enable-testing -Xswiftc -use-ld=lld

fuzz: fuzz-build ## every fuzz target for FUZZ_TIME seconds
	scripts/fuzz.sh $(FUZZ_BIN) time $(FUZZ_TIME) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build ## every fuzz target for FUZZ_RUNS inputs with a fixed seed
	scripts/fuzz.sh $(FUZZ_BIN) runs $(FUZZ_RUNS) $(FUZZ_TARGETS)

# The seed corpus (and any crash input added to it) through each target,
# built without the fuzzer: part of the ordinary test run.
fuzz-replay: deps ## the seed corpus through each target, without the fuzzer
	$(SWIFT) build $(TRAITS) --product ohk-fuzz
	for t in $(FUZZ_TARGETS); do .build/debug/ohk-fuzz $$t Fuzz/corpus/$$t || exit 1; done

# The Swift suites under ThreadSanitizer, then AddressSanitizer (each in
# its own build folder; about 15 minutes on two cores, not part of make test).
test-sanitize: deps ## the Swift suites under ThreadSanitizer and AddressSanitizer
	$(SWIFT) build $(TRAITS) --build-tests --scratch-path .build-tsan --sanitize=thread
	$(SWIFT) test $(TRAITS) --skip-build --scratch-path .build-tsan --sanitize=thread
	$(SWIFT) build $(TRAITS) --build-tests --scratch-path .build-asan --sanitize=address
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/lsan-suppressions.txt \
	  $(SWIFT) test $(TRAITS) --skip-build --scratch-path .build-asan --sanitize=address

# The crash and stress suite (Tests/ohk-reliability): SIGKILLs of writers
# and durable-subscription consumers at random moments, threads and
# processes writing beside live watchers, the double open, full disks
# (tmpfs, root), byte flips in copies of a store. One summary line.
# `make test` runs reliability-smoke.
RELIABILITY_ARGS ?= --writer-kills 600 --consumer-kills 400 --stress 30 --double-open 20 --disk-full 10 --byte-flips 1000
reliability: deps ## the crash and stress suite: SIGKILLs, stress, full disks, byte flips
	$(SWIFT) build $(RELEASE_TRAITS) -c release --product ohk-reliability
	.build/release/ohk-reliability $(RELIABILITY_ARGS)

# The smoke run uses the debug build `make test` has made already (a
# release build of the suite was three minutes of CI; the short run takes
# the same 35 s either way, with Swift's run-time checks on).
reliability-smoke: deps ## a short run of the crash and stress suite (debug build)
	$(SWIFT) build $(TRAITS) --product ohk-reliability
	.build/debug/ohk-reliability --writer-kills 60 --consumer-kills 40 --stress 5 --double-open 3 --disk-full 2 --byte-flips 20

# Every folder a build or a test makes: SwiftPM's .build and the scratch
# paths beside it (.build-lib for the C library, .build-fuzz, .build-tsan and
# .build-asan here, .build-server of scripts/serve_bench.sh), build/ (the
# library, benchmarks and the default BENCH_DIR and IMPORT_DIR, venvs,
# wheels, the C tests' build/ctest, fuzz runs), what pip and pytest leave
# in the Python package, the library python-lib placed inside it, and
# Python's caches. Package.resolved stays: it is not a build folder.
clean: ## remove every build folder, Python cache and the library copied into the Python package
	rm -rf .build .build-* build
	rm -rf $(PYPKG)/build $(PYPKG)/openhealthkit.egg-info $(PYPKG)/.pytest_cache $(PYPKG)/.mypy_cache \
	  $(PYPKG)/.benchmarks Tests/server/.pytest_cache
	rm -f $(PYPKG)/openhealthkit/libopenhealthkit.so
	find $(PYPKG) Tests examples scripts Benchmarks -name __pycache__ -type d -prune -exec rm -rf {} +
