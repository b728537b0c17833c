#!/usr/bin/env bash
# Host test runner: builds the kernel, boots it in QEMU once per
# configuration, parses the KTAP report from the serial log and then boots
# each "panic test" alone.
#
# usage: [VAR=value ...] scripts/run-tests.sh
#   CPUS_LIST  CPU counts to boot with, e.g. "1 4"           (default "1")
#   RT_LIST    values of the RT build option, e.g. "0 1"     (default "1")
#   LOCKDEP    LOCKDEP build option                          (default 1)
#   KTEST      glob of suite.name tests to run               (default '*')
#   SILENCE    seconds a boot may go without printing before the runner
#              ends it (default 300: a running test says so every minute,
#              and the kernel ends and reports one that runs past its own
#              bound)
#   TIMEOUT    seconds any one boot may take in all          (default 3600)
#   O          build root, relative to the repository root   (default build)
#   CORES      host cores the runner keeps busy: boots, builds and host
#              tests run side by side while their weights fit (default
#              nproc); CORES=1 runs one job of weight 1 or more at a
#              time (the host tests of weight 0 run beside it)
#   LIGHT_NICE the nice value of the host tests of weight 0 (default 10
#              if the host is idle as the run starts, else 0)
#   JOBS       parallel make jobs of a build                 (default CORES)
#   HOST_TESTS 1: after a full run (KTEST='*'), also the host-side tests
#              tests/host/*.sh, given the last kernel built (default 1)
#   EXTRA_CONFIGS  more boots per RT setting, each MACHINE:CPUS, e.g.
#              "q35:3 pc:5" (default "q35:3" on a full run, KTEST='*', and
#              none otherwise); they run EXTRA_KTEST on a full run, KTEST
#              on another, with contended locks in ticket order
#              (virt_spin_lock=0)
#   EXTRA_KTEST  the tests of the extra boots on a full run (default: the
#              suites that touch the machine: boot, ACPI, SMP, timers,
#              per-CPU data, the scheduler, hotplug)
#   UEFI_CPUS  CPU counts of more boots per RT setting, on OVMF
#              (FIRMWARE=uefi) from the same hybrid ISO's EFI side, e.g.
#              "2 4" (default "2" on a full run, KTEST='*', and none
#              otherwise); they run UEFI_KTEST with ktest_firmware=efi,
#              which firmware.tags_match_firmware checks
#   UEFI_KTEST the tests of the OVMF boots (default on a full run: the
#              suites of boot, firmware tags, ACPI, SMP bring-up and
#              per-CPU data; otherwise KTEST)
#   MACHINE, FIRMWARE, QEMU_CPU, QEMU_MEM, ACCEL, QEMU_BIN are passed on to
#   scripts/qemu.sh (MACHINE: of every boot but the EXTRA_CONFIGS ones,
#   which name theirs, default pc; FIRMWARE: of every boot but the
#   UEFI_CPUS ones, which are OVMF's, default bios).
#
# Builds with `make O=$O RT=$RT LOCKDEP=$LOCKDEP elf` into that
# configuration's directory, $O/rt$RT-ld$LOCKDEP (`make builddir`), the one
# `make kernel`, `make grade` and the rest share. Logs go to $O/test-logs/.
# Every build, boot and host test is a job of the queue in
# scripts/lib/jobs.sh; each prints its lines when it ends, labelled with
# its configuration. The last two lines are `make test took N s` and
# `N passed, N failed`.
# Exit status: 0 if no failure of any kind and at least one test passed,
# 1 on test failures, 2 if the kernel or an ISO could not be built.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
source scripts/lib/jobs.sh
source scripts/lib/boot.sh
source scripts/lib/host-busy.sh

CPUS_LIST=${CPUS_LIST:-1}
RT_LIST=${RT_LIST:-1}
LOCKDEP=${LOCKDEP:-1}
KTEST=${KTEST:-*}
SILENCE=${SILENCE:-300}
TIMEOUT=${TIMEOUT:-3600}
O=${O:-build}
CORES=${CORES:-$(nproc 2>/dev/null || echo 2)}
JOBS=${JOBS:-$CORES}
LOGDIR=$O/test-logs
MACHINE=${MACHINE:-pc}
if [[ $KTEST == '*' ]]; then
	EXTRA_CONFIGS=${EXTRA_CONFIGS-q35:3}
	EXTRA_KTEST=${EXTRA_KTEST:-'boot.*,acpi.*,smp.*,nmi.*,time.*,percpu*,sched.*,migrate.*,hotplug*'}
	UEFI_CPUS=${UEFI_CPUS-2}
	UEFI_KTEST=${UEFI_KTEST:-'boot.*,firmware.*,acpi.*,smp.*,percpu*'}
else
	EXTRA_CONFIGS=${EXTRA_CONFIGS:-}
	EXTRA_KTEST=$KTEST
	UEFI_CPUS=${UEFI_CPUS:-}
	UEFI_KTEST=${UEFI_KTEST:-$KTEST}
fi

TOTAL_PASS=0 TOTAL_FAIL=0 TOTAL_SKIP=0

# clean_log LOG: the serial log without CRs and terminal escape sequences
# (GRUB clears the screen; that must not reach the user's terminal).
clean_log() {
	tr -d '\r' <"$1" | sed 's/\x1b\[[0-9;?=]*[A-Za-z]//g'
}

log_tail() {
	echo "    --- last 40 lines of $1 ---"
	clean_log "$1" | tail -n 40 | sed 's/^/    | /'
}
# parse_ktap LABEL LOG: prints FAIL lines for failed or missing test cases,
# then "@panic suite.name" for each panic test, "@xfail suite.name" for
# each expected-failure test, "@complete" when the report ran to its
# end, and "@counts PASS FAIL SKIP".
parse_ktap() {
	clean_log "$2" | awk -v label="$1" '
	function flush_suite(   m) {	# check the plan of the suite just ended
		if (!in_suite) return
		in_suite = 0; nsuites++
		if (splan < 0) {
			nfail++; sfail++
			printf "FAIL %s %s: no test plan\n", label, sname
		} else if (ncase < splan) {
			m = splan - ncase; nfail += m; sfail += m
			printf "FAIL %s %s: missing %d of %d results (last: %s)\n",
				label, sname, m, splan, ncase ? last : "none"
		} else if (ncase > splan) {
			nfail++; sfail++
			printf "FAIL %s %s: %d results for a plan of 1..%d\n",
				label, sname, ncase, splan
		}
	}
	function start_suite() {
		flush_suite()
		in_suite = 1; sname = "?"; splan = -1; ncase = 0; sfail = 0
		named = 0; ndiag = 0; last = ""
	}
	# Splits "ok N name # directive" (indentation removed) into RNAME, RDIR.
	function split_result(s) {
		sub(/^(not )?ok [0-9]+ */, "", s)
		RDIR = ""
		if (match(s, / *# /)) {
			RDIR = substr(s, RSTART + RLENGTH); s = substr(s, 1, RSTART - 1)
		}
		RNAME = s
	}
	BEGIN { top_plan = -1 }
	{ sub(/[ \t]+$/, "") }
	# Whatever precedes the report (BIOS, GRUB, boot messages) is ignored,
	# but for lockdep reports made during boot.
	!started && /^# ktest: .*(lockdep report|lock validator|boot option)/ {
		nfail++; printf "FAIL %s %s\n", label, substr($0, 3); next
	}
	!started { if (/KTAP version 1/) started = 1; next }
	/^    KTAP version/ { start_suite(); next }
	/^    # Subtest: / {
		if (!in_suite || named) start_suite()
		sname = substr($0, 16); named = 1; next
	}
	/^    1\.\.[0-9]+$/ { if (in_suite) splan = substr($0, 8) + 0; next }
	/^    (not )?ok [0-9]+/ && in_suite {
		line = substr($0, 5); split_result(line); ncase++; last = RNAME
		if (toupper(substr(RDIR, 1, 4)) == "SKIP") {
			nskip++
			if (RDIR == "SKIP panic test") print "@panic " sname "." RNAME
			if (RDIR == "SKIP expected-failure test") print "@xfail " sname "." RNAME
		} else if (line ~ /^not ok/) {
			nfail++; sfail++
			printf "FAIL %s %s.%s\n", label, sname, RNAME
			for (i = 1; i <= ndiag; i++) print diag[i]
		} else npass++
		ndiag = 0; next
	}
	/^[ \t]+#/ && in_suite { diag[++ndiag] = $0; next }
	/^1\.\.[0-9]+$/ { top_plan = substr($0, 4) + 0; next }
	/^(not )?ok [0-9]+/ {	# a suite result
		split_result($0)
		if (in_suite) { flush_suite() } else { nsuites++; sfail = 0; ncase = 0 }
		if (toupper(substr(RDIR, 1, 4)) == "SKIP") {
			if (!ncase) nskip++
		} else if (/^not ok/ && !sfail) {
			nfail++
			printf "FAIL %s %s: suite reported not ok\n", label, RNAME
		}
		next
	}
	END {
		flush_suite()
		if (!started) {
			nfail++; printf "FAIL %s no KTAP output\n", label
		} else if (top_plan < 0) {
			nfail++; printf "FAIL %s no top-level test plan\n", label
		} else if (nsuites < top_plan) {
			nfail += top_plan - nsuites
			printf "FAIL %s missing %d of %d suites (last: %s)\n", label,
				top_plan - nsuites, top_plan, nsuites ? sname : "none"
		} else print "@complete"
		printf "@counts %d %d %d\n", npass, nfail, nskip
	}'
}

# The build directory of each RT configuration (Makefile), asked once.
declare -A KDIR=()
kernel_dir() {
	make -s --no-print-directory O="$O" RT="$1" LOCKDEP="$LOCKDEP" builddir
}

# build RT (a job): build the kernel and the ISOs that run the selected
# tests. The compiler's lines go to $LOGDIR/build-rtRT.log, shown when
# the build fails.
build() {
	local dir=${KDIR[$1]} log=$LOGDIR/build-rt$1.log makeflags
	# Our -j replaces the jobserver of a parent `make test`, which would
	# otherwise warn "-jN forced in submake".
	makeflags=$(sed -E 's/--jobserver-(auth|fds)=[^ ]*//g' <<<"${MAKEFLAGS:-}")
	if ! MAKEFLAGS=$makeflags make -s -j"$JOBS" O="$O" RT="$1" LOCKDEP="$LOCKDEP" \
		elf >"$log" 2>&1 || [[ ! -f $dir/kernel.elf ]]; then
		echo "FAIL [rt$1] kernel build failed; the end of $log:"
		tail -n 30 "$log" | sed 's/^/    | /'
		return 2
	fi
	# The trailing comma keeps a glob that names one panic test exactly
	# from running it inside the matrix boot (it runs alone, below).
	bash scripts/build/mkiso.sh "$dir/kernel.elf" "ktest=$KTEST," "$dir/test.iso" ||
		return 2
	if [[ -n $EXTRA_CONFIGS ]]; then
		# Contended locks spin in ticket order here, as on a machine
		# of its own; the other boots spin test-and-set, as a guest
		# does (kernel/locking/spinlock.c).
		bash scripts/build/mkiso.sh "$dir/kernel.elf" \
			"ktest=$EXTRA_KTEST, virt_spin_lock=0" \
			"$dir/test-extra.iso" || return 2
	fi
	if [[ -n $UEFI_CPUS ]]; then
		bash scripts/build/mkiso.sh "$dir/kernel.elf" \
			"ktest=$UEFI_KTEST, ktest_firmware=efi" "$dir/test-uefi.iso" || return 2
	fi
	echo "[rt$1] built in $dir ($((SECONDS - START))s)"
}

# check_trace LABEL LOG: the scheduler trace dumps a test printed
# (tests/debug/trace.c) must parse, hold consistent events and convert to
# Perfetto JSON (scripts/trace2perfetto --check); one more test, passed or
# failed, in the caller's pass/fail counts. Nothing when LOG has no dump.
check_trace() {
	local out
	grep -q '^# TRACE begin' <(tr -d '\r' <"$2") || return 0
	if out=$(python3 scripts/trace2perfetto --check -o "$2.trace.json" "$2" 2>&1); then
		((pass++))
	else
		echo "FAIL $1 trace dump check:"
		sed 's/^/    /' <<<"$out"
		((fail++))
	fi
}

# run_config RT CPUS [TAG ISO [MACHINE [FIRMWARE]]] (a job): boot the
# test ISO (by default the matrix's, on $MACHINE and $FIRMWARE; TAG names
# another configuration in the label and the log) and report; the counts,
# the panic and expected-failure tests listed and whether the report was
# complete go to job_ended as @ lines.
run_config() {
	local iso=${4:-${KDIR[$1]}/test.iso} machine=${5:-$MACHINE}
	local FIRMWARE=${6:-${FIRMWARE:-bios}}
	export FIRMWARE
	local label="[rt$1${3:+ $3} cpus$2]" log=$LOGDIR/rt$1${3:+-$3}-cpus$2.log
	local start=$SECONDS pass=0 fail=0 skip=0 line reason
	boot "$iso" "$2" "$log" "$machine"
	while IFS= read -r line; do
		case $line in
		"@counts "*) read -r pass fail skip <<<"${line#@counts }" ;;
		*) echo "$line" ;;
		esac
	done < <(parse_ktap "$label" "$log")
	reason=$(abnormal_exit "$BOOT_RC" "$log")
	if [[ -n $reason ]]; then
		echo "FAIL $label $reason"
		log_tail "$log"
		((fail++))
	elif ((BOOT_RC == QEMU_SOME_FAILED && fail == 0)); then
		echo "FAIL $label kernel reported a failure not seen in the KTAP output"
		((fail++))
	fi
	check_trace "$label" "$log"
	echo "$label $pass passed, $fail failed, $skip skipped ($((SECONDS - start))s)"
	echo "@counts $pass $fail $skip"
}

# panic_test RT NAME CPUS [xfail] (a job): boot one panic test, or one
# expected-failure test, alone, and check its end: a panic test passes iff
# the kernel panicked, an expected-failure test iff the run ended with the
# test failed (and nothing worse), and every "# expect: TEXT" string shows
# up in the log after the expect lines.
panic_test() {
	local rt=$1 name=$2 xfail=${4:-} start=$SECONDS last text reason problems=()
	local label="[rt$rt panic] $name" log=$LOGDIR/rt$rt-panic-$name.log
	local iso=${KDIR[$rt]}/panic-$name.iso rc
	bash scripts/build/mkiso.sh "${KDIR[$rt]}/kernel.elf" "ktest=$name" "$iso" || return 2
	boot "$iso" "$3" "$log"
	rc=$BOOT_RC
	last=$(clean_log "$log" | grep -n '^[[:space:]]*# expect: ' | tail -n 1)
	last=${last%%:*}
	if [[ -n $xfail ]] && ((rc != QEMU_SOME_FAILED)); then
		reason=$(abnormal_exit "$rc" "$log")
		problems+=("expected the test to fail, got: ${reason:-the test passed (QEMU exit $rc)}")
	elif [[ -z $xfail ]] && ((rc != QEMU_PANIC)); then
		reason=$(abnormal_exit "$rc" "$log")
		problems+=("expected a kernel panic, got: ${reason:-the test returned (QEMU exit $rc)}")
	fi
	if [[ -z $last ]]; then
		problems+=("no '# expect:' line printed")
	else
		while IFS= read -r text; do
			# grep reads to the end (no -q): an early exit would
			# kill tail with SIGPIPE, and pipefail call it missing.
			clean_log "$log" | tail -n "+$((last + 1))" |
				grep -F -- "$text" >/dev/null ||
				problems+=("missing expected text: $text")
		done < <(clean_log "$log" | sed -n 's/^[[:space:]]*# expect: //p')
	fi
	if ((${#problems[@]} == 0)); then
		echo "ok $label ($((SECONDS - start))s)"
		echo "@counts 1 0 0"
		return
	fi
	echo "FAIL $label ($((SECONDS - start))s)"
	printf '    %s\n' "${problems[@]}"
	log_tail "$log"
	echo "@counts 0 1 0"
}

# host_test SCRIPT WEIGHT (a job): a host-side test boots what it needs
# from KERNEL under its own bounds; exit 0 is a pass, its output says why
# not.
host_test() {
	local name out start=$SECONDS
	name=$(basename "$1" .sh)
	# Weight 0: it takes what the other jobs leave, at LIGHT_NICE; else
	# its builds take as many make jobs as its weight.
	if out=$(KERNEL=${KDIR[${RTS[-1]}]}/kernel.elf O=$O JOBS=$(($2 ? $2 : 1)) \
		nice -n $(($2 ? 0 : LIGHT_NICE)) bash "$1" 2>&1); then
		echo "ok [host] $name ($((SECONDS - start))s)"
		echo "@counts 1 0 0"
	else
		echo "FAIL [host] $name ($((SECONDS - start))s)"
		sed 's/^/    | /' <<<"$out" | tail -n 40
		echo "@counts 0 1 0"
	fi
}

# host_weight SCRIPT: the host cores a host test keeps busy, from its
# "# cores: N" line (default 1: most boot one small QEMU at a time).
# host_takes SCRIPT: its "# takes: N s" line, the seconds it takes on a
# quiet 2-core host (default 0: short).
host_weight() {
	local n
	n=$(sed -n 's/^# cores: \([0-9][0-9]*\).*/\1/p' "$1" | head -n 1)
	echo "${n:-1}"
}
host_takes() {
	local n
	n=$(sed -n 's/^# takes: \([0-9][0-9]*\) s.*/\1/p' "$1" | head -n 1)
	echo "${n:-0}"
}

# boot_weight CPUS: the host cores a boot keeps busy. Under TCG each vCPU
# is a host thread, and a vCPU that waits for another one descheduled
# spins or sleeps until the host runs it: boots that share cores beyond
# their vCPUs waste time rather than save it. On average a boot of the
# suite on 2 host cores keeps only 1.1 cores busy on 2 CPUs (1.5 on 8),
# but its tests that hand work between CPUs need both at once: with 2-CPU
# boots weighing 1, two of them side by side took 70 s instead of 18 s,
# 60 s of it in sched.ping_pong_wakeups_never_lost's 100,000 cross-CPU
# wake-ups. The cores a boot leaves idle go to the host tests that weigh
# 0 (host_test).
boot_weight() {
	echo $(($1 < CORES ? $1 : CORES))
}

read -ra CPUS <<<"${CPUS_LIST//,/ }" # "1 4" or "1,4"
read -ra RTS <<<"${RT_LIST//,/ }"
read -ra EXTRAS <<<"${EXTRA_CONFIGS//,/ }" # "q35:3 pc:5"
read -ra UEFI <<<"${UEFI_CPUS//,/ }"
for c in "${CPUS[@]}" "${UEFI[@]}"; do
	[[ $c =~ ^[1-9][0-9]*$ ]] || { echo "bad CPUS_LIST or UEFI_CPUS entry: $c" >&2; exit 2; }
done
for c in "${EXTRAS[@]}"; do
	[[ $c =~ ^(pc|q35):[1-9][0-9]*$ ]] ||
		{ echo "bad EXTRA_CONFIGS entry: $c (MACHINE:CPUS, MACHINE pc or q35)" >&2; exit 2; }
done
if ((${#CPUS[@]} == 0 || ${#RTS[@]} == 0)); then
	echo "CPUS_LIST and RT_LIST must not be empty" >&2
	exit 2
fi
[[ $CORES =~ ^[1-9][0-9]*$ ]] || { echo "bad CORES: $CORES" >&2; exit 2; }

START=$SECONDS
JOB_CORES=$CORES JOB_DIR=$LOGDIR/jobs
mkdir -p "$JOB_DIR" || exit 2
# No stale logs from tests that no longer exist.
rm -f "$LOGDIR"/*.log "$LOGDIR"/*.limit "$JOB_DIR"/*
for rt in "${RTS[@]}"; do
	KDIR[$rt]=$(kernel_dir "$rt")
done

# Panic tests run alone, on the first CPU count of at least 2 (panics
# must stop the other CPUs too). Their names come from the matrix boots'
# reports: from the first that is complete, which lists every one, or,
# if every boot of the RT value ended early, from all of them together.
PANIC_CPUS=""
for c in "${CPUS[@]}"; do ((c >= 2)) && { PANIC_CPUS=$c; break; }; done
PANIC_CPUS=${PANIC_CPUS:-${CPUS[0]}}
declare -A MATRIX_LEFT=() PANIC_QUEUED=() PANIC_SEEN=() XFAIL=() START_LINE=()

# A panic boot's weight is 1: CPU 0 boots and runs one test while the
# other CPUs wait, halted, for the panic that stops them.
queue_panic_tests() {
	local rt=$1 name n=0
	PANIC_QUEUED[$rt]=1
	for name in $(tr ' ' '\n' <<<"${PANIC_SEEN[$rt]:-}" | sort -u); do
		job_add "panic-rt$rt-$name" 1 "" panic_test "$rt" "$name" "$PANIC_CPUS" \
			"${XFAIL[$rt:$name]:-}"
		((n++))
	done
	((n)) && echo "[rt$rt panic] $n panic or expected-failure test(s), alone on cpus$PANIC_CPUS"
}

# add_host_tests LONG: queue the host tests that take 45 s or more, longer
# than any boot but the 8-CPU ones (LONG=1), or the others (LONG=0); they
# need the last kernel.
add_host_tests() {
	local t w
	[[ $KTEST == '*' && ${HOST_TESTS:-1} == 1 ]] || return 0
	for t in tests/host/*.sh; do
		# labs.sh grades every lab's solution and starter: it is
		# `make labs-check`, a CI step of its own, not part of the matrix.
		[[ $t == */labs.sh || ! -f $t ]] && continue
		(( ($(host_takes "$t") >= 45) == $1 )) || continue
		w=$(host_weight "$t")
		job_add "host-$(basename "$t" .sh)" "$w" \
			"build-rt${RTS[-1]}" host_test "$t" "$w"
	done
}

# The host tests of weight 0 run at nice 10 when the host is idle as the
# run starts: they take the cores the boots leave idle without taking a
# boot's vCPU off its core. On a busy host (another job, LOAD=N) nice 10
# would starve them: a nice-10 thread gets a tenth of a busy one's share
# (beside four busy loops, the explorer, 155 s alone, was not done after
# 18 minutes), so they run at the boots' priority, and every job is
# slower alike.
if [[ -z ${LIGHT_NICE:-} ]]; then
	busy=$(host_busy_millicores)
	if ((busy < 500)); then
		LIGHT_NICE=10
	else
		LIGHT_NICE=0
		printf 'host busy (%d.%d cores) as the run starts: weight-0 host tests at nice 0\n' \
			$((busy / 1000)) $((busy % 1000 / 100))
	fi
fi

# The queue. Both builds first, so that every boot can start as soon as
# cores are free; then the host tests that take longest, which would end
# the run if they started last; then the boots, heaviest first, and the
# short host tests, so that the light jobs fill the gaps at the end. The
# panic tests join the queue as the matrix boots list them.
for rt in "${RTS[@]}"; do
	START_LINE[build-rt$rt]="[rt$rt] building (LOCKDEP=$LOCKDEP) in ${KDIR[$rt]}..."
	job_add "build-rt$rt" "$JOBS" "" build "$rt"
done
add_host_tests 1
# Every boot as "CPUS KIND" (KIND: the matrix's CPU count, an extra
# configuration's MACHINE, or uefi), most CPUs first.
mapfile -t BOOTS < <({
	printf '%s matrix\n' "${CPUS[@]}"
	for c in "${EXTRAS[@]}"; do echo "${c#*:} ${c%%:*}"; done
	((${#UEFI[@]})) && printf '%s uefi\n' "${UEFI[@]}"
} | sort -k1,1rn -s)
for b in "${BOOTS[@]}"; do
	read -r cpus kind <<<"$b"
	for rt in "${RTS[@]}"; do
		case $kind in
		matrix)
			id=boot-rt$rt-cpus$cpus label="[rt$rt cpus$cpus]" args=()
			MATRIX_LEFT[$rt]=$((${MATRIX_LEFT[$rt]:-0} + 1)) ;;
		uefi)
			id=boot-rt$rt-uefi-cpus$cpus label="[rt$rt uefi cpus$cpus]"
			args=(uefi "${KDIR[$rt]}/test-uefi.iso" "$MACHINE" uefi) ;;
		*)
			id=boot-rt$rt-$kind-cpus$cpus label="[rt$rt $kind cpus$cpus]"
			args=("$kind" "${KDIR[$rt]}/test-extra.iso" "$kind") ;;
		esac
		START_LINE[$id]="$label booting..."
		job_add "$id" "$(boot_weight "$cpus")" "build-rt$rt" \
			run_config "$rt" "$cpus" "${args[@]}"
	done
done
add_host_tests 0

job_started() {
	[[ -n ${START_LINE[$1]:-} ]] && echo "${START_LINE[$1]}"
}

# job_ended ID RC OUTPUT: print the job's lines, add its counts, and queue
# the panic tests a matrix boot listed.
job_ended() {
	local id=$1 rc=$2 line pass fail skip complete= rt
	while IFS= read -r line; do
		case $line in
		"@counts "*)
			read -r pass fail skip <<<"${line#@counts }"
			((TOTAL_PASS += pass, TOTAL_FAIL += fail, TOTAL_SKIP += skip)) ;;
		"@panic "* | "@xfail "*) ;;
		"@complete") complete=1 ;;
		*) echo "$line" ;;
		esac
	done <"$3"
	if [[ $id == build-* ]] && ((rc != 0)); then
		jobs_kill
		exit 2
	fi
	[[ $id =~ ^boot-rt([0-9]+)-cpus[0-9]+$ ]] || return 0
	rt=${BASH_REMATCH[1]}
	MATRIX_LEFT[$rt]=$((${MATRIX_LEFT[$rt]} - 1))
	[[ -n ${PANIC_QUEUED[$rt]:-} ]] && return 0
	[[ -n $complete ]] && PANIC_SEEN[$rt]=
	while IFS= read -r line; do
		case $line in
		"@panic "*) PANIC_SEEN[$rt]+=" ${line#@panic }" ;;
		"@xfail "*)
			PANIC_SEEN[$rt]+=" ${line#@xfail }"
			XFAIL[$rt:${line#@xfail }]=1 ;;
		esac
	done <"$3"
	if [[ -n $complete ]] || ((${MATRIX_LEFT[$rt]} == 0)); then
		queue_panic_tests "$rt"
	fi
}

on_signal() {
	jobs_kill
	echo "interrupted" >&2
	exit 130
}
trap on_signal INT TERM
trap jobs_kill EXIT

jobs_run || TOTAL_FAIL=$((TOTAL_FAIL + 1))

echo "$TOTAL_SKIP skipped"
echo "make test took $((SECONDS - START)) s"
echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
((TOTAL_FAIL == 0 && TOTAL_PASS > 0))
