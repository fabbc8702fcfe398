# Convenience front end for CMake.  The two commands a newcomer types:
#   make demo    build, then build a model, run it with tracing, inspect it
#   make check   formatting, then build and run every test (also under
#                ASan+UBSan), the warning-free builds CI needs (gcc -O3 and
#                clang, -Werror), then the Cortex-M cross build and the
#                C++ adapter's device builds (Cortex-M, aarch64)
# After each test run a summary says how many tests ran and why any was
# skipped; under CI=true a skipped test fails the run.
# Also: make update-goldens (rewrite the CLI golden files from the current
# outputs; review the diff), make format-check (clang-format clean?).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
MAKEFLAGS += --no-print-directory

.PHONY: all deps build demo check test test-asan build-release build-clang cross cross-adapter bench clean update-goldens format-check fuzz-smoke

all: build

deps:
	./scripts/install-deps.sh

build: deps
	cmake --preset default >/dev/null
	cmake --build build -j $(JOBS)

demo: build
	./build/src/cli/etkit demo --output-dir etkit-demo

# ctest, then the summary of its JUnit file (scripts/test-summary.py), even
# when a test failed.
CTEST = ctest --output-on-failure --no-tests=error -j $(JOBS) --output-junit ctest-junit.xml
SUMMARY = python3 scripts/test-summary.py

test: build
	@rc=0; $(CTEST) --test-dir build || rc=$$?; \
	  $(SUMMARY) build/ctest-junit.xml || rc=1; exit $$rc

test-asan: deps
	cmake --preset asan >/dev/null
	cmake --build build-asan -j $(JOBS)
	@rc=0; $(CTEST) --test-dir build-asan || rc=$$?; \
	  $(SUMMARY) build-asan/ctest-junit.xml || rc=1; exit $$rc

# Builds only: a warning of gcc at -O3 or of clang fails here, not in a
# user's `cmake --preset release`.
build-release: deps
	cmake --preset ci-release >/dev/null
	cmake --build build-ci-release -j $(JOBS)

build-clang: deps
	cmake --preset ci-clang >/dev/null
	cmake --build build-ci-clang -j $(JOBS)

cross: deps
	./scripts/cross-build.sh

# The C++ ExecuTorch adapter in device builds (Cortex-M, aarch64-linux-gnu)
cross-adapter: deps
	./scripts/cross-build-adapter.sh

# Each libFuzzer target mutates its corpus for FUZZ_SECONDS (clang; the
# corpora are also replayed by ctest under every compiler).
FUZZ_SECONDS ?= 6
fuzz-smoke: deps
	cmake --preset fuzz >/dev/null
	cmake --build build-fuzz -j $(JOBS) --target fuzz_targets
	./scripts/fuzz-smoke.sh build-fuzz $(FUZZ_SECONDS)

check: format-check test test-asan build-release build-clang cross cross-adapter fuzz-smoke

update-goldens: build
	cmake -DBUILD=build -P tests/cmake/update_goldens.cmake

format-check: deps
	cmake -DSOURCE_DIR=$(CURDIR) -DCLANG_FORMAT=clang-format -P cmake/format_check.cmake

bench: build
	./scripts/run-bench.sh build

clean:
	rm -rf build build-asan build-ubsan build-fuzz build-cortex-m build-release \
	  build-ci-release build-ci-clang build-cortex-m-adapter build-aarch64-adapter
