# Thin wrapper over CMake. `make test` is what CI runs.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
JOBS       ?= $(shell nproc)
FUZZ_SECONDS ?= 60
CC         ?= cc
PREFIX     ?= /usr/local

.PHONY: all deps build install test unit release asan run demo bench fmt fmt-check fuzz clean manifests

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

# The format check, the optimised binary the Dockerfile builds, every
# test, then every test again under ASan + UBSan, then the fuzzers briefly.
test: build fmt-check release
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	@$(MAKE) --no-print-directory asan
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=10

# The binary as the Dockerfile builds it: gcc -O2 warns of what -O0 does
# not see, and -Werror makes that a failed image.
RELEASE_BUILD ?= build-release
release: deps
	@cmake -S . -B $(RELEASE_BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(RELEASE_BUILD) -j $(JOBS) --target cueue

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

# Every target of the engine and system benchmarks, ours beside Kueue's
# figures and the limit, in one table: the engine micro-benchmarks, each
# config in virtual time (the baseline also with Kueue's one-second requeue
# batch, as the server has it), the baseline, large-scale and #14477-shaped
# configs in real time (the last takes 3 minutes: its jobs run 20-60 s;
# large-scale stops after 5), the first minute of the deep backlog in real
# time, 50,000 pending Workloads (memory, restart). 27 minutes on a 2-core
# machine at load 30; figures and how to read them: bench/README.md. A
# run that does not finish still writes its report (the table shows what
# it reached).
BENCH_OUT = $(BUILD)/bench
BENCH_CONFIGS = baseline large-scale deep-backlog gpu-cohort
bench: build
	@mkdir -p $(BENCH_OUT)
	@$(BUILD)/cueue bench --micro
	@$(BUILD)/cueue bench --micro --preemption > $(BENCH_OUT)/preemption.txt
	@for c in $(BENCH_CONFIGS); do \
	  $(BUILD)/cueue bench --config bench/configs/$$c.yaml -o json > $(BENCH_OUT)/$$c.virtual.json \
	    || echo "make bench: $$c (virtual) ended with status $$?"; done
	@$(BUILD)/cueue bench --config bench/configs/baseline.yaml --requeue-batch-ms 1000 -o json \
	  > $(BENCH_OUT)/baseline.virtual-batch.json \
	  || echo "make bench: baseline (virtual, requeue batch) ended with status $$?"
	@for c in baseline:600 large-scale:300 gpu-cohort:600; do \
	  $(BUILD)/cueue bench --config bench/configs/$${c%:*}.yaml --mode realtime --timeout $${c#*:} \
	    -o json > $(BENCH_OUT)/$${c%:*}.realtime.json \
	    || echo "make bench: $${c%:*} (real time) ended with status $$?"; done
	@$(BUILD)/cueue bench --config bench/configs/deep-backlog.yaml --mode realtime --timeout 60 \
	  -o json > $(BENCH_OUT)/deep-backlog.realtime.json 2>/dev/null || true
	@/usr/bin/python3 bench/pending.py $(BUILD)/cueue 50000 > $(BENCH_OUT)/pending.json
	@echo
	@/usr/bin/python3 bench/table.py $(BENCH_OUT)

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
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(RELEASE_BUILD)
