# Convenience front end for CMake.  The two commands a newcomer types:
#   make demo    build, then build a model, run it with tracing, inspect it
#   make check   formatting, then build and run every test (also under
#                ASan+UBSan), then the Cortex-M cross build
# Also: make update-goldens (rewrite the CLI golden files from the current
# outputs; review the diff), make format-check (clang-format clean?).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
MAKEFLAGS += --no-print-directory

.PHONY: all deps build demo check test test-asan cross bench clean update-goldens format-check

all: build

deps:
	./scripts/install-deps.sh

build: deps
	cmake --preset default >/dev/null
	cmake --build build -j $(JOBS)

demo: build
	./build/src/cli/etkit demo --output-dir etkit-demo

test: build
	ctest --test-dir build --output-on-failure -j $(JOBS)

test-asan: deps
	cmake --preset asan >/dev/null
	cmake --build build-asan -j $(JOBS)
	ctest --test-dir build-asan --output-on-failure -j $(JOBS)

cross: deps
	./scripts/cross-build.sh

check: format-check test test-asan cross

update-goldens: build
	cmake -DBUILD=build -P tests/cmake/update_goldens.cmake

format-check: deps
	cmake -DSOURCE_DIR=$(CURDIR) -DCLANG_FORMAT=clang-format -P cmake/format_check.cmake

bench: build
	./scripts/run-bench.sh build

clean:
	rm -rf build build-asan build-ubsan build-fuzz build-cortex-m build-release
