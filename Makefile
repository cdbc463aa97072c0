# UNO build, test and demo entry points. Every target installs what it is missing
# and skips what is already done (stamps in .build/), so a second run is quick.
#
#   make test    build everything, then unit + integration tests (the CI gate)
#   make test-under-load  the demo and migration tests again, one core kept busy (CI runs it too)
#   make demo    the end-to-end demo on the emulated platform
#   make bench   full-size benchmarks, results in bench/results/*.json
#   make fuzz    longer fuzzing runs of the NF packet parsers
#   make clean   remove build outputs and the virtualenv

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
VPY := $(VENV)/bin/python
STAMPS := .build
PYTEST_ARGS ?=
# pytest workers of `make test`: the integration tests mostly wait (for traffic, for the switches), so two
# of them share the two cores; tests that must run alone or share a resource take turns (tests/README.md).
TEST_WORKERS ?= 2

.PHONY: all deps venv oneswitch nfs lint test test-python test-java test-c test-under-load demo bench fuzz clean check-root

all: deps venv oneswitch nfs

check-root:
	@if [ "$$(id -u)" -ne 0 ]; then echo "make: UNO's platform needs root (network namespaces, cgroups, OVS)" >&2; exit 1; fi

$(STAMPS):
	@mkdir -p $@

# Debian packages (re-checked when the list changes).
deps: $(STAMPS)/debs
$(STAMPS)/debs: deploy/debian-packages.txt deploy/install-debs.sh deploy/sysctl-uno.conf | $(STAMPS)
	deploy/install-debs.sh deploy/debian-packages.txt
	deploy/install-sysctl.sh deploy/sysctl-uno.conf
	@touch $@

# Python virtualenv with the packages of setup.py, pinned by constraints.txt.
venv: $(VENV)/.stamp
$(VENV)/.stamp: setup.py constraints.txt $(STAMPS)/debs
	@[ -x $(VPY) ] || $(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade "pip==26.3" "setuptools==84.2.1" "wheel==0.48.0"
	$(VPY) -m pip install -q -c constraints.txt -e '.[test]'
	@touch $@

# OneSwitch (Java, Maven): one runnable jar.
ONESWITCH_JAR := oneswitch/target/oneswitch.jar
ONESWITCH_SRC := $(shell find oneswitch/src -type f 2>/dev/null) oneswitch/pom.xml
oneswitch: $(if $(wildcard oneswitch/pom.xml),$(ONESWITCH_JAR))
$(ONESWITCH_JAR): $(ONESWITCH_SRC) $(STAMPS)/debs
	cd oneswitch && mvn -q -B -DskipTests package
	@touch $@

# Network functions (C).
nfs: $(STAMPS)/debs
	@if [ -f nfs/Makefile ]; then $(MAKE) -s -C nfs; fi

test: check-root all lint test-java test-c test-python

lint: venv
	$(VENV)/bin/ruff check .

# Line coverage is reported (.coveragerc), not enforced.
test-python: venv | $(STAMPS)
	@$(VPY) -m pytest -n $(TEST_WORKERS) --cov --cov-report=term $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "make: pytest collected no tests" >&2; exit 1; fi; exit $$rc

# A real server is busy: what must hold under load (no migration loss) is run again with one core
# kept busy by an unrelated process in its own cgroup (uno_platform.cpu_hog.CpuHog).
UNDER_LOAD_TESTS := tests/test_demo.py tests/agent/test_migration.py
test-under-load: check-root all
	$(VPY) -m pytest --cpu-hog $(PYTEST_ARGS) $(UNDER_LOAD_TESTS)

# Line coverage (JaCoCo) is reported per package, not enforced.
JACOCO_CSV := oneswitch/target/site/jacoco/jacoco.csv
test-java: oneswitch
	@if [ -f oneswitch/pom.xml ]; then cd oneswitch && mvn -q -B test; fi
	@if [ -f $(JACOCO_CSV) ]; then awk -F, 'NR > 1 { m[$$2] += $$8; c[$$2] += $$9; tm += $$8; tc += $$9 } \
		END { for (p in m) printf "  %-32s %5.1f%% of %d lines\n", p, 100 * c[p] / (m[p] + c[p]), m[p] + c[p]; \
		printf "Java line coverage: %.1f%% of %d lines\n", 100 * tc / (tm + tc), tm + tc }' $(JACOCO_CSV) | sort; fi

test-c: nfs
	@if [ -f nfs/Makefile ]; then $(MAKE) -s -C nfs check; fi

demo: check-root all
	$(VPY) -m uno_harness.demo

bench: check-root all
	$(VPY) -m bench.run

fuzz: nfs
	@if [ -f nfs/Makefile ]; then $(MAKE) -s -C nfs fuzz; fi

clean:
	rm -rf $(STAMPS) $(VENV) oneswitch/target nfs/build .pytest_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
