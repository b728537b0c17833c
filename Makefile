# percpu-kernel build. `make` builds $(O)/kernel.elf and $(O)/kernel.iso;
# `make qemu`, `make test`, `make bench`, `make gdb`: see README.md.
#
# One build directory per configuration, $(O)/rt<RT>-ld<LOCKDEP>[-explore]
# [-bugs], shared by every target and script that builds that
# configuration (make kernel, qemu, test, grade, bench, torture, ...), so
# a target after another builds nothing new; $(O)/kernel.elf and
# $(O)/kernel.iso are links to the configuration `make` built last.

CPUS    ?= 4
# MACHINE=pc|q35: the QEMU board of `make qemu` and `make test`
# (scripts/qemu.sh).
MACHINE ?= pc
export MACHINE
RT      ?= 1
LOCKDEP ?= 1
ACCEL   ?= tcg
O       ?= build
KTEST   ?=
# Extra kernel command-line options for `make qemu`.
CMDLINE ?=
# DETERMINISTIC=1: one-threaded TCG and -icount (scripts/qemu.sh).
DETERMINISTIC ?= 0
export DETERMINISTIC
# FIRMWARE=uefi: boot on OVMF instead of SeaBIOS (scripts/qemu.sh), in
# `make qemu` and in `make test`'s matrix; the ISO boots on both.
FIRMWARE ?= bios
export FIRMWARE
# EXPLORE=1: the interleaving explorer's hooks (kernel/debug/explore.h);
# EXPLORE_BUGS=1: with the planted bugs it is measured on (never in
# `make test`'s kernels).
EXPLORE      ?= 0
EXPLORE_BUGS ?= 0
# TSAN=1 (LOCKDEP=1 builds only): the tests' loads and stores go through
# GCC's -fsanitize=thread hooks to the per-CPU checker
# (kernel/locking/lockdep_percpu_tsan.c); TSAN=0 builds without them.
TSAN         ?= 1
TSAN_ON      := $(and $(filter 1,$(LOCKDEP)),$(filter 1,$(TSAN)))

# An x86_64-elf- cross toolchain when there is one, else the host's.
TOOLPREFIX ?= $(shell command -v x86_64-elf-gcc >/dev/null 2>&1 && echo x86_64-elf-)
CC      := $(TOOLPREFIX)gcc
LD      := $(TOOLPREFIX)ld
NM      := $(TOOLPREFIX)nm
OBJDUMP := $(TOOLPREFIX)objdump
OBJCOPY := $(TOOLPREFIX)objcopy
NASM    := nasm

CONFIG_NAME := rt$(RT)-ld$(LOCKDEP)$(if $(filter 1,$(LOCKDEP)),$(if $(TSAN_ON),,-notsan))$(if $(filter 1,$(EXPLORE)),-explore)$(if $(filter 1,$(EXPLORE_BUGS)),-bugs)
B := $(O)/$(CONFIG_NAME)

# Sources: every .c and .asm under these folders and their subsystem
# folders (kernel/sched/, tests/locking/, ...); tests/host/ and tests/labs/
# hold host-side scripts and lab specs, no kernel code.
SRCDIRS := boot arch/x86_64 kernel lib tests
CSRCS   := $(sort $(shell find $(SRCDIRS) -name '*.c' -not -path 'tests/host/*'))
ASRCS   := $(sort $(shell find $(SRCDIRS) -name '*.asm'))
OBJS    := $(CSRCS:%.c=$(B)/%.o) $(ASRCS:%.asm=$(B)/%.o) $(B)/user/programs.o

CONFIG_DEFS := $(if $(filter 1,$(RT)),-DCONFIG_PREEMPT_RT) \
               $(if $(filter 1,$(LOCKDEP)),-DCONFIG_LOCKDEP) \
               $(if $(filter 1,$(EXPLORE)),-DCONFIG_EXPLORE) \
               $(if $(filter 1,$(EXPLORE_BUGS)),-DCONFIG_EXPLORE_BUGS) \
               $(if $(TSAN_ON),-DCONFIG_LOCKDEP_TSAN)

CFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-builtin-printf \
	-fno-pie -fno-pic -mcmodel=kernel -mno-red-zone \
	-mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 \
	-fno-stack-protector -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-mno-omit-leaf-frame-pointer -fno-strict-aliasing \
	-fno-asynchronous-unwind-tables \
	-Wall -Wextra -Werror -Wno-unused-parameter \
	-Ikernel -Iarch/x86_64 -Ilib $(CONFIG_DEFS) -MMD -MP
# Tests include the public headers by their bare names ("sched.h",
# "spinlock.h"; docs/architecture.md, "The public headers"); the core
# spells the folder ("sched/sched.h"), which scripts/build/includes.sh
# checks.
KERNEL_SUBDIRS := $(sort $(patsubst %/,%,$(dir $(wildcard kernel/*/*.h))))
TEST_INCLUDES  := -Itests $(addprefix -I,$(KERNEL_SUBDIRS))
# KCSAN's instrumentation without function entry/exit hooks; volatile
# accesses (READ_ONCE()/WRITE_ONCE()) get hooks of their own, which the
# assembler drops, and the others an inline address filter before the
# call: arch/x86_64/tsan_call.S, preprocessed into the build directory and
# given to the assembler before GCC's output.
TSAN_CALL   := $(B)/tsan_call.s
TSAN_CFLAGS := -fsanitize=thread --param=tsan-instrument-func-entry-exit=0 \
	--param=tsan-distinguish-volatile=1 -Wno-tsan -Wa,$(TSAN_CALL)
NASMFLAGS := -f elf64 -g -F dwarf -w+all -Werror
LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack -T linker.ld

# User programs: each user/*.c is one, linked with user/lib/ (and the
# kernel's lib/string.c and lib/vsprintf.c, built again for ring 3) into a
# static ELF64 file at a low user address (user/user.ld); the files are
# linked into the kernel image as blobs (scripts/build/genuser.sh). With
# x87 and SSE2 (the x86-64 baseline): each process has its own FPU
# registers, switched by the kernel (arch/x86_64/fpu.c).
USER_CFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-builtin -nostdlib \
	-fno-pie -fno-pic -static -fno-stack-protector \
	-fno-asynchronous-unwind-tables \
	-Wall -Wextra -Werror -Wno-unused-parameter -MMD -MP
USER_PROGS := $(patsubst user/%.c,$(B)/user/%.elf,$(wildcard user/*.c))
ULIB_OBJS  := $(B)/ulib/user/lib/crt0.o \
	$(patsubst %.c,$(B)/ulib/%.o,$(wildcard user/lib/*.c) lib/string.c lib/vsprintf.c)

# Quiet rules; `make V=1` shows the commands.
Q := $(if $(filter 1,$(V)),,@)

TOOLS_OK = $(shell bash scripts/deps.sh --check >/dev/null 2>&1 && echo yes)

.PHONY: all elf lab-elf kernel iso builddir qemu qemu-gdb gdb test test-big bench torture rtlat trace clean deps include-graph explore explore-eval
all: kernel iso
# `elf` builds the configuration's kernel and its checks; `kernel` also
# points $(O)/kernel.elf at it. The scripts build with `elf`, so that a
# `make test` does not move the link a user's `make gdb` follows.
elf: $(B)/includes.ok $(B)/boundary.ok $(B)/kernel.elf $(B)/percpu-ops.ok \
	$(B)/migrate-ops.ok $(B)/nofpu.ok $(B)/vocabulary.ok $(B)/paths.ok
# `lab-elf` is what a grade needs (scripts/grade): the kernel and the two
# instruction checks the labs teach (one %gs: instruction per this_cpu_*
# op, migrate_disable() a counter). The repository's own rules (include
# layers, the arch boundary, no FPU code, the vocabulary, the paths) are
# for the tree, not for a lab's behaviour: make test and make elf check
# them. They would cost a student 5 s of CPU per edit, 25 s on a busy host.
lab-elf: $(B)/kernel.elf $(B)/percpu-ops.ok $(B)/migrate-ops.ok
kernel: elf
	@ln -sfn $(CONFIG_NAME)/kernel.elf $(O)/kernel.elf
iso: $(B)/kernel.iso
	@ln -sfn $(CONFIG_NAME)/kernel.iso $(O)/kernel.iso
# The configuration's build directory, for the scripts that build one.
builddir:
	@echo $(B)

# Stamps: a file that holds what a target was made from (a list of
# files, the build switches, a command line) and is rewritten only when
# that changes. A target's own prerequisites cannot show every change: a
# list that lost a member makes nothing newer, so a link whose inputs
# are only the objects would keep a deleted test in kernel.elf. Linux's
# kbuild records each command line in a .cmd file for the same reason.
# $(call stamp,TEXT) is the recipe of a stamp holding TEXT.
stamp = @mkdir -p $(dir $@); echo '$(1)' | cmp -s - $@ || echo '$(1)' > $@
FORCE:

# Build-config stamp: a change of RT/LOCKDEP rebuilds everything.
$(B)/config: FORCE
	$(call stamp,$(CONFIG_DEFS) $(CC) $(TSAN_CFLAGS) $(TSAN_DIRS) -$(TSAN_EXCLUDE))
# The objects the link takes and the user programs the image embeds:
# adding, deleting or renaming a source relinks.
$(B)/objects: FORCE
	$(call stamp,$(OBJS))
$(B)/user/programs: FORCE
	$(call stamp,$(USER_PROGS))

$(B)/tests/%.o: CFLAGS += $(TEST_INCLUDES)
# What the compiler's hooks see (TSAN=1): the tests and the core, not the
# validator and the locks (kernel/locking/: the hooks call the checker,
# which must not call them), the test and benchmark harness
# (kernel/debug/) and the scheduler's trace (kernel/trace/: each CPU
# fills its own buffer with interrupts off, from every switch), the
# scheduler and the timers (kernel/sched/,
# kernel/time/: their per-CPU data is the run queues and timer bases,
# unchecked, and a hook per load and store would slow every switch and
# every tick for nothing), the allocators (kernel/mm/: their
# per-CPU caches are reached under local_lock_t, which the validator
# checks as a lock, and read unlocked on purpose for statistics and the
# atomic-context path), RCU (kernel/rcu/: its per-CPU data is handed
# between a CPU, its tick and the grace-period kthread, unchecked, and it
# runs at every switch and tick), the arch's entry code and boot.
TSAN_DIRS    ?= tests kernel
TSAN_EXCLUDE ?= kernel/locking kernel/debug kernel/trace kernel/sched \
	kernel/time kernel/mm kernel/rcu
TSAN_OBJS := $(filter-out $(TSAN_EXCLUDE:%=$(B)/%/%),$(filter $(TSAN_DIRS:%=$(B)/%/%),$(OBJS)))
$(if $(TSAN_ON),$(TSAN_OBJS)): CFLAGS += $(TSAN_CFLAGS)
# The hooks themselves: a settled access returns from a leaf with no
# frame, anything else jumps on (a sibling call) to the checker, whose
# frame then names the instrumented caller (lockdep_percpu_tsan.c).
$(B)/kernel/locking/lockdep_percpu_tsan.o: CFLAGS += -fomit-frame-pointer \
	-momit-leaf-frame-pointer -foptimize-sibling-calls
$(if $(TSAN_ON),$(TSAN_OBJS)): $(TSAN_CALL)
$(TSAN_CALL): arch/x86_64/tsan_call.S arch/x86_64/asm/page.h $(B)/config
	@mkdir -p $(dir $@)
	$(Q)$(CC) -E -P -x assembler-with-cpp -Iarch/x86_64 $< -o $@
$(B)/%.o: %.c $(B)/config
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(B)/%.o: %.asm $(B)/config
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NASM    $<")
	$(Q)$(NASM) $(NASMFLAGS) -MD $(@:.o=.d) -MP $< -o $@

$(B)/ulib/%.o: %.c $(B)/config
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  UCC     $<")
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@
$(B)/user/%.o: user/%.c $(B)/config
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  UCC     $<")
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@
$(B)/ulib/%.o: %.asm
	@mkdir -p $(dir $@)
	$(Q)$(NASM) $(NASMFLAGS) $< -o $@
$(B)/user/%.elf: $(B)/user/%.o $(ULIB_OBJS) user/user.ld
	@$(if $(Q),echo "  ULD     $@")
	$(Q)$(LD) -nostdlib -static -z max-page-size=0x1000 -z noexecstack \
		-T user/user.ld -o $@ $(ULIB_OBJS) $<
.SECONDARY: $(ULIB_OBJS) $(USER_PROGS:.elf=.o)
$(B)/user/programs.asm: $(USER_PROGS) $(B)/user/programs scripts/build/genuser.sh
	$(Q)bash scripts/build/genuser.sh $(USER_PROGS) > $@
$(B)/user/programs.o: $(B)/user/programs.asm
	$(Q)$(NASM) $(NASMFLAGS) $< -o $@

# The symbol table needs the final addresses, which need the symbol table:
# link once with an empty table, then again with the real one. The table's
# section comes last in linker.ld, so the second link moves nothing (checked).
$(B)/ksyms0.asm: scripts/build/gensyms.sh
	@mkdir -p $(B)
	$(Q)bash scripts/build/gensyms.sh $(NM) > $@
$(B)/ksyms0.o $(B)/ksyms.o: $(B)/%.o: $(B)/%.asm
	$(Q)$(NASM) $(NASMFLAGS) $< -o $@
$(B)/kernel.stage1.elf: $(OBJS) $(B)/objects $(B)/ksyms0.o linker.ld
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/ksyms0.o
$(B)/ksyms.asm: $(B)/kernel.stage1.elf scripts/build/gensyms.sh
	$(Q)bash scripts/build/gensyms.sh $(NM) $< > $@
$(B)/kernel.elf: $(B)/kernel.stage1.elf $(B)/ksyms.o
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS) $(B)/ksyms.o
	@$(NM) -n $< | grep -v ' ksyms_\| _end$$' > $(B)/syms.1
	@$(NM) -n $@ | grep -v ' ksyms_\| _end$$' > $(B)/syms.2
	@cmp -s $(B)/syms.1 $(B)/syms.2 || { echo "symbols moved between links"; rm -f $@; exit 1; }
	@if command -v grub-file >/dev/null; then \
		grub-file --is-x86-multiboot2 $@ || { echo "$@: no Multiboot2 header GRUB can boot (grub-file)"; rm -f $@; exit 1; }; \
	else echo "$@: grub-file not installed: Multiboot2 header not checked"; fi

# The layer rule (docs/architecture.md): what may include what.
HDRS := $(shell find $(SRCDIRS) -name '*.h')
$(B)/includes.ok: $(CSRCS) $(HDRS) scripts/build/includes.sh
	@mkdir -p $(B)
	$(Q)bash scripts/build/includes.sh check && touch $@

# The memory-model vocabulary (docs/memory-model.md): no raw __atomic
# builtin, and no volatile without its reason, outside the headers that
# define READ_ONCE(), the barriers and the atomics.
$(B)/vocabulary.ok: $(CSRCS) $(HDRS) scripts/build/check-vocabulary.sh
	@mkdir -p $(B)
	$(Q)bash scripts/build/check-vocabulary.sh && touch $@

# No reference to what is not there: every repository path a comment, a
# doc, a handout or the README names exists (scripts/build/check-paths.sh).
# A file removed or renamed changes no referring file, so the check also
# depends on the lists of the files git has and the disk has (a stamp).
PATH_REFS := $(CSRCS) $(ASRCS) $(HDRS) README.md Makefile linker.ld \
	$(shell find docs scripts tests/host tests/labs -type f)
REPO_FILES := $(shell git ls-files 2>/dev/null; find $(SRCDIRS) user docs scripts -type f)
$(B)/repo-files: FORCE
	$(call stamp,$(REPO_FILES))
$(B)/paths.ok: $(PATH_REFS) $(B)/repo-files
	@mkdir -p $(B)
	$(Q)bash scripts/build/check-paths.sh && touch $@

# The call boundary between the core and arch, on the objects: the core
# uses the arch's symbols through asm/*.h only, the arch the core's from a
# short list (scripts/build/boundary.sh).
CORE_OBJS := $(filter $(B)/kernel/%,$(OBJS))
ARCH_OBJS := $(filter $(B)/arch/% $(B)/boot/%,$(OBJS))
$(B)/boundary.ok: $(CORE_OBJS) $(ARCH_OBJS) $(B)/objects $(wildcard arch/x86_64/asm/*.h) scripts/build/boundary.sh
	$(Q)NM=$(NM) CC=$(CC) CPPFLAGS='$(CONFIG_DEFS)' bash scripts/build/boundary.sh \
		--core $(CORE_OBJS) --arch $(ARCH_OBJS) && touch $@

# The include graph file by file (docs/architecture.md).
include-graph:
	@mkdir -p $(B)
	bash scripts/build/includes.sh dot > $(B)/includes.dot
	@if command -v dot >/dev/null; then dot -Tsvg $(B)/includes.dot -o $(B)/includes.svg && echo "$(B)/includes.svg"; else echo "$(B)/includes.dot (install graphviz for an SVG)"; fi

# Build-time proof that every this_cpu_* op is one %gs: instruction. It is
# made on tests/percpu/percpu_ops.c compiled without the validator: with
# LOCKDEP=1 each op also tells the checker about itself (percpu.h).
$(B)/percpu_ops.nolockdep.o: tests/percpu/percpu_ops.c $(B)/config
	$(Q)$(CC) $(filter-out -DCONFIG_LOCKDEP,$(CFLAGS)) $(TEST_INCLUDES) -c $< -o $@
$(B)/percpu-ops.ok: $(B)/percpu_ops.nolockdep.o scripts/build/check-percpu-ops.sh
	$(Q)bash scripts/build/check-percpu-ops.sh $(OBJDUMP) $< && touch $@

# Each remade when a header it includes changes (its .d, below): the
# check is of the code the student's last edit left, migrate_enable() in
# kernel/sched/sched.h for one.
-include $(B)/percpu_ops.nolockdep.d $(B)/migrate_ops.nolockdep.d

# Build-time proof that migrate_disable()/migrate_enable() are, on their
# fast path, a counter update and one branch: no call, no locked
# instruction, the trace's hook a nop (scripts/build/check-migrate-ops.sh).
# Made without the validator, the compiler's hooks and the explorer's
# (EXPLORE=1 adds a hook to migrate_enable() on purpose).
$(B)/migrate_ops.nolockdep.o: tests/sched/migrate_ops.c $(B)/config
	$(Q)$(CC) $(filter-out -DCONFIG_LOCKDEP -DCONFIG_LOCKDEP_TSAN -DCONFIG_EXPLORE -DCONFIG_EXPLORE_BUGS,$(CFLAGS)) $(TEST_INCLUDES) -c $< -o $@
$(B)/migrate-ops.ok: $(B)/migrate_ops.nolockdep.o scripts/build/check-migrate-ops.sh
	$(Q)bash scripts/build/check-migrate-ops.sh $(OBJDUMP) $< && touch $@

# Build-time proof that the kernel leaves the FPU/SIMD registers to user
# processes: no such instruction outside arch/x86_64/fpregs.asm's save and
# restore (docs/usermode.md).
$(B)/nofpu.ok: $(B)/kernel.elf scripts/build/check-nofpu.sh
	$(Q)bash scripts/build/check-nofpu.sh $(OBJDUMP) $< && touch $@

# The command line the ISO carries: a change of KTEST or CMDLINE remakes it.
ISO_CMDLINE := $(strip $(if $(KTEST),ktest=$(KTEST)) $(CMDLINE))
$(B)/cmdline: FORCE
	$(call stamp,$(ISO_CMDLINE))

$(B)/kernel.iso: $(B)/kernel.elf $(B)/percpu-ops.ok $(B)/migrate-ops.ok $(B)/nofpu.ok scripts/build/mkiso.sh $(B)/cmdline
	@$(if $(Q),echo "  ISO     $@")
	$(Q)OBJCOPY=$(OBJCOPY) bash scripts/build/mkiso.sh $< "$(ISO_CMDLINE)" $@

deps:
	@bash scripts/deps.sh

# `make qemu` and `make test` install what is missing first.
ifneq ($(TOOLS_OK),yes)
qemu qemu-gdb test test-big bench torture rtlat trace gdb explore explore-eval: deps
$(OBJS) $(B)/ksyms0.asm: | deps
endif

# A boot that runs tests or benchmarks ends with the kernel's verdict:
# `make qemu KTEST=...` exits 0 when they passed (scripts/qemu.sh).
VERDICT_NEEDED := $(if $(filter ktest=% kbench=% torture=%,$(ISO_CMDLINE)),1,0)
qemu: all
	@QEMU_VERDICT=1 QEMU_VERDICT_NEEDED=$(VERDICT_NEEDED) bash scripts/qemu.sh $(B)/kernel.iso $(CPUS)

qemu-gdb: all
	@echo "QEMU is halted at the first instruction, gdbstub on :1234."
	@echo "In another terminal: make gdb   (or: gdb $(B)/kernel.elf -ex 'target remote :1234')"
	bash scripts/qemu.sh $(B)/kernel.iso $(CPUS) -S -gdb tcp::1234

gdb:
	gdb -iex "add-auto-load-safe-path $(CURDIR)" -x scripts/kernel.gdb $(B)/kernel.elf

# The test matrix: per RT setting, every CPU count on MACHINE (pc); on a
# full run the extra boards and CPU counts of EXTRA_CONFIGS (default
# "q35:3": a q35 machine with 3 CPUs); each panic test alone; on a full
# run one boot on OVMF (UEFI_CPUS); then the host tests
# (scripts/run-tests.sh).
TEST_CPUS ?= 1 2 4 8
TEST_RT   ?= 0 1
# LOAD=N: N busy loops on the host for the whole of `make test`, `make
# grade` or `make labs-check` (scripts/load.sh): no test may depend on
# how fast the host is.
LOAD ?= 0
WITH_LOAD := $(if $(filter-out 0,$(LOAD)),bash scripts/load.sh $(LOAD))
test:
	$(WITH_LOAD) env CPUS_LIST="$(TEST_CPUS)" RT_LIST="$(TEST_RT)" LOCKDEP=$(LOCKDEP) \
	KTEST='$(or $(KTEST),*)' O=$(O) bash scripts/run-tests.sh

# The per-CPU/SMP scaling, lock and allocator benchmarks: tables and JSON
# lines, and the allocator's plot (gnuplot) in $(O)/bench/alloc.png.
bench:
	@bash scripts/deps.sh --bench || echo "bench: no gnuplot, no plot"
	CPUS=$(CPUS) O=$(O) KBENCH='$(or $(KBENCH),*)' bash scripts/run-bench.sh

# Locktorture-style runs of every lock type and the per-CPU counter,
# with a lock that does not exclude and a racy counter as controls:
# TORTURE=GLOB, TORTURE_SECS, SEED (scripts/torture.sh).
torture:
	CPUS=$(CPUS) RT=$(RT) LOCKDEP=$(LOCKDEP) O=$(O) bash scripts/torture.sh

# The realtime latency experiment (docs/realtime.md): cyclictest-format
# output, a table of ratios and a plot in $(O)/bench/. RTLAT_ICOUNT= (empty)
# measures in wall-clock time instead of the deterministic mode.
RTLAT_CPUS   ?= 2
RTLAT_ICOUNT ?= 2
rtlat:
	@bash scripts/deps.sh --bench || echo "rtlat: no gnuplot, no plot"
	CPUS=$(RTLAT_CPUS) ICOUNT=$(RTLAT_ICOUNT) O=$(O) bash scripts/rtlat.sh

# The scheduler trace of the tests KTEST selects: $(O)/trace/trace.json
# (open it in ui.perfetto.dev) and trace.txt (ftrace-style), checked.
trace:
	KTEST='$(or $(KTEST),*)' CPUS=$(CPUS) RT=$(RT) LOCKDEP=$(LOCKDEP) \
	O=$(O) bash scripts/trace.sh

# The interleaving explorer (scripts/explore.sh, docs/debugging.md):
# KTEST=suite.name, SEEDS=K to search and shrink, KSEED=N [EXPLORE_ONLY=..]
# [RUNS=n] to replay; MODE=pct [DEPTH=d] [PCT_STEPS=k] for PCT. Its own
# kernels: CPUS=1 LOCKDEP=0 unless given.
EXPLORE_VARS = $(foreach v,CPUS RT LOCKDEP,$(if $(filter command line,$(origin $(v))),$(v)=$($(v))))
explore:
	$(EXPLORE_VARS) KTEST='$(KTEST)' O=$(O) bash scripts/explore.sh
# The planted bugs: explorer against plain stress, replays, the checker.
explore-eval:
	O=$(O) bash scripts/explore-eval.sh

# Boots on many CPUs: the 32 and 64 CPU configurations, and the odd
# counts 3, 5 and 6 on both boards (the machine's suites, EXTRA_KTEST).
TEST_BIG_EXTRA ?= q35:3 pc:5 q35:6
test-big:
	$(WITH_LOAD) env CPUS_LIST="32 64" RT_LIST="$(TEST_RT)" LOCKDEP=$(LOCKDEP) \
	EXTRA_CONFIGS="$(TEST_BIG_EXTRA)" \
	KTEST='$(or $(KTEST),*)' O=$(O) bash scripts/run-tests.sh

# Course labs (docs/labs/README.md): the starter tree of lab LAB in O, the
# grade of lab LAB on this tree (HIDDEN=<solution tree> adds the hidden
# checks; FORMAT=gradescope also writes Gradescope's results.json, to
# RESULTS or $(O)/results.json), the upload for Gradescope's autograder,
# and the check that every lab's solution scores 100 and its starter
# builds and scores between 0 and 100.
.PHONY: lab-starter grade autograder labs-check
lab-starter:
	@test -n "$(LAB)" || { echo "usage: make lab-starter LAB=n O=dir"; exit 2; }
	python3 scripts/lab-starter $(LAB) $(O)
grade:
	@test -n "$(LAB)" || { echo "usage: make grade LAB=n [HIDDEN=tree] [FORMAT=gradescope [RESULTS=file]]"; exit 2; }
	$(WITH_LOAD) env O=$(O) python3 scripts/grade $(LAB) $(if $(HIDDEN),--hidden $(HIDDEN)) \
		$(if $(FORMAT),--format $(FORMAT)) $(if $(RESULTS),--results $(RESULTS))
autograder:
	@test -n "$(LAB)" || { echo "usage: make autograder LAB=n [ZIP=file]"; exit 2; }
	bash scripts/autograder/package $(LAB) $(or $(ZIP),$(O)/autograder-lab$(LAB).zip)
labs-check:
	$(WITH_LOAD) env O=$(O) bash tests/host/labs.sh

clean:
	rm -rf $(O)

-include $(OBJS:.o=.d) $(ULIB_OBJS:.o=.d) $(USER_PROGS:.elf=.d)
