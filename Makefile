# mbench - top-level GNU Makefile.  See README.md and docs/DESIGN.md.
#
#   make            build the library (static + shared) and the mbench CLI
#   make test       install what the tests need, then run every test
#   make test-slurm-faults  the slow Slurm fault tests (docs/SCALE.md)
#   make check      the tests again, built with ASan + UBSan, then a short
#                   run of every fuzz target
#   make fuzz       libFuzzer targets of tests/fuzz, FUZZ_TIME s each
#   make bench      benchmarks of mbench itself (bench/)
#   make bench-peers mbench beside the tools users would otherwise run
#                   (benchmark_app, onnxruntime, numpy, scikit-image,
#                   hyperfine; docs/PERFORMANCE.md)
#   make demo       benchmark and compare the bundled default model
#   make frameworks Python environments for framework variants and peers
#                   (scripts/frameworks.sh: build/frameworks/{torch,jax,...})
#   make install    PREFIX=/usr/local DESTDIR=
#   make wheel      a self-contained wheel of the Python package, with the
#                   CLI, libmbench, ONNX Runtime and the plugins: build/dist/
#
# Sources are discovered: every src/**/*.c goes into libmbench, every
# cli/*.c into the CLI, every tests/unit/test_*.c is one test program and
# every bench/*.c one benchmark program.  Commands register themselves with
# a `MBENCH_COMMAND(name, function, "summary")` line in cli/cmd_*.c.

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
BUILD   ?= build
SAN     ?=
V       ?= 0
Q       := $(if $(filter 1,$(V)),,@)

PKGS := jansson nettle libzip libpng libjpeg zlib sqlite3 libpq gsl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN := -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
        -Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral -Wno-format-truncation -Werror
OPT  ?= -O2 -g
CFLAGS_ALL := $(WARN) $(OPT) -D_GNU_SOURCE -fPIC -fvisibility=hidden -Iinclude -Isrc -I$(BUILD)/gen \
              $(PKG_CFLAGS) $(SAN) $(CFLAGS)
LDLIBS_ALL := $(PKG_LIBS) -ldl -lm -lpthread $(LDLIBS)

# EXCLUDE: sources to leave out of a private build (work in progress).
EXCLUDE   ?=
LIB_SRC   := $(filter-out $(EXCLUDE),$(shell find src -name '*.c' | sort))
CLI_SRC   := $(filter-out $(EXCLUDE),$(sort $(wildcard cli/*.c)))
TEST_SRC  := $(sort $(wildcard tests/unit/test_*.c))
TEST_HELP := $(filter-out $(TEST_SRC),$(wildcard tests/unit/*.c))
BENCH_SRC := $(filter-out bench/python_overhead.c,$(sort $(wildcard bench/*.c)))

LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ   := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
HELP_OBJ  := $(TEST_HELP:%.c=$(BUILD)/obj/%.o)
TEST_BIN  := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)

STATIC := $(BUILD)/libmbench.a
SONAME := libmbench.so.0
SHARED := $(BUILD)/$(SONAME)
BIN    := $(BUILD)/mbench
ORT    := build/ort/libonnxruntime.so.1

.PHONY: wheel bench-peers frameworks all deps test-deps test unit test-slurm-faults check fuzz fuzz-bin valgrind bench demo install clean ort format format-check lint docs-gen plugins
all: $(BIN) $(STATIC) $(SHARED) docs-gen plugins

# ---- optional backend plugins (C++, built only when their SDK is there) ----
# The LibTorch backend (plugins/torch) needs Debian's libtorch-dev, found by
# its CMake package directory; without it the core builds as before and
# `--backend torch` says how to get it.
TORCH_CMAKE ?= $(firstword $(wildcard /usr/lib/*/cmake/Torch/TorchConfig.cmake /usr/lib/cmake/Torch/TorchConfig.cmake))
CXX         ?= c++
# Not in sanitizer builds (make check): LibTorch is not instrumented.
TORCH_PLUGIN := $(if $(and $(TORCH_CMAKE),$(if $(SAN),,yes)),$(BUILD)/plugins/mbench_torch.so)
TORCH_CXXFLAGS := -std=c++17 -O2 -g -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
                  -Wno-unused-parameter -Iinclude -isystem /usr/include/torch/csrc/api/include $(SAN)
TORCH_LIBS := -Wl,--no-as-needed -ltorch -ltorch_cpu -lc10 -Wl,--as-needed
# The OpenVINO backend (plugins/openvino) is C over OpenVINO's C API, loaded
# with dlopen through the project's own declarations (ov_abi.h); it is built
# where `make frameworks` made the openvino venv (or OPENVINO_LIB names a
# libopenvino_c.so), and that library is its default.
OPENVINO_VENV ?= $(or $(MBENCH_FRAMEWORKS_DIR),build/frameworks)/openvino
OPENVINO_LIB  ?= $(abspath $(firstword $(wildcard $(OPENVINO_VENV)/lib/python3*/site-packages/openvino/libs/libopenvino_c.so*)))
OPENVINO_PLUGIN := $(if $(and $(strip $(OPENVINO_LIB)),$(if $(SAN),,yes)),$(BUILD)/plugins/mbench_openvino.so)
$(BUILD)/plugins/mbench_openvino.so: plugins/openvino/openvino_backend.c plugins/openvino/ir_consts.c \
  plugins/openvino/ov_abi.h plugins/openvino/ir_consts.h plugins/common/plugin_util.h include/mbench_backend.h include/mbench.h
	@mkdir -p $(@D)
	$(CC) $(WARN) $(OPT) -D_GNU_SOURCE -fPIC -fvisibility=hidden -Iinclude \
	  -DMB_OV_DEFAULT_LIB='"$(OPENVINO_LIB)"' -shared -o $@ $(filter %.c,$^) -ldl
# The python backend (plugins/python) embeds CPython: Debian's libpython3
# through pkg-config python3-embed (python3-dev).  Its venvs come from
# `make frameworks`; MB_FRAMEWORKS_DIR is where the plugin looks for them
# unless MBENCH_FRAMEWORKS_DIR says otherwise.  Not in sanitizer builds.
PY_EMBED_CFLAGS := $(shell pkg-config --cflags python3-embed 2>/dev/null)
PY_EMBED_LIBS   := $(shell pkg-config --libs python3-embed 2>/dev/null)
PY_EXE          := $(shell pkg-config --variable=exec_prefix python3-embed 2>/dev/null)/bin/python$(shell pkg-config --modversion python3-embed 2>/dev/null)
PYTHON_PLUGIN := $(if $(and $(PY_EMBED_LIBS),$(if $(SAN),,yes)),$(BUILD)/plugins/mbench_python.so)
FRAMEWORKS_DIR ?= $(abspath build/frameworks)
$(BUILD)/plugins/mbench_python.so: plugins/python/python_backend.c plugins/common/plugin_util.h include/mbench_backend.h include/mbench.h
	@mkdir -p $(@D)
	$(CC) $(WARN) -Wno-missing-field-initializers $(OPT) -fPIC -fvisibility=hidden -Iinclude \
	  $(subst -I,-isystem ,$(PY_EMBED_CFLAGS)) -DMB_FRAMEWORKS_DIR='"$(FRAMEWORKS_DIR)"' \
	  -DMB_PYTHON_EXE='"$(PY_EXE)"' -shared -o $@ $< $(PY_EMBED_LIBS) -ldl
plugins: $(TORCH_PLUGIN) $(PYTHON_PLUGIN) $(OPENVINO_PLUGIN)
# bench/python_overhead.c: a bare Python loop against mbench's (make bench)
PYTHON_BENCH := $(if $(PYTHON_PLUGIN),$(BUILD)/bench/python_overhead)
$(BUILD)/bench/python_overhead: bench/python_overhead.c $(STATIC) $(PYTHON_PLUGIN)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(subst -I,-isystem ,$(PY_EMBED_CFLAGS)) -o $@ $< $(STATIC) $(PY_EMBED_LIBS) $(LDLIBS_ALL)
# bench/torch_overhead.cpp: a bare LibTorch loop against mbench's (make bench)
TORCH_BENCH := $(if $(TORCH_PLUGIN),$(BUILD)/bench/torch_overhead)
$(BUILD)/bench/torch_overhead: bench/torch_overhead.cpp $(STATIC) $(TORCH_PLUGIN)
	@mkdir -p $(@D)
	$(CXX) $(TORCH_CXXFLAGS) -Isrc -I$(BUILD)/gen $(PKG_CFLAGS) -o $@ $< $(STATIC) $(TORCH_LIBS) $(LDLIBS_ALL)
$(BUILD)/plugins/mbench_torch.so: plugins/torch/torch_backend.cpp plugins/common/plugin_util.h include/mbench_backend.h include/mbench.h
	@mkdir -p $(@D)
	$(CXX) $(TORCH_CXXFLAGS) -shared -o $@ $< $(TORCH_LIBS)


# ---- generated from the commands' option tables (cli/opt.h) ------------------
# The hidden `mbench __dump-options json` prints every command's options;
# tools/optdoc.c (a build tool, not installed) turns that into the OPTIONS
# section of the man page (docs/mbench.1 with it inserted before
# ENVIRONMENT) and the bash and zsh completion, so none can drift.
MAN        := $(BUILD)/mbench.1
COMPLETION := $(BUILD)/completion/mbench.bash $(BUILD)/completion/_mbench
OPTDOC     := $(BUILD)/obj/tools/optdoc
OPTJSON    := $(BUILD)/gen/options.json
docs-gen: $(MAN) $(COMPLETION)

$(OPTDOC): tools/optdoc.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_ALL) -o $@ $< $(LDLIBS_ALL)

$(OPTJSON): $(BIN)
	@mkdir -p $(@D)
	$(Q)ASAN_OPTIONS=detect_leaks=0 $(BIN) __dump-options json > $@.tmp && mv -f $@.tmp $@

$(MAN): $(OPTDOC) $(OPTJSON) docs/mbench.1
	$(Q)sed '/^\.SH ENVIRONMENT/,$$d' docs/mbench.1 > $@.tmp
	$(Q)$(OPTDOC) man $(OPTJSON) >> $@.tmp
	$(Q)sed -n '/^\.SH ENVIRONMENT/,$$p' docs/mbench.1 >> $@.tmp
	$(Q)mv -f $@.tmp $@

$(BUILD)/completion/mbench.bash $(BUILD)/completion/_mbench: $(OPTDOC) $(OPTJSON)
	@mkdir -p $(@D)
	$(Q)$(OPTDOC) $(if $(filter %.bash,$@),bash,zsh) $(OPTJSON) > $@.tmp && mv -f $@.tmp $@

# ---- generated headers -----------------------------------------------------
GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
GIT_DIRTY  := $(shell test -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" && echo -dirty)
$(BUILD)/gen/build_info.h: FORCE
	@mkdir -p $(@D)
	@printf '#define MB_BUILD_COMMIT "%s%s"\n#define MB_BUILD_CC "%s"\n#define MB_ORT_DEFAULT_PATH "%s"\n#define MB_PLUGIN_DIR "%s"\n' \
	  '$(GIT_COMMIT)' '$(GIT_DIRTY)' "$$($(CC) --version | head -n1)" '$(abspath $(ORT))' '$(PREFIX)/lib/mbench/plugins' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@

$(BUILD)/gen/commands.inc: FORCE
	@mkdir -p $(@D)
	@perl -0777 -ne 'while (/^MBENCH_COMMAND\((.*?")\s*\)/msg) { ($$x = $$1) =~ s/\s+/ /g; print "MBENCH_COMMAND($$x)\n" }' $(CLI_SRC) | sort > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@

# Commands on the option-table parser (cli/opt.h) register their table with
# `MBENCH_OPTIONS(name, variable)`.
$(BUILD)/gen/options.inc: FORCE
	@mkdir -p $(@D)
	@perl -ne 'print "MBENCH_OPTIONS($$1)\n" if /^MBENCH_OPTIONS\(([^)]*)\)/' $(CLI_SRC) | sort > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv -f $@.tmp $@
FORCE:

# ---- objects ---------------------------------------------------------------
# The generated headers are order-only: they exist before any object is
# compiled, and -MMD's dependency files make only the objects that include
# one (version.c, sysinfo.c, ...) recompile when it changes - a new commit
# no longer rebuilds every object.
$(BUILD)/obj/%.o: %.c | $(BUILD)/gen/build_info.h $(BUILD)/gen/commands.inc $(BUILD)/gen/options.inc
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_ALL) $(OBJ_CFLAGS) -MMD -MP -c $< -o $@

# The metric kernels pass 32-byte vectors between static inline helpers
# (no ABI boundary); GCC would note the AVX calling convention at each.
$(BUILD)/obj/src/accuracy/mkernel.o: OBJ_CFLAGS := -Wno-psabi

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(HELP_OBJ:.o=.d)

$(STATIC): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(SHARED): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(SAN) -o $@ $^ $(LDLIBS_ALL)

$(BIN): $(CLI_OBJ) $(STATIC)
	$(CC) $(SAN) -o $@ $(CLI_OBJ) $(STATIC) $(LDLIBS_ALL)

$(BUILD)/tests/%: tests/unit/%.c $(HELP_OBJ) $(STATIC)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -Itests/unit -o $@ $< $(HELP_OBJ) $(STATIC) $(LDLIBS_ALL)

$(BUILD)/bench/%: bench/%.c $(STATIC)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(STATIC) $(LDLIBS_ALL)

# ---- set-up ------------------------------------------------------------------
deps:
	@scripts/deps.sh build

test-deps:
	@scripts/deps.sh test

# With MBENCH_ORT_LIB naming a library nothing is fetched (and deps.sh
# installs no npm): mbench and the tests use that one.
ort:
	@if [ -n "$$MBENCH_ORT_LIB" ]; then \
	  [ -f "$$MBENCH_ORT_LIB" ] || { echo "make ort: MBENCH_ORT_LIB=$$MBENCH_ORT_LIB is not a file; unset it to fetch ONNX Runtime into $(ORT)" >&2; exit 1; }; \
	else $(MAKE) -s --no-print-directory $(ORT); fi
$(ORT):
	scripts/fetch-ort.sh build/ort

# Python environments (one venv per framework: Debian's torch with numpy 1,
# PyPI's jax/flax and openvino with numpy 2); FRAMEWORKS=jax limits them.
FRAMEWORKS ?=
PAIRS ?= 8
frameworks:
	@scripts/frameworks.sh $(FRAMEWORKS)

# ---- the promised commands ---------------------------------------------------
# The python backend's tests run in the torch and jax venvs of `make
# frameworks` (PyPI for jax; offline once made).  When they cannot be made
# (no network), make test goes on and those tests skip, saying why.
TEST_FRAMEWORKS ?= torch jax
# make test and make check build on every CPU unless make was given -j.
JOBS ?= $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 2))
test: test-deps
	@$(MAKE) --no-print-directory $(JOBS) all tests-bin
	@$(MAKE) --no-print-directory ort
	@scripts/frameworks.sh $(TEST_FRAMEWORKS) || \
	  echo "make test: could not make the $(TEST_FRAMEWORKS) environments; the Python model tests will be skipped" >&2
	@MBENCH_BUILT=1 tests/run.sh $(BUILD)

tests-bin: $(TEST_BIN)

# The C unit tests alone (tests/unit/test_*.c, a few seconds): no plugins,
# no Python environments, no integration suites.
unit:
	@$(MAKE) --no-print-directory $(JOBS) $(BIN) tests-bin
	@MBENCH_BUILT=1 MBENCH_SUITES=unit tests/run.sh $(BUILD)

# The slow Slurm faults (a time limit, slurmd killed past SlurmdTimeout and
# Slurm's own requeue delay; about 5 minutes) on a one-node cluster of
# their own; make test runs the quick ones (tests/integration/slurm.sh).
test-slurm-faults: test-deps
	@$(MAKE) --no-print-directory $(JOBS) all
	@d=$$(mktemp -d); chmod 755 $$d; \
	 MBENCH=$(abspath $(BUILD))/mbench MBENCH_ROOT=$(CURDIR) MBENCH_TEST_TMP=$$d \
	   bash tests/faults/slurm_faults.sh; rc=$$?; rm -rf $$d; exit $$rc

check: test-deps
	@$(MAKE) --no-print-directory ort
	@$(MAKE) --no-print-directory $(JOBS) BUILD=build/asan OPT="-O1 -g -fno-omit-frame-pointer" \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" all tests-bin
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:handle_segv=0 \
	 LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
	 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 MBENCH_SANITIZED=1 MBENCH_BUILT=1 \
	 tests/run.sh build/asan
	@$(MAKE) --no-print-directory fuzz FUZZ_TIME=20

# libFuzzer targets (tests/fuzz/fuzz_*.c, docs/FUZZING.md): the library
# is rebuilt with clang into build/fuzz, each target then runs FUZZ_TIME
# seconds from its seed corpus; a crash, leak or UB fails the run.
FUZZ_TIME ?= 60
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/fuzz_*.c))
fuzz: test-deps
	@$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang \
	  OPT="-O1 -g -fno-omit-frame-pointer" CFLAGS=-Wno-unknown-warning-option \
	  SAN="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
	  fuzz-bin
	@tests/fuzz/run.sh build/fuzz $(FUZZ_TIME)

fuzz-bin: $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/%)

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(STATIC)
	$(CC) $(CFLAGS_ALL) -fsanitize=fuzzer -o $@ $< $(STATIC) $(LDLIBS_ALL)

# The core unit tests under valgrind (memcheck, definite and indirect
# leaks are errors).
VALGRIND_TESTS := test_stats test_repstats test_synthetic test_api test_npy test_pb \
                  test_dataset test_report test_accuracy test_onnx_inspect test_loadwarn test_image test_pairci \
                  test_site
valgrind: all tests-bin
	@command -v valgrind >/dev/null || { echo "valgrind: apt-get install valgrind" >&2; exit 2; }
	@fail=0; for t in $(VALGRIND_TESTS); do \
	  if valgrind -q --error-exitcode=9 --leak-check=full \
	       --errors-for-leak-kinds=definite,indirect $(BUILD)/tests/$$t >/dev/null 2>$(BUILD)/tests/$$t.vg; \
	  then echo "ok   valgrind $$t"; else echo "FAIL valgrind $$t (see $(BUILD)/tests/$$t.vg)"; fail=1; fi; \
	done; exit $$fail

bench: deps
	@$(MAKE) --no-print-directory all ort $(BENCH_BIN) $(TORCH_BENCH) $(PYTHON_BENCH)
	@bench/run.sh $(BUILD)

# mbench beside benchmark_app, onnxruntime's Python loop, numpy,
# scikit-image and hyperfine (bench/peers/run.sh; needs make frameworks).
bench-peers: deps
	@$(MAKE) --no-print-directory all ort $(BUILD)/bench/ssim_time
	@bench/peers/run.sh $(BUILD) $(PAIRS)

demo: deps
	@$(MAKE) --no-print-directory all ort
	@scripts/demo.sh $(BUILD)

format:
	clang-format -i $(FORMAT_FILES)

# clang-format --dry-run --Werror (the committed .clang-format) over every
# C/C++ file git tracks (tests/integration/format.sh runs it in make test);
# FORMAT_FILES=... checks a list instead.
FORMAT_FILES ?= $(shell git ls-files -- '*.c' '*.h' '*.cpp' 2>/dev/null | \
                  grep -E '^(src|cli|include|tests|bench|tools|plugins)/')
format-check:
	@command -v clang-format >/dev/null || { echo "format-check: apt-get install clang-format" >&2; exit 2; }
	@if [ -z "$(strip $(FORMAT_FILES))" ]; then echo "format-check: no C files (not a git checkout?)"; \
	 else clang-format --style=file --dry-run --Werror $(FORMAT_FILES) && \
	      echo "format-check: $(words $(FORMAT_FILES)) file(s) formatted as .clang-format says"; fi

# make install PREFIX=... [DESTDIR=...]: the binary in <prefix>/bin, the
# libraries in <prefix>/lib, ONNX Runtime in <prefix>/lib/mbench (where the
# binary and libmbench look first, from their own location: docs/INSTALL.md)
# and a pkg-config file whose --cflags is mbench's include directory only:
# a dependency whose .pc adds include directories (libpng, libpq) goes into
# Libs.private as its own -l flags (in Requires.private pkg-config would add its
# include directories to --cflags); the others into Requires.private.
#
# A program linked against the installed libmbench.so must start without
# LD_LIBRARY_PATH.  RPATH=auto (the default) puts -Wl,-rpath,<libdir> into
# mbench.pc's Libs when <libdir> is not a directory the dynamic loader
# searches by itself (scripts/loader-path.sh), and none for /usr/lib,
# /usr/local/lib and the like, as distributions want; RPATH=yes|no forces
# it.  Installed into an ld.so.conf directory (/usr/local/lib) without
# DESTDIR, the loader's cache is refreshed with $(LDCONFIG) (root only;
# otherwise it says to); staged with DESTDIR, the package's own trigger
# does that (docs/INSTALL.md).
LIBDIR := $(PREFIX)/lib
RPATH ?= auto
LDCONFIG ?= ldconfig
install: $(BIN) $(STATIC) $(SHARED) docs-gen
	@case "$(RPATH)" in auto|yes|no) ;; *) echo "install: RPATH=$(RPATH): use auto, yes or no" >&2; exit 2 ;; esac
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR) \
	  $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(LIBDIR)/pkgconfig \
	  $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/mbench
	install -m 0644 $(STATIC) $(DESTDIR)$(LIBDIR)/libmbench.a
	install -m 0755 $(SHARED) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libmbench.so
	install -m 0644 include/mbench.h include/mbench_backend.h include/mbench_events.h $(DESTDIR)$(PREFIX)/include/
	if [ -f $(ORT) ]; then install -d $(DESTDIR)$(LIBDIR)/mbench && \
	  install -m 0644 $(ORT) $(DESTDIR)$(LIBDIR)/mbench/libonnxruntime.so.1; \
	else echo "install: no $(ORT) ('make ort' fetches it): the installed mbench needs MBENCH_ORT_LIB or a system libonnxruntime.so.1" >&2; fi
	@req=; priv=; for p in $(PKGS); do \
	  if [ -z "$$(pkg-config --cflags-only-I $$p)" ]; then req="$$req $$p"; \
	  else priv="$$priv $$(pkg-config --libs $$p)"; fi; done; \
	rp=' -Wl,-rpath,$${libdir}'; case "$(RPATH)" in yes) ;; no) rp= ;; auto) \
	  if LDCONFIG=$(LDCONFIG) scripts/loader-path.sh $(LIBDIR) >/dev/null; then rp=; fi ;; esac; \
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@VERSION@|0.1.0|g' \
	  -e "s|@RPATH@|$$rp|" \
	  -e "s|@REQUIRES_PRIVATE@|$${req# }|" -e "s|@LIBS_PRIVATE@|$$(echo $$priv) -ldl -lm -lpthread|" \
	  mbench.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/mbench.pc
	@if [ -z "$(DESTDIR)" ] && [ "$$(LDCONFIG=$(LDCONFIG) scripts/loader-path.sh $(LIBDIR))" = ldconfig ]; then \
	  if [ "$$(id -u)" = 0 ]; then echo "$(LDCONFIG)"; $(LDCONFIG); \
	  else echo "install: run ldconfig as root, so that programs find $(LIBDIR)/$(SONAME)" >&2; fi; fi
	install -m 0644 $(MAN) $(DESTDIR)$(PREFIX)/share/man/man1/mbench.1
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 0644 $(BUILD)/completion/mbench.bash \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions/mbench
	install -m 0644 $(BUILD)/completion/_mbench \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_mbench
	for p in $(BUILD)/plugins/mbench_*.so; do [ -f "$$p" ] || continue; \
	  install -d $(DESTDIR)$(LIBDIR)/mbench/plugins && \
	  install -m 0755 "$$p" $(DESTDIR)$(LIBDIR)/mbench/plugins/ || exit 1; done
	# The python backend imports the package beside it (<libdir>/mbench/python).
	if [ -f $(BUILD)/plugins/mbench_python.so ]; then \
	  rm -rf $(DESTDIR)$(LIBDIR)/mbench/python/mbench && \
	  (cd python && find mbench -name '*.py' -o -name py.typed) | while read -r f; do \
	    install -D -m 0644 "python/$$f" "$(DESTDIR)$(LIBDIR)/mbench/python/$$f" || exit 1; done; fi

# make wheel: the Python package with the CLI, libmbench, ONNX Runtime and
# the built plugins bundled (python/setup.py), built offline by Debian's
# python3 (pip, setuptools, wheel: scripts/deps.sh wheel) from a copy of
# python/, so the source tree stays clean.  Installs with pip into a venv
# (python/README.md; PEP 668).
WHEEL_PY ?= /usr/bin/python3
wheel: all ort
	@scripts/deps.sh wheel
	rm -rf $(BUILD)/wheel-src && mkdir -p $(BUILD)/dist
	cp -r python $(BUILD)/wheel-src
	rm -rf $(BUILD)/wheel-src/build $(BUILD)/wheel-src/*.egg-info $(BUILD)/wheel-src/tests
	rm -f $(BUILD)/dist/mbench-0.1.0-*.whl
	MBENCH_BUILD_DIR=$(abspath $(BUILD)) MBENCH_ORT=$(abspath $(if $(MBENCH_ORT_LIB),$(MBENCH_ORT_LIB),$(ORT))) \
	  PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 $(WHEEL_PY) -m pip wheel -q \
	  --no-build-isolation --no-deps --no-index -w $(BUILD)/dist $(BUILD)/wheel-src
	rm -rf $(BUILD)/wheel-src
	@echo "wheel: $$(ls $(BUILD)/dist/mbench-0.1.0-*.whl)"

# make wheel-manylinux: that wheel with the shared libraries it needs inside
# (auditwheel, scripts/wheel-manylinux.sh; needs PyPI once), for machines
# without Debian's libraries: build/dist/manylinux/.
wheel-manylinux: wheel
	scripts/wheel-manylinux.sh $(BUILD)

clean:
	rm -rf $(BUILD)/obj $(BUILD)/tests $(BUILD)/bench $(BUILD)/gen $(BUILD)/asan $(BUILD)/plugins \
	  $(STATIC) $(SHARED) $(BIN) $(MAN) $(BUILD)/completion $(BUILD)/dist $(BUILD)/wheel-src
