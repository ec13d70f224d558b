# Quiescent: top-level build.
#
#   make run            build and boot in QEMU (CPUS=N, KVM=0|1, ARGS="...", BOOT=iso|kernel, NET=user)
#   make run RCU=poll CPUS=4 [KPREEMPT=1]
#                       the same with configs/rcu_poll[_kpreempt]_defconfig, in build/rcu_poll[_kpreempt]
#   make run KASAN=1    the same with KASAN (docs/kasan.md), in build/kasan (or build/rcu_<name>-kasan)
#   make run KCSAN=1    the same with KCSAN (docs/kcsan.md), in build/kcsan (or build/rcu_<name>-kcsan)
#   make run KCOV=1     the same with KCOV (docs/kcov.md), in build/kcov; beside KASAN=1 or KCSAN=1
#                       too (build/kasan-kcov)
#   make test           build the test configurations and run the pytest suites
#   make test QS_SANITIZER=kasan
#                       the same with KASAN (or kcsan) added to every build the suite makes
#   make iso            the GRUB rescue ISO
#   make initrd         the user programs (user/) packed as the initrd
#   make trace RCU=poll CPUS=4
#                       a timeline of grace periods: build/trace/poll/{trace.json,timeline.png,verdict.txt}
#   make gdb            boot stopped at the first instruction, gdb attached
#   make c2c CASE=hashlookup CPUS=2
#                       cache-line transfers counted by a QEMU plugin, a perf-c2c-like report (docs/figures.md)
#   make console        (a second terminal) the console of the kernel make gdb runs
#   make grade LAB=n    grade a lab (labs/README.md; GRADE_ARGS=--json for course infrastructure)
#   make ... DETERMINISTIC=1 [SHIFT=3]
#                       any boot above, deterministic: the same run every time (docs/replay.md)
#   make replay CONFIG=... CPUS=n ARGS='...' [STOP=T|-N] [BUNDLE=dir] [FROM=dir]
#                       rerun a deterministic run exactly, gdb stopped at T (docs/replay.md)
#   make defconfig, make <name>_defconfig, make menuconfig, make olddefconfig,
#   make savedefconfig  configuration (Kconfig, read by kconfiglib)
#   make clean
#
# Every build lives in O= (default build/), with its own .config, so several
# configurations can be built side by side (the test runner does).

# The short form for labs: RCU=<name> [KPREEMPT=1] picks
# configs/rcu_<name>[_kpreempt]_defconfig (- or _ alike: RCU=poll-percpu) and
# its own build directory; the variants' names: docs/rcu/README.md.
RCU		?=
KPREEMPT	?=
# "preempt" alone names the rcu-preempt variant (RCU=preempt); the
# preemptible kernel is KPREEMPT (docs/scheduler.md).
ifeq ($(origin PREEMPT),command line)
$(error PREEMPT= is not an option: KPREEMPT=1 builds the preemptible kernel \
	(configs/rcu_<name>_kpreempt_defconfig); RCU=preempt is the rcu-preempt variant)
endif
# KASAN=1 / KCSAN=1: the same configuration with CONFIG_KASAN=y
# (docs/kasan.md) or CONFIG_KCSAN=y (docs/kcsan.md) added, in a build
# directory of its own (build/kasan, build/rcu_<name>-kcsan, ...).
KASAN		?=
KASAN_ON	:= $(filter 1 y yes,$(KASAN))
KCSAN		?=
KCSAN_ON	:= $(filter 1 y yes,$(KCSAN))
# KCOV=1 (docs/kcov.md): the coverage hooks, with either of the two or alone.
KCOV		?=
KCOV_ON		:= $(filter 1 y yes,$(KCOV))
ifneq ($(and $(KASAN_ON),$(KCSAN_ON)),)
$(error KASAN=1 and KCSAN=1 cannot share a build: GCC refuses -fsanitize=kernel-address \
	with -fsanitize=thread; build them one at a time)
endif
SANITIZERS	:= $(if $(KASAN_ON),kasan) $(if $(KCSAN_ON),kcsan) $(if $(KCOV_ON),kcov)
SANITIZER	:= $(subst $(eval) ,-,$(strip $(SANITIZERS)))
ifneq ($(RCU),)
RCU_NAMES	:= $(patsubst configs/rcu_%_defconfig,%,$(filter-out %_kpreempt_defconfig,\
		   $(wildcard configs/rcu_*_defconfig)))
RCU_DEFCONFIG	:= rcu_$(subst -,_,$(RCU))$(if $(filter 1 y yes,$(KPREEMPT)),_kpreempt)_defconfig
ifeq ($(wildcard configs/$(RCU_DEFCONFIG)),)
$(error RCU=$(RCU)$(if $(KPREEMPT), KPREEMPT=$(KPREEMPT)): there is no configs/$(RCU_DEFCONFIG). \
	RCU= takes one of: $(sort $(RCU_NAMES)) (KPREEMPT=1, the preemptible kernel, where a _kpreempt_defconfig exists))
endif
O		?= build/$(RCU_DEFCONFIG:_defconfig=)$(if $(SANITIZER),-$(SANITIZER))
endif
O		?= build$(if $(SANITIZER),/$(SANITIZER))
CPUS		?= 4
KVM		?= auto
ARGS		?=
NET		?=
BOOT		?= iso
CROSS_COMPILE	?=
PYTHON		?= python3
V		?= 0

# The deterministic mode (docs/replay.md, tools/qs/replay.py): every boot
# any target makes runs on QEMU's one-thread round robin with -icount, so
# a run is a function of its command line. Through the environment, for
# the tools and the subprocesses they start.
DETERMINISTIC	?=
SHIFT		?=
ifneq ($(filter 1 y yes,$(DETERMINISTIC)),)
export QS_DETERMINISTIC := 1
endif
ifneq ($(SHIFT),)
export QS_SHIFT := $(SHIFT)
endif

# ccache, where installed (CCACHE= turns it off): make test builds some
# thirty configurations, and the user programs (their flags do not name
# the configuration) compile the same in each, so all but the first are
# cache hits; a second make test finds every unchanged object cached.
CCACHE		?= $(shell command -v ccache 2>/dev/null)
CC		:= $(if $(CCACHE),$(CCACHE) )$(CROSS_COMPILE)gcc
LD		:= $(CROSS_COMPILE)ld
NM		:= $(CROSS_COMPILE)nm
OBJCOPY		:= $(CROSS_COMPILE)objcopy
NASM		?= nasm

ifeq ($(V),1)
Q :=
else
Q := @
endif

KCONFIG_CONFIG	:= $(O)/.config
AUTOCONF	:= $(O)/include/generated/autoconf.h
AUTOCONF_MK	:= $(O)/auto.conf
# The line of each RCU variant's own file, from kernel/rcu/Kconfig's choice
# (kernel/rcu/variants.mk).
RCU_CHOICE_MK	:= $(O)/rcu_choice.mk
# The configuration reaches the compiler as -D options (a response file
# made from autoconf.h), not as -include autoconf.h, whose path, naming
# the build directory, the preprocessed text would carry: without it a
# file whose preprocessed text is the same in two configurations is one
# ccache entry (preprocessor mode), compiled once for all of them.
AUTOCONF_RSP	:= $(O)/include/generated/autoconf.rsp
export KCONFIG_CONFIG

ELF		:= $(O)/quiescent.elf
ISO		:= $(O)/quiescent.iso

# ---------------------------------------------------------------- sources
# The configuration as make variables (CONFIG_FOO=y), for choosing files;
# not read (and so not made) when only configuring or cleaning. make remakes
# an included file before any goal runs, `deps` included, so the rules that
# write it (kconfiglib's) check the dependencies first (KCONFIG_PY), and a
# configuration that cannot be made stops make with its reason (include,
# not -include, which went on to "No rule to make target .config").
ifeq ($(filter %config clean distclean deps console c2c-plugin,$(MAKECMDGOALS)),)
include $(AUTOCONF_MK)
include $(RCU_CHOICE_MK)
endif
include kernel/rcu/variants.mk

# kernel/kcsan and kernel/kcov are the runtimes of options: built only with them.
C_SRCS		:= $(filter-out $(RCU_VARIANT_FILES) $(if $(filter y,$(CONFIG_KCSAN)),,kernel/kcsan/%) \
		   $(if $(filter y,$(CONFIG_KCOV)),,kernel/kcov/%),$(shell find kernel -name '*.c' | sort)) \
		   $(wildcard $(rcu-variant-y))
ASM_SRCS	:= boot/multiboot.asm boot/entry.asm $(shell find kernel -name '*.asm' | sort)
# KASAN (kernel/kasan/, docs/kasan.md): its runtime and tests only where it
# is on (off, the image is the one without them, byte for byte), and GCC's
# instrumentation for every file but those it must not reach.
ifeq ($(CONFIG_KASAN),y)
KASAN_CFLAGS	:= -fsanitize=kernel-address -fasan-shadow-offset=0xdffffc0000000000 \
		   --param asan-stack=1 --param asan-globals=1 \
		   --param asan-instrumentation-with-call-threshold=0
else
C_SRCS		:= $(filter-out kernel/kasan/% kernel/test/test_kasan.c,$(C_SRCS))
KASAN_CFLAGS	:=
endif
# Not instrumented, and why:
#   kernel/kasan/*          the runtime: every check calls it, it writes the
#                           shadow's own page tables;
#   kernel/mm/kmalloc.c     writes poison into and checks objects whose
#                           shadow says "freed" (it owns their shadow);
#   kernel/proc/uaccess.c   user addresses have no shadow; it checks the
#                           kernel side of each copy itself;
#   kernel/arch/x86/nmi.c   NMI entry: a report there would take printk's
#                           lock, which the interrupted code may hold.
# kmain() (early boot, before the shadow exists) is excluded by attribute;
# memset() and memcpy() are inline asm, which GCC does not instrument, and
# check their ranges by hand (kernel/lib/string.c).
#   kernel/kcov/*           KCOV's hook, called from every basic block: a
#                           check there would double the cost of each.
KASAN_SANITIZE_NOT := kernel/kasan/%.c kernel/mm/kmalloc.c kernel/proc/uaccess.c \
		   kernel/arch/x86/nmi.c kernel/kcov/%.c
kasan_cflags	= $(if $(filter $(KASAN_SANITIZE_NOT),$<),,$(KASAN_CFLAGS))
OBJS		:= $(patsubst %.c,$(O)/%.o,$(C_SRCS)) $(patsubst %.asm,$(O)/%.o,$(ASM_SRCS))
KSYMTAB_EMPTY	:= $(O)/ksymtab_empty.o
KSYMTAB		:= $(O)/ksymtab.o

GCC_INCLUDE	:= $(shell $(CC) -print-file-name=include 2>/dev/null)

# -fdebug-prefix-map: debug information names sources relative to the
# tree, so an object does not depend on where the tree is checked out and
# ccache shares it between clones (the fresh clone CI builds, a worktree).
DEBUG_PREFIX	:= -fdebug-prefix-map=$(CURDIR)=.
CFLAGS		:= -std=gnu11 -O2 -g $(DEBUG_PREFIX) -pipe \
		   -ffreestanding -nostdinc -isystem $(GCC_INCLUDE) \
		   -fno-pic -fno-pie -mcmodel=kernel -mno-red-zone \
		   -mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 -mno-80387 \
		   -fno-stack-protector -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		   -fno-strict-aliasing -fno-common -fno-asynchronous-unwind-tables \
		   -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare \
		   -Wno-missing-field-initializers -Wstrict-prototypes -Wmissing-prototypes \
		   -Wno-maybe-uninitialized \
		   -Iinclude -Ikernel -I$(O)/include @$(AUTOCONF_RSP)
ASFLAGS		:= -f elf64 -g -F dwarf -Iboot/ -I$(O)/ -w+all -w+error
LDFLAGS		:= -nostdlib -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments \
		   -T boot/linker.ld

# KCSAN (kernel/kcsan, docs/kcsan.md): ThreadSanitizer's instrumentation
# on every kernel file but those that must not call the runtime: the
# runtime itself, which is what the instrumentation calls. Modules are
# built without it (the runtime is not among a module's exports), and user
# programs never are. No sibling calls: a tail call to the runtime would
# hide the access's function from the return address it reports.
ifeq ($(CONFIG_KCSAN),y)
KCSAN_CFLAGS	:= -fsanitize=thread --param tsan-distinguish-volatile=1 \
		   --param tsan-instrument-func-entry-exit=0 -Wno-tsan \
		   -fno-optimize-sibling-calls
KCSAN_SKIP	:= kernel/kcsan/% kernel/kcov/%
endif

# KCOV (kernel/kcov, docs/kcov.md): a call to __sanitizer_cov_trace_pc()
# at the start of every basic block, in every kernel file but these:
#   kernel/kcov/*           the hook itself, and what it calls: recursion;
#   kernel/kasan/*, kernel/kcsan/*
#                           the other runtimes: called on every access,
#                           KASAN's before the per-CPU area exists;
#   kernel/arch/x86/percpu.c, kernel/arch/x86/smp.c, kernel/lib/string.c
#                           code that runs before %gs points at the CPU's
#                           area, where the hook finds current
#                           (percpu_init_boot_cpu() and the memcpy() it
#                           calls, an AP's ap_main());
#   kernel/arch/x86/idt.c, kernel/arch/x86/nmi.c
#                           interrupt and NMI entry: their blocks before
#                           irq_enter() or NMI_OFFSET would be counted to
#                           the task they interrupted;
#   kernel/sched/*          the scheduler: what it runs depends on timing,
#                           not on the program, and irq_exit() runs it out
#                           of interrupts (Linux leaves it out for both).
# kmain() is excluded by attribute (__no_kcov, include/kcov.h). Modules are
# not instrumented: the hook is not among a module's exports.
ifeq ($(CONFIG_KCOV),y)
KCOV_CFLAGS	:= -fsanitize-coverage=trace-pc
KCOV_SKIP	:= kernel/kcov/% kernel/kasan/% kernel/kcsan/% kernel/arch/x86/percpu.c \
		   kernel/arch/x86/smp.c kernel/lib/string.c kernel/arch/x86/idt.c kernel/arch/x86/nmi.c kernel/sched/%
endif

.DEFAULT_GOAL := all

# ---------------------------------------------------------------- user programs
# user/: a small libc (user/lib), POSIX-shaped headers (user/include) and
# the programs (user/bin/*.c, one program per file), built freestanding
# with the same compiler and packed into the initrd, a cpio archive the
# boot loader hands the kernel as a module (docs/user-mode.md).
# -mgeneral-regs-only: the kernel does not save SSE/x87 state yet.
USER_CFLAGS	:= -std=gnu11 -O2 -g $(DEBUG_PREFIX) -pipe -ffreestanding -nostdinc -isystem $(GCC_INCLUDE) \
		   -Iuser/include -fno-pic -fno-pie -mgeneral-regs-only -fno-stack-protector \
		   -fno-asynchronous-unwind-tables -fno-omit-frame-pointer \
		   -Wall -Wextra -Werror -Wno-unused-parameter -Wno-sign-compare
USER_LDFLAGS	:= -nostdlib -static -z max-page-size=0x1000 -z noexecstack -T user/user.ld
USER_LIB_OBJS	:= $(patsubst %.c,$(O)/%.o,$(sort $(wildcard user/lib/*.c))) $(O)/user/lib/crt0.o
USER_LIBC	:= $(O)/user/libc.a
USER_PROGS	:= $(patsubst user/bin/%.c,$(O)/user/bin/%,$(sort $(wildcard user/bin/*.c)))
INITRD		:= $(O)/initrd.cpio
# Data files of the initrd, as DEST=SRC (read with open(); `ls`, `cat`).
INITRD_FILES	:= etc/motd=user/etc/motd

# ---------------------------------------------------------------- modules
# modules/: loadable kernel modules (docs/modules.md), one per file
# (modules/hello.c) or per folder (modules/<name>/*.c), compiled like the
# kernel and for this configuration (QS_VERMAGIC, a digest of autoconf.h,
# which the loader checks), linked with `ld -r` into an ELF64 relocatable
# object $(O)/modules/<name>.ko, and packed into the initrd without debug
# information as lib/modules/<name>.ko. Flags: the kernel's, so
# -mcmodel=kernel: the module area lies in the top 2 GiB, within 2 GiB of
# the kernel (kernel/module/area.c), where its 32-bit sign-extended and
# PC-relative relocations reach (R_X86_64_32S, PC32, PLT32; data pointers
# are R_X86_64_64). tools/mkbadmod.py derives deliberately broken modules
# from hello.ko for the tests (lib/modules/bad/).
VERMAGIC_H	:= $(O)/include/generated/vermagic.h
MODULE_NAMES	:= $(sort $(basename $(notdir $(wildcard modules/*.c))) \
		   $(notdir $(patsubst %/,%,$(wildcard modules/*/))))
MODULE_KOS	:= $(patsubst %,$(O)/modules/%.ko,$(MODULE_NAMES))
MODULE_OBJS	:= $(patsubst %.c,$(O)/%.o,$(wildcard modules/*.c modules/*/*.c))
BAD_MODULE_KINDS := $(shell $(PYTHON) tools/mkbadmod.py --list 2>/dev/null)
BAD_MODULES	:= $(patsubst %,$(O)/modules/bad/%.ko,$(BAD_MODULE_KINDS))
INITRD_FILES	+= $(foreach m,$(MODULE_NAMES),lib/modules/$(m).ko=$(O)/modules/stripped/$(m).ko) \
		   $(foreach k,$(BAD_MODULE_KINDS),lib/modules/bad/$(k).ko=$(O)/modules/bad/$(k).ko) \
		   lib/modules/bad/manifest=$(O)/modules/bad/manifest

$(VERMAGIC_H): $(AUTOCONF)
	@mkdir -p $(dir $@)
	$(Q)printf '#define QS_VERMAGIC "quiescent-%s"\n' \
		"$$(grep '^#define' $(AUTOCONF) | sha1sum | cut -c1-12)" > $@.tmp
	$(Q)cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(O)/modules/%.o: modules/%.c $(AUTOCONF_RSP) $(VERMAGIC_H)
	@mkdir -p $(dir $@)
	@echo "  CC [M]  $<"
	$(Q)$(CC) $(CFLAGS) $(KASAN_CFLAGS) -DMODULE -DMODULE_NAME='"$(firstword $(subst /, ,$*))"' \
		-MMD -MP -c $< -o $@

define module_rule
$(O)/modules/$(1).ko: $(patsubst %.c,$(O)/%.o,$(wildcard modules/$(1).c modules/$(1)/*.c))
	@echo "  LD [M]  $$@"
	$(Q)$(LD) -r -o $$@ $$^
endef
$(foreach m,$(MODULE_NAMES),$(eval $(call module_rule,$(m))))

$(O)/modules/stripped/%.ko: $(O)/modules/%.ko
	@mkdir -p $(dir $@)
	$(Q)$(OBJCOPY) --strip-debug $< $@

$(O)/modules/bad/manifest: $(O)/modules/stripped/hello.ko tools/mkbadmod.py
	@echo "  BADMOD  $(dir $@)"
	$(Q)$(PYTHON) tools/mkbadmod.py --out-dir $(dir $@) $<
$(BAD_MODULES): $(O)/modules/bad/manifest
	@:

modules: $(MODULE_KOS) $(BAD_MODULES)

$(O)/user/%.o: user/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(USER_CFLAGS) -MMD -MP -c $< -o $@

$(O)/user/lib/crt0.o: user/lib/crt0.asm
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	$(Q)$(NASM) -f elf64 -g -F dwarf $< -o $@

$(USER_LIBC): $(USER_LIB_OBJS)
	$(Q)rm -f $@
	$(Q)$(CROSS_COMPILE)ar rcs $@ $^

# The programs' objects are kept (not removed as intermediates), so that a
# second make rebuilds nothing.
.SECONDARY: $(USER_PROGS:=.o)
$(O)/user/bin/%: $(O)/user/bin/%.o $(USER_LIBC) user/user.ld
	@echo "  LD      $@"
	$(Q)$(LD) $(USER_LDFLAGS) -o $@ $(O)/user/lib/crt0.o $< $(USER_LIBC)

# A program from outside user/bin built the same way: a reproducer that
# make fuzz wrote (tools/qs/fuzz.py puts NAME.c in $(O)/user/extra/ and
# asks for $(O)/user/extra/NAME; docs/fuzzing.md).
$(O)/user/extra/%.o: $(O)/user/extra/%.c
	@echo "  CC      $<"
	$(Q)$(CC) $(USER_CFLAGS) -c $< -o $@
$(O)/user/extra/%: $(O)/user/extra/%.o $(USER_LIBC) user/user.ld
	@echo "  LD      $@"
	$(Q)$(LD) $(USER_LDFLAGS) -o $@ $(O)/user/lib/crt0.o $< $(USER_LIBC)

# The initrd holds the programs without their debug information (gdb
# reads build/user/bin/<name> for that).
$(INITRD): $(USER_PROGS) tools/mkinitrd.py $(foreach f,$(INITRD_FILES),$(lastword $(subst =, ,$(f))))
	@echo "  INITRD  $@"
	@mkdir -p $(O)/user/stripped
	$(Q)for p in $(USER_PROGS); do $(OBJCOPY) --strip-debug $$p $(O)/user/stripped/$$(basename $$p); done
	$(Q)$(PYTHON) tools/mkinitrd.py -o $@ $(addprefix --file ,$(INITRD_FILES)) \
		$(addprefix $(O)/user/stripped/,$(notdir $(USER_PROGS)))
	@touch $@	# mkinitrd.py leaves an unchanged archive alone: mark it up to date

initrd: $(INITRD)

# ---------------------------------------------------------------- top targets
.PHONY: check all kernel initrd modules iso run gdb console replay lab8 lab8-workload test test-full test-quick soak repeat trace mutants torture fuzz torture-bisect litmus compare amlat \
	modbench semopbench rtbench chatbench figures grade c2c c2c-plugin coverage clean \
	distclean deps \
	menuconfig defconfig olddefconfig savedefconfig FORCE

all: kernel
kernel: $(ELF) $(INITRD)

deps:
	$(Q)PYTHON=$(PYTHON) tools/setup-deps.sh

# ---------------------------------------------------------------- configuration
# kconfig.py for the rules make runs while remaking auto.conf: on a fresh
# machine, the first `make run` installs kconfiglib (and the rest) here.
# Only when kconfiglib is missing: a plain `make` never needed QEMU or gdb.
KCONFIG_PY	= { $(PYTHON) -c 'import kconfiglib' 2>/dev/null || PYTHON=$(PYTHON) tools/setup-deps.sh; } && \
		  $(PYTHON) tools/kconfig.py
KCONFIG_FILES	:= $(shell find . -name Kconfig -not -path './$(O)/*' -not -path './build/*')

# With KASAN=1 or KCSAN=1 the defconfig is read with its option added.
SAN_DEFCONFIG	= { cat $(1); printf 'CONFIG_%s=y\n' $(shell echo $(SANITIZERS) | tr a-z A-Z); } \
		  > $(O)/$(SANITIZER).defconfig && $(KCONFIG_PY) defconfig $(O)/$(SANITIZER).defconfig
read_defconfig	= $(if $(SANITIZER),$(call SAN_DEFCONFIG,$(1)),$(KCONFIG_PY) defconfig $(1))
ifneq ($(RCU),)
$(KCONFIG_CONFIG): configs/$(RCU_DEFCONFIG)
	$(Q)mkdir -p $(O)
	$(Q)echo "  CONFIG  $(O)/.config (from configs/$(RCU_DEFCONFIG)$(if $(SANITIZER), with $(SANITIZER)))"
	$(Q)$(call read_defconfig,configs/$(RCU_DEFCONFIG))
else
$(KCONFIG_CONFIG):
	$(Q)mkdir -p $(O)
	$(Q)echo "  CONFIG  $(O)/.config (from configs/defconfig$(if $(SANITIZER), with $(SANITIZER)); 'make menuconfig' to change it)"
	$(Q)$(call read_defconfig,configs/defconfig)
endif

defconfig: FORCE
	$(Q)mkdir -p $(O)
	$(Q)$(PYTHON) tools/kconfig.py defconfig configs/defconfig

# (A static pattern over configs/, so that configs/<name>_defconfig the file
# is not also taken for this target.)
DEFCONFIGS	:= $(notdir $(wildcard configs/*_defconfig))
$(DEFCONFIGS): %_defconfig: FORCE
	$(Q)mkdir -p $(O)
	$(Q)$(PYTHON) tools/kconfig.py defconfig configs/$@
# Any other <name>_defconfig: kconfig.py says which exist. (No FORCE: an
# existing configs/ file has no prerequisites, so it is never remade.)
%_defconfig:
	$(Q)$(PYTHON) tools/kconfig.py defconfig configs/$@

olddefconfig menuconfig savedefconfig: FORCE
	$(Q)mkdir -p $(O)
	$(Q)$(PYTHON) tools/kconfig.py $@

# autoconf.h is rewritten only when its content changes (kconfiglib compares),
# so touching .config without changing it rebuilds nothing.
$(AUTOCONF_MK): $(KCONFIG_CONFIG) $(KCONFIG_FILES)
	$(Q)$(KCONFIG_PY) genconfig
$(AUTOCONF): $(AUTOCONF_MK)
	@:
$(RCU_CHOICE_MK): kernel/rcu/Kconfig tools/qs/variants.py
	$(Q)mkdir -p $(O)
	$(Q)$(PYTHON) tools/variants.py --make > $@.tmp && mv $@.tmp $@
# Each value escaped character by character, as gcc and ccache read @files.
$(AUTOCONF_RSP): $(AUTOCONF)
	$(Q)sed -n 's/^#define \([A-Za-z0-9_]*\) \(.*\)$$/-D\1=\2/p' $< | \
		sed 's/[^A-Za-z0-9_=-]/\\&/g' > $@.tmp && mv $@.tmp $@

# ---------------------------------------------------------------- compile
$(O)/%.o: %.c $(AUTOCONF_RSP) $(VERMAGIC_H)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CFLAGS) $(kasan_cflags) $(if $(filter $(KCSAN_SKIP),$<),,$(KCSAN_CFLAGS)) \
		$(if $(filter $(KCOV_SKIP),$<),,$(KCOV_CFLAGS)) -MMD -MP -c $< -o $@

$(O)/%.o: %.asm
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	$(Q)$(NASM) $(ASFLAGS) -MD $(@:.o=.d) -MP $< -o $@

# The AP trampoline is 16-bit code copied below 1 MiB: a flat binary,
# pulled into the kernel by kernel/arch/x86/trampoline_blob.asm.
$(O)/trampoline.bin: boot/trampoline.asm boot/layout.inc
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	$(Q)$(NASM) -f bin -Iboot/ $< -o $@

$(O)/kernel/arch/x86/trampoline_blob.o: $(O)/trampoline.bin

# ---------------------------------------------------------------- link (two passes)
# Pass 1 links with an empty symbol table; tools/mksyms.py turns its text
# symbols into .ksymtab; pass 2 links that in. .ksymtab sits after every
# function, so no function moves between passes (mksyms --check verifies).
$(KSYMTAB_EMPTY): tools/mksyms.py $(AUTOCONF_RSP)
	@mkdir -p $(dir $@)
	$(Q)$(PYTHON) tools/mksyms.py --empty > $(O)/ksymtab_empty.c
	$(Q)$(CC) $(CFLAGS) -c $(O)/ksymtab_empty.c -o $@

$(O)/quiescent.pass1.elf: $(OBJS) $(KSYMTAB_EMPTY) boot/linker.ld
	@echo "  LD      $@"
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS) $(KSYMTAB_EMPTY)

$(KSYMTAB): $(O)/quiescent.pass1.elf tools/mksyms.py $(AUTOCONF_RSP)
	$(Q)$(NM) -n $< | $(PYTHON) tools/mksyms.py > $(O)/ksymtab.c
	$(Q)$(CC) $(CFLAGS) -c $(O)/ksymtab.c -o $@

$(ELF): $(KSYMTAB) boot/linker.ld
	@echo "  LD      $@"
	$(Q)$(LD) $(LDFLAGS) -o $@ $(OBJS) $(KSYMTAB)
	$(Q)$(NM) -n $(O)/quiescent.pass1.elf > $(O)/syms.pass1
	$(Q)$(NM) -n $@ | $(PYTHON) tools/mksyms.py --check $(O)/syms.pass1

# ---------------------------------------------------------------- editors
# compile_commands.json at the top of the tree: how each C file of this
# configuration (O=) is compiled, with the flags above, so that clangd and
# other language servers find include/, kernel/ and $(O)/include, and see
# the CONFIG_ symbols this configuration sets (docs/getting-started.md).
# Written for the configuration of the last call; the compiler is named
# without ccache, which a language server would take for the compiler.
compile_commands.json: $(AUTOCONF_RSP) $(VERMAGIC_H) tools/compile_commands.py FORCE
	@echo "  GEN     $@ (for $(O))"
	$(Q)OBJ_DIR='$(O)' KERNEL_CFLAGS='$(CFLAGS)' KERNEL_SRCS='$(C_SRCS)' \
		MODULE_SRCS='$(sort $(wildcard modules/*.c modules/*/*.c))' \
		USER_CFLAGS='$(USER_CFLAGS)' USER_SRCS='$(sort $(wildcard user/lib/*.c user/bin/*.c))' \
		$(PYTHON) tools/compile_commands.py --cc $(CROSS_COMPILE)gcc --out $@

# ---------------------------------------------------------------- ISO and QEMU
GRUB_CFG	:= $(O)/isodir/boot/grub/grub.cfg

$(GRUB_CFG): FORCE
	@mkdir -p $(dir $@)
	$(Q)$(PYTHON) tools/mkgrubcfg.py --args "$(ARGS)" --module initrd.cpio --out $@

$(ISO): $(ELF) $(INITRD) $(GRUB_CFG)
	@echo "  ISO     $@"
	$(Q)cp $(ELF) $(O)/isodir/boot/quiescent.elf
	$(Q)cp $(INITRD) $(O)/isodir/boot/initrd.cpio
	$(Q)grub-mkrescue -o $@ $(O)/isodir >$(O)/grub-mkrescue.log 2>&1 || \
		{ cat $(O)/grub-mkrescue.log; exit 1; }

iso: deps $(ISO)

run: deps $(ELF) $(INITRD) $(if $(filter iso,$(BOOT)),$(ISO))
	$(Q)$(PYTHON) tools/qrun.py run --build-dir $(O) --cpus $(CPUS) --kvm $(KVM) \
		--boot $(BOOT) --args "$(ARGS)" $(if $(NET),--net $(NET))

# gdb on this terminal; the serial console on $(O)/console.sock, which
# `make console` (with the same O= or RCU=) attaches a second terminal to.
gdb: deps $(ELF) $(INITRD)
	$(Q)$(PYTHON) tools/qrun.py gdb --build-dir $(O) --cpus $(CPUS) --boot kernel --args "$(ARGS)"

console:
	$(Q)$(PYTHON) tools/console.py --build-dir $(O)

# make replay: the command a deterministic failure prints (docs/replay.md).
# CONFIG= and OPTIONS= name the build (build/test-<config>, as the
# scenarios'), ARGS= the kernel command line as it was; STOP=T stops gdb
# at virtual time T (s), STOP=-N N ms before the first failure; RUNS=3
# replays three times and compares; BUNDLE=dir (BUNDLE=1: build/replay/bundle) writes what reruns it
# elsewhere, FROM=dir replays such a bundle (same QEMU version); RR=1
# (CPUS=1) records the run and replays the record under gdb, with
# reverse-stepi and reverse-continue. BATCH=file (with STOP or RR): run
# the gdb commands in file at the stop, then exit. SCEN=name replays a
# scenario's boot: only as given on the command line (make torture's
# default SCEN, below, is not one to replay).
CONFIG		?= defconfig
OPTIONS		?=
EXPECT		?= pass
TIMEOUT		?= 600
STOP		?=
RUNS		?= 1
BUNDLE		?=
FROM		?=
RR		?=
BATCH		?=
replay: deps
	$(Q)$(PYTHON) tools/replay.py --config $(CONFIG) --cpus $(CPUS) --args "$$ARGS" \
		$(foreach o,$(OPTIONS),--option $(o)) --expect $(EXPECT) --timeout $(TIMEOUT) \
		--runs $(RUNS) $(if $(SHIFT),--shift $(SHIFT)) $(if $(STOP),--stop=$(STOP)) \
		$(if $(BUNDLE),--bundle $(BUNDLE)) $(if $(FROM),--from $(FROM)) \
		$(if $(filter 1 y yes,$(RR)),--rr) $(if $(BATCH),--batch-file $(BATCH)) \
		$(if $(filter command line,$(origin BOOT)),--boot $(BOOT)) \
		$(if $(filter command line environment,$(origin SCEN)),--scenario $(SCEN))

# The test suites build their own configurations under build/test-*; KVM=0
# forces TCG, KVM=auto (default) uses KVM only where the cached probe
# (build/.kvm-probe) found it works and is faster. PYTEST= passes options,
# e.g. make test PYTEST="-k smp -x"; TEST_JOBS=N (below).
PYTEST		?=
REPEAT		?= 10
SCN		?=

# TEST_JOBS: cases booted side by side (pytest-xdist, which setup-deps
# installs), one per host core: a TCG guest that boots and idles uses about
# 0.3 (-smp 1) to 0.7 (-smp 4) of a core, so two on two cores leave room
# for the builds. TEST_JOBS=1 runs one case at a time, as before.
TEST_JOBS	?= $(shell nproc 2>/dev/null || echo 1)
# Expanded when the recipe runs, after deps installed xdist.
TEST_XDIST	= $(if $(filter-out 0 1,$(TEST_JOBS)),$(if $(shell $(PYTHON) -c 'import xdist' 2>/dev/null \
		  && echo y),-n $(TEST_JOBS) --dist loadgroup))

test: deps
	$(Q)KVM=$(KVM) $(PYTHON) -m pytest -q $(TEST_XDIST) tests/ $(PYTEST)

# make test and the long checks it leaves out (pytest marker `full`:
# tests/test_fresh_clone.py, a whole build in a fresh copy).
test-full: deps
	$(Q)KVM=$(KVM) $(PYTHON) -m pytest -q $(TEST_XDIST) --full tests/ $(PYTEST)

# Parsers, configuration checks and one -smp 4 boot: a minute at most.
test-quick: deps
	$(Q)KVM=$(KVM) $(PYTHON) -m pytest -q tests/test_ktap.py tests/test_config.py \
		"tests/test_scenarios.py::test_scenario[boot-kernel-smp4]" $(PYTEST)

# sparse over this configuration's C (docs/rcu/checking.md): a plain load
# or store of an __rcu pointer, a __user pointer dereferenced, a lock
# context imbalance. Any warning fails. -Wno-decl: "symbol not declared,
# should it be static?" is about variables shared between a variant's files
# without a header; gcc's -Wmissing-prototypes already covers functions.
# -Wno-context: lock-context counting (__acquires/__releases) cannot express
# a lookup that returns its object locked or NULL (ipc_lock(), the timer
# and route-bucket helpers), which sparse 0.6 reports as imbalance; the
# lock validator checks balance at run time (docs/rcu/checking.md).
SPARSE		?= sparse
SPARSE_FLAGS	:= -D__CHECKER__ -std=gnu11 -m64 -ffreestanding -nostdinc -isystem $(GCC_INCLUDE) \
		   -Iinclude -Ikernel -I$(O)/include -include $(AUTOCONF) \
		   -Wsparse-error -Wno-decl
SPARSE_STAMPS	:= $(patsubst %.c,$(O)/%.chk,$(C_SRCS))
SPARSE_PRESENT	= @command -v $(SPARSE) >/dev/null || { \
		echo "make check needs sparse; install it with: sudo apt-get install sparse (or: make deps)"; exit 1; }
# CHECK_FILES=a.c b.c: those files only, with the kernel's flags (a
# student's lab file, or the planted mistakes in tests/sparse/).
ifneq ($(CHECK_FILES),)
check: $(AUTOCONF)
	$(SPARSE_PRESENT)
	$(Q)for f in $(CHECK_FILES); do $(SPARSE) $(SPARSE_FLAGS) $$f || exit 1; done
	@echo "  CHECK   $(CHECK_FILES): sparse found nothing"
else
check: $(SPARSE_STAMPS)
	@echo "  CHECK   $(words $(C_SRCS)) files of $(O): sparse found nothing"
endif
$(O)/%.chk: %.c $(O)/%.o
	$(SPARSE_PRESENT)
	$(Q)$(SPARSE) $(SPARSE_FLAGS) $<
	@touch $@

# The RCU variants side by side: one table and a latency plot (build/compare/).
COMPARE_CPUS	?= 2
compare: deps
	$(Q)$(PYTHON) tools/compare.py --cpus $(COMPARE_CPUS) --kvm $(KVM)

# Modules and NMI handlers on every RCU variant: unload's grace period,
# the stress tests, NMIs the grace period missed (docs/modules.md).
modbench: deps
	$(Q)$(PYTHON) tools/modbench.py --kvm $(if $(filter auto,$(KVM)),0,$(KVM))

# Seed 003 Table 1 for Quiescent: realtime latency under an RCU callback
# load, Base/krcud/direct/throttle, and a histogram (build/amlat/).
AMLAT_ARGS	?=
amlat: deps
	$(Q)$(PYTHON) tools/amlat.py --kvm $(if $(filter auto,$(KVM)),0,$(KVM)) $(AMLAT_ARGS)

# Seed 004 Table 5: semopbench with ipc=global and ipc=rcu at each CPU
# count, the ratio beside the paper's 515 s and 46.7 s (build/semopbench/).
SEMOPBENCH_CPUS	?= 1,2
SEMOPBENCH_ARGS	?=
semopbench: deps
	$(Q)$(PYTHON) tools/semopbench.py --cpus $(SEMOPBENCH_CPUS) \
		--kvm $(if $(filter auto,$(KVM)),0,$(KVM)) $(SEMOPBENCH_ARGS)

# Route lookups per second, rcu against rwlock against no cache, by CPU
# count and hit ratio, in one boot: a table and a plot (build/rtbench/).
rtbench: deps
	$(Q)$(PYTHON) tools/rtbench.py --cpus $(CPUS) --kvm $(if $(filter auto,$(KVM)),0,$(KVM))

# Seed 000 Figure 11: the chat benchmark (user/bin/chat, UDP on lo) on
# every RCU variant, files=rcu and files=lock (build/chatbench/).
CHATBENCH_ARGS	?=
chatbench: deps
	$(Q)$(PYTHON) tools/chatbench.py --cpus $(CPUS) --kvm $(if $(filter auto,$(KVM)),0,$(KVM)) \
		$(CHATBENCH_ARGS)

# Every reproduced paper figure in one report, build/figures/report.md and
# .html with the PNGs (docs/figures.md): CPUS= defaults here to the host's
# cores (nproc), QUICK=1 shortens every part, FIGURES_ARGS= passes options
# (--parts hashlookup,ipc; --publish docs/figures).
QUICK		?=
FIGURES_ARGS	?=
figures: deps
	$(Q)$(PYTHON) tools/figures.py --cpus $(if $(filter file,$(origin CPUS)),$(shell nproc),$(CPUS)) \
		$(if $(filter 1 y yes,$(QUICK)),--quick) --kvm $(if $(filter auto,$(KVM)),0,$(KVM)) \
		$(FIGURES_ARGS)

# The coherence plugin (tools/c2c/c2c.c): a QEMU TCG plugin built for the
# host, not the guest, with the host's gcc and its own declarations of
# QEMU's plugin interface (Debian ships no qemu-plugin.h); one for every
# configuration, so it lives in build/c2c/, not in O=.
HOSTCC		?= gcc
C2C_SO		:= build/c2c/c2c.so
$(C2C_SO): tools/c2c/c2c.c tools/c2c/plugin_api.h
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@"
	$(Q)$(HOSTCC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter -shared -fPIC \
		-fvisibility=hidden -o $@ $< -lpthread

# Cache-line transfers in the emulator, like perf c2c (docs/figures.md):
# CASE= hashlookup (default), route, semop, counters; CPUS= as for run.
# Boots the case with the plugin and writes build/c2c/<case>/report.txt.
# CASE=qslines: every variant's quiescent-state and grace-period lines,
# a boot each (docs/rcu/qs-lines.md; C2C_ARGS=--variants=ltimer,tree).
CASE		?= hashlookup
C2C_ARGS	?=
c2c-plugin: $(C2C_SO)
c2c: deps $(C2C_SO)
	$(Q)$(PYTHON) tools/c2c.py $(if $(filter qslines,$(CASE)),qslines,run $(CASE)) \
		--cpus $(if $(filter file,$(origin CPUS)),$(if $(filter qslines,$(CASE)),4,2),$(CPUS)) $(C2C_ARGS)

# A timeline of grace periods (docs/rcu/timeline.md): a traced rcutorture
# run of TRACE_SECONDS (default 1) on RCU=<variant> at -smp CPUS, then
# build/trace/<variant>/{trace.json,timeline.png,verdict.txt}; the
# verdict is tools/timeline.py's grace-period checker's.
TRACE_SECONDS	?= 1
TRACE_VARIANT	:= $(if $(RCU_DEFCONFIG),$(RCU_DEFCONFIG:rcu_%_defconfig=%),ltimer)
trace: deps
	$(Q)$(PYTHON) tools/timeline.py run --config rcu_$(TRACE_VARIANT)_defconfig --cpus $(CPUS) \
		--kvm $(if $(filter auto,$(KVM)),0,$(KVM)) --seconds $(TRACE_SECONDS) \
		-d build/trace/$(subst _,-,$(TRACE_VARIANT))

# Grade a lab (labs/README.md): each check's OK or FAIL with its evidence,
# then Score: x/y; the status is non-zero when points are lost. LAB= picks
# the lab (none lists them; a bad one lists them and fails); GRADE_ARGS= passes options:
# --json (or JSON=1), --only 'torture-*', --reference (the instructor's reference);
# GRADESCOPE=path also writes Gradescope's results.json there.
LAB		?=
GRADE_ARGS	?=
grade: deps
	$(Q)$(PYTHON) tools/grade.py $(LAB) --kvm $(if $(filter auto,$(KVM)),0,$(KVM)) \
		$(if $(filter 1 y yes,$(JSON)),--json) $(if $(GRADESCOPE),--gradescope $(GRADESCOPE)) $(GRADE_ARGS)

# make test's scenarios under KCOV (CONFIG_KCOV=y added, kcov.all=1): which
# functions of kernel/fs, kernel/proc, kernel/ipc, kernel/net and
# kernel/module the suite reaches, and which never, in build/coverage/
# report.txt (docs/kcov.md). COVERAGE_CONFIGS=defconfig,rcu_ltimer_defconfig
# keeps the cases of those configurations (each is a KCOV build of its
# own), SCN='user-*' chooses scenarios.
COVERAGE_CONFIGS ?=
coverage: deps
	$(Q)$(PYTHON) tools/kcov_report.py suite $(SCN) $(if $(COVERAGE_CONFIGS),--configs $(COVERAGE_CONFIGS)) \
		--kvm $(if $(filter auto,$(KVM)),0,$(KVM))

# Lab 8 (labs/lab8-find-the-bug/README.md): plant the student's RCU bug in
# this tree, chosen by their id (STUDENT=) or by the instructor (PICK=n);
# lab8-workload prints the commands that reproduce it, with each tool.
STUDENT		?=
PICK		?=
FORCE		?=
lab8:
	$(Q)$(PYTHON) labs/lab8-find-the-bug/lab8.py plant $(if $(STUDENT),--student "$(STUDENT)") \
		$(if $(PICK),--pick $(PICK)) $(if $(filter 1 y yes,$(FORCE)),--force)

lab8-workload:
	$(Q)$(PYTHON) labs/lab8-find-the-bug/lab8.py workload

# Every scenario (or SCN='glob'), REPEAT times, one summary line per run.
repeat: deps
	$(Q)$(PYTHON) tools/qrun.py scenario --kvm $(KVM) --repeat $(REPEAT) $(SCN)

# rcutorture on every variant, long enough to matter (docs/rcu/torture.md):
# SOAK_MINUTES per run (default 10) at -smp SOAK_CPUS (4), both preemption
# models; SOAK_VARIANTS=poll,sched and SOAK_KPREEMPT=none|kpreempt|both choose,
# SOAK_RUNS repeats, SOAK_JOBS boots at once. A table at the end.
SOAK_MINUTES	?= 10
SOAK_CPUS	?= 4
SOAK_VARIANTS	?=
SOAK_KPREEMPT	?= both
SOAK_RUNS	?= 1
SOAK_JOBS	?= 1
# The mutation suite (tests/mutants/*.toml): each realistic RCU bug planted
# in a scratch copy of the tree and run against the check that should catch
# it. MUTANTS='poll-*' chooses, MUTANTS_REPEAT=3 runs each several times;
# SEEDS=1-10 runs each once per torture seed in the deterministic mode.
MUTANTS		?=
MUTANTS_REPEAT	?= 1
mutants: deps
	$(Q)$(PYTHON) tools/mutants.py $(MUTANTS) --repeat $(MUTANTS_REPEAT) \
		$(if $(SEEDS),--seeds $(SEEDS)) --kvm $(if $(filter auto,$(KVM)),0,$(KVM))

# rcutorture scenarios by pattern and count, for DURATION (s, m or h), one
# table (tools/torture.py, docs/rcu/torture.md):
#   make torture SCEN='3*torture-poll*' DURATION=2m
#   make torture DETERMINISTIC=1 SCEN=torture-busted SEEDS=1-50 [SHIFTS=2,3,4]
#                       one case under many seeds, each replayable (docs/replay.md)
#   make torture-bisect GOOD=<commit> BAD=HEAD SCEN=torture-poll-smp4 DURATION=10s
SCEN		?= torture-*
DURATION	?=
SEEDS		?=
SHIFTS		?=
GOOD		?=
BAD		?= HEAD
torture: deps
	$(Q)$(PYTHON) tools/torture.py run '$(SCEN)' $(if $(DURATION),--duration $(DURATION)) \
		$(if $(SEEDS),--seeds $(SEEDS)) $(if $(SHIFTS),--shifts $(SHIFTS)) \
		--kvm $(if $(filter auto,$(KVM)),0,$(KVM))

# syzq, the coverage-guided fuzzer, for DURATION on CPUS CPUs, the corpus
# and the crashes in build/fuzz/ (tools/fuzz.py, docs/fuzzing.md):
#   make fuzz DURATION=5m CPUS=2 [FUZZ_VARIANTS=prove,kasan,kcsan] [ARGS=...]
#   make fuzz DURATION=0 FUZZ_COVERAGE=1    the corpus's coverage per file
FUZZ_VARIANTS	?= prove
fuzz: deps
	$(Q)$(PYTHON) tools/fuzz.py --duration $(or $(DURATION),5m) --cpus $(CPUS) \
		--variants $(FUZZ_VARIANTS) $(if $(ARGS),--args '$(ARGS)') \
		$(if $(filter 1,$(FUZZ_COVERAGE)),--coverage)

torture-bisect: deps
	$(Q)$(if $(GOOD),,$(error torture-bisect needs GOOD=<commit>))$(PYTHON) tools/torture.py \
		bisect '$(SCEN)' --good $(GOOD) --bad $(BAD) $(if $(DURATION),--duration $(DURATION)) \
		--kvm $(if $(filter auto,$(KVM)),0,$(KVM))

# The memory model's RCU litmus patterns as kernel tests on every variant
# (kernel/test/test_rcu_litmus_lkmm.c, herd7 files in kernel/test/litmus/):
# 0 forbidden outcomes on real variants, some on busted and rcu_break=1.
litmus: deps
	$(Q)$(PYTHON) tools/qrun.py scenario --kvm $(KVM) 'litmus-lkmm*' 'soak-litmus-lkmm*'

soak: deps
	$(Q)$(PYTHON) tools/soak.py --minutes $(SOAK_MINUTES) --cpus $(SOAK_CPUS) \
		$(if $(SOAK_VARIANTS),--variants $(SOAK_VARIANTS)) --kpreempt $(SOAK_KPREEMPT) \
		--runs $(SOAK_RUNS) --jobs $(SOAK_JOBS) --kvm $(if $(filter auto,$(KVM)),0,$(KVM))

clean:
	rm -rf $(O)

distclean:
	rm -rf build

FORCE:

-include $(OBJS:.o=.d) $(USER_LIB_OBJS:.o=.d) $(USER_PROGS:=.d) $(MODULE_OBJS:.o=.d)
