# Makefile - build, test, install and demonstrate profreport.
#
#   make            the libraries (static and shared), pkg-config files, CMake package, examples
#   make check      the reporter's flow check (scripts/flowcheck.sh), every test: warnings as
#                   errors, then again under SAN=address,undefined and SAN=thread, and a short
#                   run of each fuzz target (installs missing Debian packages when run as root)
#   make fuzz       run each libFuzzer target (tests/fuzz) for FUZZ_TIME seconds (default 60);
#                   make fuzz-runfile, fuzz-seed, fuzz-part, fuzz-workbook: one of them
#   make demo       build, run the examples several times into demo/runs, write one
#                   report per example, demo/NAME.xlsx and its charts
#   make bench      speed figures against peers (bench/README.md)
#   make install    PREFIX=/usr/local DESTDIR=  ;  make uninstall  (ldconfig only as root,
#                   without DESTDIR, for a library folder the loader searches)
#   make format-check / make format
#
# Variables: SAN=address,undefined|thread (sanitizer build in build/san-*), WERROR=-Werror,
# CFLAGS (default -O2 -g), PREFIX, DESTDIR, FUZZ_TIME, FUZZ_SMOKE_TIME (default 10),
# CHECK_JOBS (make check's parallel builds; default: the CPUs), DEMO_DIR (default demo),
# DEMO_RUNS (default 5).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR ?= $(LIBDIR)/cmake/profreport

VERSION := $(shell sed -n 's/^\#define PROF_VERSION_STRING "\(.*\)"/\1/p' include/profreport.h)
# The soname's number: the major part of the header's version, and while the major is 0 the
# minor too (libprofreport.so.0.2), since a 0.x minor may change the binary interface: a program
# built against another minor then fails to load instead of misreading a changed struct.
VERSION_PARTS := $(subst ., ,$(VERSION))
SOMAJOR := $(if $(filter 0,$(word 1,$(VERSION_PARTS))),0.$(word 2,$(VERSION_PARTS)),$(word 1,$(VERSION_PARTS)))

CC ?= cc
CXX ?= c++
CFLAGS ?= -O2 -g
CXXFLAGS ?= -O2 -g
WERROR ?=
SAN ?=
PYTHON ?= /usr/bin/python3

comma := ,
ifeq ($(SAN),)
BUILD ?= build
SANFLAGS :=
else
BUILD ?= build/san-$(subst $(comma),-,$(SAN))
SANFLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif

WARN := -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wshadow -Wwrite-strings
# Every compile writes the headers it read into a .d file beside its output (included below),
# under both spellings of the output's name: a make run with BUILD given as an absolute path
# (the functional tests', bench's) and one with the relative default then both see them, and
# neither links an object compiled against an older header. Recursive (=), as $@ is the
# output's name only in its recipe; so are the flags that include it.
DEPFLAGS = -MMD -MP -MT $(abspath $@) -MT $(patsubst $(CURDIR)/%,%,$(abspath $@))
# include/ holds the two installed headers; the collector's own headers stay in collector/,
# which only the collector (and the unit tests of its modules) see: format/ and common/ are
# compiled without it.
SHARED_CFLAGS = -std=gnu11 $(DEPFLAGS) $(WARN) $(WERROR) $(CFLAGS) $(SANFLAGS) -fPIC \
	-fvisibility=hidden -pthread -Iinclude -Iformat -Icommon
LIB_CFLAGS = $(SHARED_CFLAGS) -Icollector
APP_CFLAGS = -std=gnu11 $(DEPFLAGS) $(WARN) $(WERROR) $(CFLAGS) $(SANFLAGS) -pthread -Iinclude
APP_CXXFLAGS = -std=c++17 $(DEPFLAGS) -Wall -Wextra -Wshadow $(WERROR) $(CXXFLAGS) $(SANFLAGS) -pthread \
	-Iinclude
# Programs link the shared library found in the build tree.
APP_LDFLAGS := $(SANFLAGS) -L$(BUILD) -Wl,-rpath,$(abspath $(BUILD)) -pthread
APP_LIBS := -lprofreport

# The run-file and part-file formats (format/) and the small shared layer (common/: strings,
# files, hashing) are compiled into libprofreport: the collector uses them, and the reporter,
# which links libprofreport.a, uses the same code.
# libprofreport-auto is libprofreport plus the -finstrument-functions hooks and the symbolizer
# (elfutils' libdw; libiberty's demangler, linked in and kept private).
# common/dwdecl.c reads DWARF (libdw): only libprofreport-auto and the reporter link it.
DW_SRC := common/dwdecl.c
AUTO_SRC := collector/auto.c collector/functions.c collector/symbols.c collector/patch.c $(DW_SRC)
LIB_SRC := $(filter-out $(AUTO_SRC),$(wildcard collector/*.c)) $(wildcard format/*.c) \
	$(filter-out $(DW_SRC),$(wildcard common/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
AUTO_OBJ := $(AUTO_SRC:%.c=$(BUILD)/%.o)
STATIC_LIB := $(BUILD)/libprofreport.a
SHARED_LIB := $(BUILD)/libprofreport.so.$(VERSION)
SHARED_LINKS := $(BUILD)/libprofreport.so.$(SOMAJOR) $(BUILD)/libprofreport.so
AUTO_STATIC := $(BUILD)/libprofreport-auto.a
AUTO_SHARED := $(BUILD)/libprofreport-auto.so.$(VERSION)
AUTO_LINKS := $(BUILD)/libprofreport-auto.so.$(SOMAJOR) $(BUILD)/libprofreport-auto.so
AUTO_DEPLIBS := -ldw -liberty
# Instrumented test programs: every function timed, linked with libprofreport-auto.
AUTO_PROG_SRC := $(wildcard tests/programs/auto/*.c tests/programs/auto/*.cpp)
# Each tests/programs/auto/NAME_lib.c is a library, libauto_NAME.so, beside the programs.
AUTO_PROG_LIBS := $(patsubst tests/programs/auto/%_lib.c,$(BUILD)/tests/programs/auto/libauto_%.so,\
	$(filter %_lib.c,$(AUTO_PROG_SRC)))
AUTO_PROG_BINS := $(patsubst tests/programs/auto/%,$(BUILD)/tests/programs/auto/%,\
	$(basename $(filter-out %_lib.c,$(AUTO_PROG_SRC)))) $(AUTO_PROG_LIBS)

# The command's stages, each a folder (docs/ARCHITECTURE.md): base/ (shared helpers), read/,
# model/, out/, and at the root main.c and the pieces that wire stages together.
REPORTER_DIRS := reporter reporter/base reporter/read reporter/model reporter/out
REPORTER_SRC := $(wildcard $(REPORTER_DIRS:%=%/*.c)) $(DW_SRC)
REPORTER_OBJ := $(REPORTER_SRC:%.c=$(BUILD)/%.o)
REPORTER_LIB := $(BUILD)/libreporter.a
REPORTER := $(BUILD)/profreport
REPORTER_CFLAGS = -std=gnu11 $(DEPFLAGS) $(WARN) $(WERROR) $(CFLAGS) $(SANFLAGS) -pthread -Ireporter \
	-Iinclude -Iformat -Icommon -DPROF_TEMPLATES_DIR='"$(DATADIR)/profreport/templates"'
REPORTER_LIBS := $(REPORTER_LIB) $(STATIC_LIB) -lxlsxwriter -lcsv -ldw -lm -pthread

EXAMPLES_C := $(wildcard examples/*.c)
EXAMPLES_CXX := $(wildcard examples/*.cpp)
EXAMPLE_BINS := $(EXAMPLES_C:examples/%.c=$(BUILD)/examples/%) \
	$(EXAMPLES_CXX:examples/%.cpp=$(BUILD)/examples/%)

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
PROGRAM_SRC := $(wildcard tests/programs/*.c)
PROGRAM_CXX := $(wildcard tests/programs/*.cpp)
PROGRAM_BINS := $(PROGRAM_SRC:tests/programs/%.c=$(BUILD)/tests/programs/%) \
	$(PROGRAM_CXX:tests/programs/%.cpp=$(BUILD)/tests/programs/%) \
	$(BUILD)/tests/programs/static_basic
# Programs that know nothing of profreport, for the preload library (no sanitizer either).
PLAIN_SRC := $(wildcard tests/plain/*.c)
PLAIN_BINS := $(PLAIN_SRC:tests/plain/%.c=$(BUILD)/tests/plain/%)

.PHONY: all lib reporter examples check test unit functional demo bench install uninstall clean \
	format format-check deps deps-build fuzz fuzz-smoke test-bins flowcheck FORCE

# pkg-config files (shared and static, of each library) and the CMake package (cmake/).
PC_FILES := $(patsubst %.in,$(BUILD)/%,$(wildcard *.pc.in))
CMAKE_FILES := $(BUILD)/cmake/profreportConfig.cmake $(BUILD)/cmake/profreportConfigVersion.cmake
MAN_PAGES := $(BUILD)/man/profreport.1 $(BUILD)/man/profreport.3

all: lib reporter examples $(PC_FILES) $(CMAKE_FILES) $(MAN_PAGES)

PRELOAD := $(BUILD)/libprofreport-malloc.so

lib: $(STATIC_LIB) $(SHARED_LIB) $(SHARED_LINKS) $(AUTO_STATIC) $(AUTO_SHARED) $(AUTO_LINKS) \
	$(PRELOAD)

$(BUILD)/collector/%.o: collector/%.c
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

$(BUILD)/format/%.o: format/%.c
	@mkdir -p $(@D)
	$(CC) $(SHARED_CFLAGS) -c $< -o $@

$(BUILD)/common/%.o: common/%.c
	@mkdir -p $(@D)
	$(CC) $(SHARED_CFLAGS) -c $< -o $@

$(STATIC_LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(SHARED_LIB): $(LIB_OBJ)
	$(CC) -shared $(SANFLAGS) -pthread -Wl,-soname,libprofreport.so.$(SOMAJOR) -o $@ $^

$(SHARED_LINKS): $(SHARED_LIB)
	ln -sf $(notdir $(SHARED_LIB)) $@


$(AUTO_STATIC): $(LIB_OBJ) $(AUTO_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(AUTO_SHARED): $(LIB_OBJ) $(AUTO_OBJ) collector/auto.map
	$(CC) -shared $(SANFLAGS) -pthread -Wl,-soname,libprofreport-auto.so.$(SOMAJOR) -o $@ \
	    $(LIB_OBJ) $(AUTO_OBJ) -Wl,--exclude-libs,ALL -Wl,-z,start-stop-visibility=hidden \
	    -Wl,--version-script,collector/auto.map $(AUTO_DEPLIBS)

$(AUTO_LINKS): $(AUTO_SHARED)
	ln -sf $(notdir $(AUTO_SHARED)) $@


# The LD_PRELOAD library: finds libprofreport.so beside itself ($$ORIGIN), built or installed.
# No sanitizer: a sanitizer replaces malloc itself, so the two cannot be used together.
# It names sites with libprofreport-auto's symbolizer (symbols.c, compiled in with the program's
# path it needs, program.c, and dwdecl.c: libdw, libiberty).
$(PRELOAD): preload/malloc.c preload/exec.c collector/symbols.c collector/program.c $(DW_SRC) \
		$(SHARED_LINKS)
	$(CC) -std=gnu11 $(DEPFLAGS) $(WARN) $(WERROR) $(CFLAGS) -fPIC -fvisibility=hidden -pthread \
	    -Iinclude -Icollector -Icommon -Iformat -shared -o $@ preload/malloc.c preload/exec.c \
	    collector/symbols.c collector/program.c $(DW_SRC) -L$(BUILD) -lprofreport \
	    -Wl,-rpath,'$$ORIGIN' -Wl,--exclude-libs,ALL $(AUTO_DEPLIBS)

# The install paths baked into the build (the .pc files, the reporter's templates folder) are
# recorded in a stamp file, rewritten only when they change, so that `make install PREFIX=/opt/x`
# after a plain `make` rebuilds what depends on them (as git does with GIT-PREFIX).
CONFIG_STAMP := $(BUILD)/CONFIG-PATHS
CONFIG_PATHS := PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) INCLUDEDIR=$(INCLUDEDIR) DATADIR=$(DATADIR) \
	CMAKEDIR=$(CMAKEDIR)

$(CONFIG_STAMP): FORCE
	@mkdir -p $(@D)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(CONFIG_PATHS)' ]; then \
	    echo '$(CONFIG_PATHS)' > $@; echo "configured: $(CONFIG_PATHS)"; fi

FORCE:

$(BUILD)/%.pc: %.pc.in include/profreport.h $(CONFIG_STAMP)
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

# The man pages as installed: their title line names the header's version.
$(BUILD)/man/%: man/% include/profreport.h
	@mkdir -p $(@D)
	sed -e '1,/^\.TH/s/^\(\.TH [^"]*"profreport \)[^"]*"/\1$(VERSION)"/' $< > $@

# The CMake package finds the libraries and the header relative to its own folder (relocatable),
# and serves only projects of the pointer size it was built for.
$(BUILD)/cmake/%.cmake: cmake/%.cmake.in include/profreport.h $(CONFIG_STAMP)
	@mkdir -p $(@D)
	sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@SOMAJOR@|$(SOMAJOR)|g' \
	    -e 's|@VERSION_MAJOR@|$(word 1,$(VERSION_PARTS))|g' -e 's|@VERSION_MINOR@|$(word 2,$(VERSION_PARTS))|g' \
	    -e "s|@SIZEOF_VOID_P@|$$(echo __SIZEOF_POINTER__ | $(CC) -E -P - | tail -n 1)|g" \
	    -e "s|@LIBDIR_FROM_CMAKEDIR@|$$(realpath -m --relative-to=$(CMAKEDIR) $(LIBDIR))|g" \
	    -e "s|@INCLUDEDIR_FROM_CMAKEDIR@|$$(realpath -m --relative-to=$(CMAKEDIR) $(INCLUDEDIR))|g" \
	    $< > $@

# ---- the profreport command ----

reporter: $(REPORTER)

$(BUILD)/reporter/%.o: reporter/%.c
	@mkdir -p $(@D)
	$(CC) $(REPORTER_CFLAGS) -c $< -o $@

# charts.c and gnuplot.c hold the installed templates folder.
$(BUILD)/reporter/out/charts.o $(BUILD)/reporter/out/gnuplot.o: $(CONFIG_STAMP)

# Everything but main.o, so unit tests can link the modules they test.
$(REPORTER_LIB): $(filter-out $(BUILD)/reporter/main.o,$(REPORTER_OBJ))
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

$(REPORTER): $(BUILD)/reporter/main.o $(REPORTER_LIB) $(STATIC_LIB)
	$(CC) $(SANFLAGS) -o $@ $(BUILD)/reporter/main.o $(REPORTER_LIBS)

examples: $(EXAMPLE_BINS)

$(BUILD)/examples/%: examples/%.c $(SHARED_LINKS)
	@mkdir -p $(@D)
	$(CC) $(APP_CFLAGS) $< -o $@ $(APP_LDFLAGS) $(APP_LIBS)

$(BUILD)/examples/%: examples/%.cpp $(SHARED_LINKS)
	@mkdir -p $(@D)
	$(CXX) $(APP_CXXFLAGS) $< -o $@ $(APP_LDFLAGS) $(APP_LIBS)

# ---- tests ----

# Unit tests of the collector's modules include its private headers too.
UNIT_CFLAGS = $(REPORTER_CFLAGS) -Icollector

$(BUILD)/tests/unit/%: tests/unit/%.c $(STATIC_LIB) $(REPORTER_LIB)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $< -o $@ $(REPORTER_LIBS) -lcmocka

# functions.c, symbols.c and patch.c live in libprofreport-auto only.
$(BUILD)/tests/unit/test_functions $(BUILD)/tests/unit/test_symbols $(BUILD)/tests/unit/test_patch: \
		$(BUILD)/tests/unit/%: \
		tests/unit/%.c $(AUTO_STATIC)
	@mkdir -p $(@D)
	$(CC) $(UNIT_CFLAGS) $< -o $@ $(AUTO_STATIC) $(AUTO_DEPLIBS) -pthread -lcmocka

$(BUILD)/tests/programs/%: tests/programs/%.c $(SHARED_LINKS)
	@mkdir -p $(@D)
	$(CC) $(APP_CFLAGS) $< -o $@ $(APP_LDFLAGS) $(APP_LIBS)

$(BUILD)/tests/programs/%: tests/programs/%.cpp $(SHARED_LINKS)
	@mkdir -p $(@D)
	$(CXX) $(APP_CXXFLAGS) $< -o $@ $(APP_LDFLAGS) $(APP_LIBS)

# Instrumented programs (tests/programs/auto): -finstrument-functions, libprofreport-auto.
AUTO_APP_FLAGS := -finstrument-functions -fno-omit-frame-pointer

$(BUILD)/tests/programs/auto/libauto_%.so: tests/programs/auto/%_lib.c
	@mkdir -p $(@D)
	$(CC) $(APP_CFLAGS) $(AUTO_APP_FLAGS) -fPIC -shared $< -o $@

$(BUILD)/tests/programs/auto/%: tests/programs/auto/%.c $(AUTO_LINKS) \
		$(BUILD)/tests/programs/auto/libauto_shared.so
	@mkdir -p $(@D)
	$(CC) $(APP_CFLAGS) $(AUTO_APP_FLAGS) $< -o $@ $(APP_LDFLAGS) \
	    -L$(BUILD)/tests/programs/auto -Wl,-rpath,$(abspath $(BUILD))/tests/programs/auto \
	    -lauto_shared -lprofreport-auto

$(BUILD)/tests/programs/auto/%: tests/programs/auto/%.cpp $(AUTO_LINKS)
	@mkdir -p $(@D)
	$(CXX) $(APP_CXXFLAGS) $(AUTO_APP_FLAGS) $< -o $@ $(APP_LDFLAGS) -lprofreport-auto

$(BUILD)/tests/plain/%: tests/plain/%.c
	@mkdir -p $(@D)
	$(CC) -std=gnu11 $(WARN) $(WERROR) $(CFLAGS) -pthread $< -o $@

# The basic example linked statically, to cover both link modes.

# recover writes a killed run's run file with the library's internal run-file writer (format/),
# which only the static library lets a program call.
$(BUILD)/tests/programs/recover: tests/programs/recover.c $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(APP_CFLAGS) -Iformat -Icommon $< -o $@ $(SANFLAGS) $(STATIC_LIB) -pthread

$(BUILD)/tests/programs/static_basic: examples/basic.c $(STATIC_LIB)
	@mkdir -p $(@D)
	$(CC) $(APP_CFLAGS) $< -o $@ $(SANFLAGS) $(STATIC_LIB) -pthread

unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "unit: $$t"; $$t; done

functional: all $(PROGRAM_BINS) $(AUTO_PROG_BINS) $(PLAIN_BINS)
	PROF_BUILD=$(abspath $(BUILD)) PROF_SAN=$(SAN) $(PYTHON) -m pytest -q -p no:cacheprovider \
	    tests/functional

test: all unit functional

# Everything test runs, built (make check builds it on every CPU first, then runs the tests
# one at a time: some of them measure time and want the machine to themselves).
test-bins: all $(UNIT_BINS) $(PROGRAM_BINS) $(AUTO_PROG_BINS) $(PLAIN_BINS)

CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

check: deps flowcheck
	$(MAKE) -j$(CHECK_JOBS) WERROR=-Werror test-bins
	$(MAKE) WERROR=-Werror test
	$(MAKE) -j$(CHECK_JOBS) WERROR=-Werror SAN=address,undefined test-bins
	$(MAKE) WERROR=-Werror SAN=address,undefined test
	$(MAKE) -j$(CHECK_JOBS) WERROR=-Werror SAN=thread test-bins
	$(MAKE) WERROR=-Werror SAN=thread test
	$(MAKE) -j$(CHECK_JOBS) WERROR=-Werror $(FUZZ_BINS)
	$(MAKE) WERROR=-Werror fuzz-smoke
	$(MAKE) format-check
	@echo "make check: all tests passed"

deps:
	@sh scripts/deps.sh check

deps-build:
	@sh scripts/deps.sh build

# The reporter's stages include only what comes before them (scripts/flowcheck.sh).
flowcheck:
	@sh scripts/flowcheck.sh

# ---- fuzzing (README.md, "Fuzzing") ----

# libFuzzer targets built with clang in build/fuzz: the collector's and reporter's sources
# compiled again with coverage, ASan and UBSan, objects of their own.
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_SMOKE_TIME ?= 10
FUZZ_TARGETS := runfile seed part workbook
FUZZ_DIR := build/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=gnu11 $(DEPFLAGS) $(WARN) $(WERROR) -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	-pthread -Iinclude -Icollector -Iformat -Icommon -Ireporter -DPROF_TEMPLATES_DIR='"$(DATADIR)/profreport/templates"'
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_DIR)/%.o)
FUZZ_REPORTER_OBJ := $(filter-out $(FUZZ_DIR)/reporter/main.o,$(REPORTER_SRC:%.c=$(FUZZ_DIR)/%.o))
FUZZ_OBJ := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/tests/fuzz/fuzz_%.o) $(FUZZ_DIR)/tests/fuzz/fuzz.o
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
# The workbook target checks every cell libxlsxwriter is given.
FUZZ_LDFLAGS_workbook := -Wl,--wrap=worksheet_write_number -Wl,--wrap=worksheet_write_string
# One run of target $*, new inputs in $(FUZZ_DIR)/$(1)/$* (the committed corpus is only read),
# with its dictionary; a finding (crash, leak, timeout, broken check) fails make and leaves
# the input in build/fuzz/artifacts.
FUZZ_RUN = mkdir -p $(FUZZ_DIR)/$(1)/$* $(FUZZ_DIR)/artifacts && \
	$(FUZZ_DIR)/fuzz_$* -dict=tests/fuzz/$*.dict -timeout=25 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/artifacts/$*- $(FUZZ_DIR)/$(1)/$* tests/fuzz/corpus/$*

$(FUZZ_LIB_OBJ) $(FUZZ_REPORTER_OBJ): $(FUZZ_DIR)/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_OBJ): $(FUZZ_DIR)/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/libprofreport.a: $(FUZZ_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_DIR)/libreporter.a: $(FUZZ_REPORTER_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_BINS): $(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/tests/fuzz/fuzz_%.o $(FUZZ_DIR)/tests/fuzz/fuzz.o \
		$(FUZZ_DIR)/libreporter.a $(FUZZ_DIR)/libprofreport.a
	$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(FUZZ_LDFLAGS_$*) -lxlsxwriter -lcsv -ldw -lm \
	    -pthread

fuzz: $(FUZZ_TARGETS:%=fuzz-%)

# New inputs accumulate in build/fuzz/corpus-work from run to run.
$(FUZZ_TARGETS:%=fuzz-%): fuzz-%: $(FUZZ_DIR)/fuzz_%
	$(call FUZZ_RUN,corpus-work) -max_total_time=$(FUZZ_TIME)

# make check's share: every committed input, then FUZZ_SMOKE_TIME seconds per target, from an
# empty work folder and a fixed seed each time (the log is shown when a target finds something).
$(FUZZ_TARGETS:%=fuzz-smoke-%): fuzz-smoke-%: $(FUZZ_DIR)/fuzz_%
	@rm -rf $(FUZZ_DIR)/smoke/$*
	@echo "fuzz-smoke: $* ($(FUZZ_SMOKE_TIME) s)"
	@$(call FUZZ_RUN,smoke) -seed=1 -max_total_time=$(FUZZ_SMOKE_TIME) \
	    > $(FUZZ_DIR)/smoke-$*.log 2>&1 || { tail -n 60 $(FUZZ_DIR)/smoke-$*.log; exit 1; }
	@grep -E '^stat::number_of_executed_units' $(FUZZ_DIR)/smoke-$*.log

fuzz-smoke: $(FUZZ_TARGETS:%=fuzz-smoke-%)

# ---- demo ----

DEMO_RUNS ?= 5
DEMO_DIR ?= demo
DEMO_PROGRAMS := $(notdir $(EXAMPLE_BINS))

# One report per program (demo/NAME.xlsx, charts in demo/NAME-charts/) from its own runs
# folder, demo/runs/NAME: a report is of one program (profreport(1), SEVERAL PROGRAMS).
demo: deps-build all
	rm -rf $(DEMO_DIR)
	@set -e; for i in $$(seq 1 $(DEMO_RUNS)); do for p in $(DEMO_PROGRAMS); do \
	    PROFILER_DIR=$(DEMO_DIR)/runs/$$p $(BUILD)/examples/$$p > /dev/null; done; done
	@set -e; for p in $(DEMO_PROGRAMS); do \
	    echo "demo: $$(ls $(DEMO_DIR)/runs/$$p/*.csv | wc -l) run files in $(DEMO_DIR)/runs/$$p/"; \
	    $(REPORTER) $(DEMO_DIR)/runs/$$p -o $(DEMO_DIR)/$$p.xlsx --title "profreport demo: $$p"; done
	@echo "demo: open $(DEMO_PROGRAMS:%=$(DEMO_DIR)/%.xlsx); chart images are in" \
	    "$(DEMO_DIR)/NAME-charts/"

# ---- bench ----

bench: lib
	@sh scripts/deps.sh bench
	$(MAKE) -C bench BUILD=$(abspath $(BUILD))

# ---- install ----

# The loader's configuration: install runs ldconfig only when LIBDIR is a folder it lists.
LD_SO_CONF ?= /etc/ld.so.conf /etc/ld.so.conf.d/*.conf

install: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(CMAKEDIR) \
	    $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(DATADIR)/profreport/templates
	install -m 755 $(REPORTER) $(DESTDIR)$(BINDIR)/
	install -m 644 templates/*.gp $(DESTDIR)$(DATADIR)/profreport/templates/
	install -m 644 $(BUILD)/man/profreport.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(SHARED_LIB)) $(DESTDIR)$(LIBDIR)/libprofreport.so.$(SOMAJOR)
	ln -sf $(notdir $(SHARED_LIB)) $(DESTDIR)$(LIBDIR)/libprofreport.so
	install -m 755 $(PRELOAD) $(DESTDIR)$(LIBDIR)/
	install -m 644 include/profreport.h include/profreport_new.hpp $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(PC_FILES) $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 644 $(CMAKE_FILES) $(DESTDIR)$(CMAKEDIR)/
	install -m 644 $(AUTO_STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(AUTO_SHARED) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(AUTO_SHARED)) $(DESTDIR)$(LIBDIR)/libprofreport-auto.so.$(SOMAJOR)
	ln -sf $(notdir $(AUTO_SHARED)) $(DESTDIR)$(LIBDIR)/libprofreport-auto.so
	install -m 644 $(BUILD)/man/profreport.3 $(DESTDIR)$(MANDIR)/man3/
	@# The loader's cache is the system's: renewed only for a folder it searches (LD_SO_CONF),
	@# by root, and never for a staged tree.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v ldconfig >/dev/null && \
	    printf '%s\n' /lib /usr/lib /lib64 /usr/lib64 $$(grep -hs '^/' $(LD_SO_CONF)) | \
	    grep -qxF '$(abspath $(LIBDIR))'; then echo ldconfig; ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libprofreport.a $(DESTDIR)$(LIBDIR)/libprofreport.so* \
	    $(DESTDIR)$(LIBDIR)/libprofreport-auto.a $(DESTDIR)$(LIBDIR)/libprofreport-auto.so* \
	    $(PC_FILES:$(BUILD)/%=$(DESTDIR)$(PKGCONFIGDIR)/%) \
	    $(DESTDIR)$(LIBDIR)/libprofreport-malloc.so \
	    $(DESTDIR)$(INCLUDEDIR)/profreport.h $(DESTDIR)$(INCLUDEDIR)/profreport_new.hpp \
	    $(DESTDIR)$(MANDIR)/man3/profreport.3 $(DESTDIR)$(MANDIR)/man1/profreport.1 \
	    $(DESTDIR)$(BINDIR)/profreport
	rm -rf $(DESTDIR)$(DATADIR)/profreport $(DESTDIR)$(CMAKEDIR)

# The headers each output was built from (DEPFLAGS); none exist before the first build, which
# builds everything anyway.
-include $(shell find $(BUILD) $(FUZZ_DIR) -name '*.d' 2>/dev/null)

clean:
	rm -rf build demo
	$(MAKE) -C bench clean

# ---- formatting ----

FORMAT_FILES := $(wildcard collector/*.[ch] include/*.h include/*.hpp format/*.[ch] common/*.[ch] preload/*.c $(REPORTER_DIRS:%=%/*.[ch]) \
	examples/*.c examples/*.cpp tests/unit/*.c tests/programs/*.c tests/programs/*.cpp \
	tests/programs/auto/*.c tests/programs/auto/*.cpp tests/plain/*.c tests/integration/*.c bench/*.c \
	tests/fuzz/*.[ch])

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	@clang-format --dry-run --Werror $(FORMAT_FILES) && echo "format-check: ok"
