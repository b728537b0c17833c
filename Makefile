# percpu-kernel build. `make` builds $(O)/kernel.elf and $(O)/kernel.iso;
# `make qemu`, `make test`, `make bench`, `make gdb`: see README.md.

CPUS    ?= 4
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
# EXPLORE=1: the interleaving explorer's hooks (kernel/debug/explore.h);
# EXPLORE_BUGS=1: with the planted bugs it is measured on (never in
# `make test`'s kernels).
EXPLORE      ?= 0
EXPLORE_BUGS ?= 0

# An x86_64-elf- cross toolchain when there is one, else the host's.
TOOLPREFIX ?= $(shell command -v x86_64-elf-gcc >/dev/null 2>&1 && echo x86_64-elf-)
CC      := $(TOOLPREFIX)gcc
LD      := $(TOOLPREFIX)ld
NM      := $(TOOLPREFIX)nm
OBJDUMP := $(TOOLPREFIX)objdump
NASM    := nasm

# Sources: every .c and .asm under these folders and their subsystem
# folders (kernel/sched/, tests/locking/, ...); tests/host/ and tests/labs/
# hold host-side scripts and lab specs, no kernel code.
SRCDIRS := boot arch/x86_64 kernel lib tests
CSRCS   := $(sort $(shell find $(SRCDIRS) -name '*.c' -not -path 'tests/host/*'))
ASRCS   := $(sort $(shell find $(SRCDIRS) -name '*.asm'))
OBJS    := $(CSRCS:%.c=$(O)/%.o) $(ASRCS:%.asm=$(O)/%.o) $(O)/user/programs.o

CONFIG_DEFS := $(if $(filter 1,$(RT)),-DCONFIG_PREEMPT_RT) \
               $(if $(filter 1,$(LOCKDEP)),-DCONFIG_LOCKDEP) \
               $(if $(filter 1,$(EXPLORE)),-DCONFIG_EXPLORE) \
               $(if $(filter 1,$(EXPLORE_BUGS)),-DCONFIG_EXPLORE_BUGS)

CFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-builtin-printf \
	-fno-pie -fno-pic -mcmodel=kernel -mno-red-zone \
	-mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 \
	-fno-stack-protector -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-mno-omit-leaf-frame-pointer -fno-strict-aliasing \
	-fno-asynchronous-unwind-tables \
	-Wall -Wextra -Werror -Wno-unused-parameter \
	-Ikernel -Iarch/x86_64 -Ilib $(CONFIG_DEFS) -MMD -MP
# Tests include the public headers by their bare names ("sched.h",
# "spinlock.h"), as DESIGN.md promises; the core spells the folder
# ("sched/sched.h"), which scripts/build/includes.sh checks.
KERNEL_SUBDIRS := $(sort $(patsubst %/,%,$(dir $(wildcard kernel/*/*.h))))
TEST_INCLUDES  := -Itests $(addprefix -I,$(KERNEL_SUBDIRS))
NASMFLAGS := -f elf64 -g -F dwarf -w+all -Werror
LDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack -T linker.ld

# User programs: each user/*.c is one, linked with user/lib/ (and the
# kernel's lib/string.c and lib/vsprintf.c, built again for ring 3) into a
# static ELF64 file at a low user address (user/user.ld); the files are
# linked into the kernel image as blobs (scripts/build/genuser.sh). No SSE: the
# kernel does not save FPU state across a switch.
USER_CFLAGS := -std=gnu11 -O2 -g -ffreestanding -fno-builtin -nostdlib \
	-fno-pie -fno-pic -static -mgeneral-regs-only -mno-mmx -mno-sse \
	-mno-sse2 -fno-stack-protector -fno-asynchronous-unwind-tables \
	-Wall -Wextra -Werror -Wno-unused-parameter -MMD -MP
USER_PROGS := $(patsubst user/%.c,$(O)/user/%.elf,$(wildcard user/*.c))
ULIB_OBJS  := $(O)/ulib/user/lib/crt0.o \
	$(patsubst %.c,$(O)/ulib/%.o,$(wildcard user/lib/*.c) lib/string.c lib/vsprintf.c)

# Quiet rules; `make V=1` shows the commands.
Q := $(if $(filter 1,$(V)),,@)

TOOLS_OK = $(shell bash scripts/deps.sh --check >/dev/null 2>&1 && echo yes)

.PHONY: all kernel iso qemu qemu-gdb gdb test test-big bench torture rtlat trace clean deps include-graph explore explore-eval
all: kernel iso
kernel: $(O)/includes.ok $(O)/kernel.elf $(O)/percpu-ops.ok
iso: $(O)/kernel.iso

# Build-config stamp: a change of RT/LOCKDEP rebuilds everything.
$(O)/config: FORCE
	@mkdir -p $(O)
	@echo '$(CONFIG_DEFS) $(CC)' | cmp -s - $@ || echo '$(CONFIG_DEFS) $(CC)' > $@
FORCE:

$(O)/tests/%.o: CFLAGS += $(TEST_INCLUDES)
$(O)/%.o: %.c $(O)/config
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(O)/%.o: %.asm $(O)/config
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  NASM    $<")
	$(Q)$(NASM) $(NASMFLAGS) -MD $(@:.o=.d) -MP $< -o $@

$(O)/ulib/%.o: %.c $(O)/config
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  UCC     $<")
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@
$(O)/user/%.o: user/%.c $(O)/config
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  UCC     $<")
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@
$(O)/ulib/%.o: %.asm
	@mkdir -p $(dir $@)
	$(Q)$(NASM) $(NASMFLAGS) $< -o $@
$(O)/user/%.elf: $(O)/user/%.o $(ULIB_OBJS) user/user.ld
	@$(if $(Q),echo "  ULD     $@")
	$(Q)$(LD) -nostdlib -static -z max-page-size=0x1000 -z noexecstack \
		-T user/user.ld -o $@ $(ULIB_OBJS) $<
.SECONDARY: $(ULIB_OBJS) $(USER_PROGS:.elf=.o)
$(O)/user/programs.asm: $(USER_PROGS) scripts/build/genuser.sh
	$(Q)bash scripts/build/genuser.sh $(USER_PROGS) > $@
$(O)/user/programs.o: $(O)/user/programs.asm
	$(Q)$(NASM) $(NASMFLAGS) $< -o $@

# The symbol table needs the final addresses, which need the symbol table:
# link once with an empty table, then again with the real one. The table's
# section comes last in linker.ld, so the second link moves nothing (checked).
$(O)/ksyms0.asm: scripts/build/gensyms.sh
	@mkdir -p $(O)
	$(Q)bash scripts/build/gensyms.sh $(NM) > $@
$(O)/ksyms0.o $(O)/ksyms.o: $(O)/%.o: $(O)/%.asm
	$(Q)$(NASM) $(NASMFLAGS) $< -o $@
$(O)/kernel.stage1.elf: $(OBJS) $(O)/ksyms0.o linker.ld
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS) $(O)/ksyms0.o
$(O)/ksyms.asm: $(O)/kernel.stage1.elf scripts/build/gensyms.sh
	$(Q)bash scripts/build/gensyms.sh $(NM) $< > $@
$(O)/kernel.elf: $(O)/kernel.stage1.elf $(O)/ksyms.o
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS) $(O)/ksyms.o
	@$(NM) -n $< | grep -v ' ksyms_\| _end$$' > $(O)/syms.1
	@$(NM) -n $@ | grep -v ' ksyms_\| _end$$' > $(O)/syms.2
	@cmp -s $(O)/syms.1 $(O)/syms.2 || { echo "symbols moved between links"; rm -f $@; exit 1; }
	@grub-file --is-x86-multiboot2 $@ 2>/dev/null || command -v grub-file >/dev/null || true

# The layer rule (docs/architecture.md): what may include what.
HDRS := $(shell find $(SRCDIRS) -name '*.h')
$(O)/includes.ok: $(CSRCS) $(HDRS) scripts/build/includes.sh
	@mkdir -p $(O)
	$(Q)bash scripts/build/includes.sh check && touch $@

# The include graph file by file (docs/architecture.md).
include-graph:
	@mkdir -p $(O)
	bash scripts/build/includes.sh dot > $(O)/includes.dot
	@if command -v dot >/dev/null; then dot -Tsvg $(O)/includes.dot -o $(O)/includes.svg && echo "$(O)/includes.svg"; else echo "$(O)/includes.dot (install graphviz for an SVG)"; fi

# Build-time proof that every this_cpu_* op is one %gs: instruction. It is
# made on tests/percpu/percpu_ops.c compiled without the validator: with
# LOCKDEP=1 each op also tells the checker about itself (percpu.h).
$(O)/percpu_ops.nolockdep.o: tests/percpu/percpu_ops.c $(O)/config
	$(Q)$(CC) $(filter-out -DCONFIG_LOCKDEP -MMD -MP,$(CFLAGS)) $(TEST_INCLUDES) -c $< -o $@
$(O)/percpu-ops.ok: $(O)/percpu_ops.nolockdep.o scripts/build/check-percpu-ops.sh
	$(Q)bash scripts/build/check-percpu-ops.sh $(OBJDUMP) $< && touch $@

# The command line the ISO carries: a change of KTEST or CMDLINE remakes it.
ISO_CMDLINE := $(strip $(if $(KTEST),ktest=$(KTEST)) $(CMDLINE))
$(O)/cmdline: FORCE
	@mkdir -p $(O)
	@echo '$(ISO_CMDLINE)' | cmp -s - $@ || echo '$(ISO_CMDLINE)' > $@

$(O)/kernel.iso: $(O)/kernel.elf $(O)/percpu-ops.ok scripts/build/mkiso.sh $(O)/cmdline
	@$(if $(Q),echo "  ISO     $@")
	$(Q)bash scripts/build/mkiso.sh $< "$(ISO_CMDLINE)" $@

deps:
	@bash scripts/deps.sh

# `make qemu` and `make test` install what is missing first.
ifneq ($(TOOLS_OK),yes)
qemu qemu-gdb test test-big bench torture rtlat trace gdb explore explore-eval: deps
$(OBJS) $(O)/ksyms0.asm: | deps
endif

qemu: all
	bash scripts/qemu.sh $(O)/kernel.iso $(CPUS)

qemu-gdb: all
	@echo "QEMU is halted at the first instruction, gdbstub on :1234."
	@echo "In another terminal: make gdb   (or: gdb $(O)/kernel.elf -ex 'target remote :1234')"
	bash scripts/qemu.sh $(O)/kernel.iso $(CPUS) -S -gdb tcp::1234

gdb:
	gdb -iex "add-auto-load-safe-path $(CURDIR)" -x scripts/kernel.gdb $(O)/kernel.elf

# The test matrix: every CPU count on both RT settings.
TEST_CPUS ?= 1 2 4 8
TEST_RT   ?= 0 1
test:
	CPUS_LIST="$(TEST_CPUS)" RT_LIST="$(TEST_RT)" LOCKDEP=$(LOCKDEP) \
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
# [RUNS=n] to replay. Its own kernels: CPUS=1 LOCKDEP=0 unless given.
EXPLORE_VARS = $(foreach v,CPUS RT LOCKDEP,$(if $(filter command line,$(origin $(v))),$(v)=$($(v))))
explore:
	$(EXPLORE_VARS) KTEST='$(KTEST)' O=$(O) bash scripts/explore.sh
# The planted bugs: explorer against plain stress, replays, the checker.
explore-eval:
	O=$(O) bash scripts/explore-eval.sh

# Boots on many CPUs: the 32 and 64 CPU configurations.
test-big:
	CPUS_LIST="32 64" RT_LIST="$(TEST_RT)" LOCKDEP=$(LOCKDEP) TIMEOUT=900 \
	KTEST='$(or $(KTEST),*)' O=$(O) bash scripts/run-tests.sh

# Course labs (docs/labs/README.md): the starter tree of lab LAB in O, the
# grade of lab LAB on this tree (HIDDEN=<solution tree> adds the hidden
# checks), and the check that every lab's solution scores 100 and its
# starter builds and scores between 0 and 100.
.PHONY: lab-starter grade labs-check
lab-starter:
	@test -n "$(LAB)" || { echo "usage: make lab-starter LAB=n O=dir"; exit 2; }
	python3 scripts/lab-starter $(LAB) $(O)
grade:
	@test -n "$(LAB)" || { echo "usage: make grade LAB=n [HIDDEN=tree]"; exit 2; }
	O=$(O) python3 scripts/grade $(LAB) $(if $(HIDDEN),--hidden $(HIDDEN))
labs-check:
	O=$(O) bash tests/host/labs.sh

clean:
	rm -rf $(O)

-include $(OBJS:.o=.d) $(ULIB_OBJS:.o=.d) $(USER_PROGS:.elf=.d)
