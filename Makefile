# Thin wrapper over CMake. `make test` is what CI runs.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc)
FUZZ_SECONDS ?= 60
CC         ?= cc
PREFIX     ?= /usr/local

.PHONY: all deps build install test unit asan run demo bench fmt fmt-check fuzz clean manifests

all: build

deps:
	@./scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_C_COMPILER=$(CC) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# The binary, and the links that make it kubectl's `kueue` plugin and its completion.
install: build
	@install -d $(DESTDIR)$(PREFIX)/bin
	@install -m 755 $(BUILD)/cueue $(DESTDIR)$(PREFIX)/bin/cueue
	@ln -sf cueue $(DESTDIR)$(PREFIX)/bin/kubectl-kueue
	@ln -sf cueue $(DESTDIR)$(PREFIX)/bin/kubectl_complete-kueue

# The format check, every test, then every test again under ASan + UBSan,
# then the fuzzers briefly.
test: build fmt-check
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory asan
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=10

asan: deps
	@cmake -S . -B $(ASAN_BUILD) -DCUEUE_SANITIZE=ON -DCMAKE_C_COMPILER=clang \
		-DCMAKE_BUILD_TYPE=Debug >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j $(JOBS)

fuzz: deps
	@cmake -S . -B $(FUZZ_BUILD) -DCUEUE_FUZZ=ON -DCMAKE_C_COMPILER=clang >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzzers
	@./scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

run: build
	@./scripts/run.sh $(BUILD)/cueue

demo: build
	@./scripts/demo.sh $(BUILD)/cueue

# Kueue's scalability test in virtual time (baseline, large-scale), then the
# engine micro-benchmarks. Figures and how to read them: bench/README.md.
bench: build
	@$(BUILD)/cueue bench --config bench/configs/baseline.yaml --mode virtual
	@echo
	@$(BUILD)/cueue bench --config bench/configs/large-scale.yaml --mode virtual
	@echo
	@$(BUILD)/cueue bench --micro

# The install manifests, rendered from config/default (kubectl's built-in
# kustomize); committed, and tests/e2e-install checks they are current.
manifests:
	@mkdir -p dist
	@kubectl kustomize config/default >dist/manifests.yaml.tmp && mv dist/manifests.yaml.tmp dist/manifests.yaml

fmt:
	@clang-format -i $$(git ls-files '*.c' '*.h')

fmt-check: deps
	@clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
