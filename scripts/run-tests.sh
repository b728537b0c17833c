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
#   TIMEOUT    seconds allowed per QEMU boot                 (default 300)
#   O          build root, relative to the repository root   (default build)
#   JOBS       parallel make jobs                            (default nproc)
#   PANIC_JOBS panic-test QEMUs run at the same time         (default 2)
#   HOST_TESTS 1: after a full run (KTEST='*'), also the host-side tests
#              tests/host/*.sh, given the last kernel built (default 1)
#   EXTRA_CONFIGS  more boots per RT setting, each MACHINE:CPUS, e.g.
#              "q35:3 pc:5" (default "q35:3" on a full run, KTEST='*', and
#              none otherwise); they run EXTRA_KTEST on a full run, KTEST
#              on another
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
# Exit status: 0 if no failure of any kind and at least one test passed,
# 1 on test failures, 2 if the kernel or an ISO could not be built.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

CPUS_LIST=${CPUS_LIST:-1}
RT_LIST=${RT_LIST:-1}
LOCKDEP=${LOCKDEP:-1}
KTEST=${KTEST:-*}
TIMEOUT=${TIMEOUT:-300}
O=${O:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
PANIC_JOBS=${PANIC_JOBS:-2}
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

# QEMU exit codes: the guest writes 0x10/0x11/0x12 to isa-debug-exit.
QEMU_ALL_PASSED=33 QEMU_SOME_FAILED=35 QEMU_PANIC=37

TOTAL_PASS=0 TOTAL_FAIL=0 TOTAL_SKIP=0
CHILDREN=() # running `timeout qemu` pids, killed if we are interrupted

on_signal() {
	((${#CHILDREN[@]})) && kill -TERM "${CHILDREN[@]}" 2>/dev/null
	echo "interrupted" >&2
	exit 130
}
trap on_signal INT TERM

# boot ISO CPUS LOG [MACHINE]: start QEMU in the background (so the trap
# above can run while we wait) under a timeout; sets BOOT_PID.
boot() {
	MACHINE=${4:-$MACHINE} timeout -k 5 "$TIMEOUT" bash scripts/qemu.sh "$1" "$2" \
		</dev/null >"$3" 2>&1 &
	BOOT_PID=$!
	CHILDREN+=("$BOOT_PID")
}

# wait_boot PID: wait for a boot() and set BOOT_RC to QEMU's exit status.
wait_boot() {
	wait "$1"
	BOOT_RC=$?
	local i
	for i in "${!CHILDREN[@]}"; do
		[[ ${CHILDREN[i]} == "$1" ]] && unset 'CHILDREN[i]'
	done
}

# Why a boot did not end with the kernel's own test verdict (empty if it did).
abnormal_exit() {
	case $1 in
	"$QEMU_ALL_PASSED" | "$QEMU_SOME_FAILED") ;;
	"$QEMU_PANIC") echo "kernel panic" ;;
	124 | 137) echo "timeout after ${TIMEOUT}s" ;;
	0) echo "guest reset or triple fault (QEMU exit 0)" ;;
	125 | 126 | 127) echo "could not run QEMU (exit $1)" ;;
	*) echo "QEMU or guest crash (exit $1)" ;;
	esac
}

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
# each expected-failure test, and "@counts PASS FAIL SKIP".
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
		}
		printf "@counts %d %d %d\n", npass, nfail, nskip
	}'
}

# kernel_dir RT: the build directory of the RT configuration (Makefile).
kernel_dir() {
	make -s --no-print-directory O="$O" RT="$1" LOCKDEP="$LOCKDEP" builddir
}

# build RT: build the kernel and the ISO running every selected test.
build() {
	local dir
	dir=$(kernel_dir "$1")
	echo "[rt$1] building (LOCKDEP=$LOCKDEP) in $dir..."
	# Our -j replaces the jobserver of a parent `make test`, which would
	# otherwise warn "-jN forced in submake".
	local makeflags
	makeflags=$(sed -E 's/--jobserver-(auth|fds)=[^ ]*//g' <<<"${MAKEFLAGS:-}")
	if ! MAKEFLAGS=$makeflags make -s -j"$JOBS" O="$O" RT="$1" LOCKDEP="$LOCKDEP" elf ||
		[[ ! -f $dir/kernel.elf ]]; then
		echo "FAIL [rt$1] kernel build failed (no $dir/kernel.elf)"
		exit 2
	fi
	# The trailing comma keeps a glob that names one panic test exactly
	# from running it inside the matrix boot (it runs alone, below).
	bash scripts/build/mkiso.sh "$dir/kernel.elf" "ktest=$KTEST," "$dir/test.iso" ||
		exit 2
	if [[ -n $EXTRA_CONFIGS ]]; then
		bash scripts/build/mkiso.sh "$dir/kernel.elf" "ktest=$EXTRA_KTEST," \
			"$dir/test-extra.iso" || exit 2
	fi
	if [[ -n $UEFI_CPUS ]]; then
		bash scripts/build/mkiso.sh "$dir/kernel.elf" \
			"ktest=$UEFI_KTEST, ktest_firmware=efi" "$dir/test-uefi.iso" || exit 2
	fi
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

# run_config RT CPUS [TAG ISO [MACHINE]]: boot the test ISO (by default
# the matrix's, on $MACHINE; TAG names another configuration in the label
# and the log), report, and add to the totals. Panic tests seen are
# appended to PANIC_TESTS when COLLECT_PANIC=1, and expected-failure tests
# too, marked in XFAIL.
run_config() {
	local iso=${4:-$(kernel_dir "$1")/test.iso} machine=${5:-$MACHINE}
	local label="[rt$1${3:+ $3} cpus$2]" log=$LOGDIR/rt$1${3:+-$3}-cpus$2.log
	local start=$SECONDS pass=0 fail=0 skip=0 line reason
	echo "$label booting..."
	boot "$iso" "$2" "$log" "$machine"
	wait_boot "$BOOT_PID"
	while IFS= read -r line; do
		case $line in
		"@counts "*) read -r pass fail skip <<<"${line#@counts }" ;;
		"@panic "*) ((COLLECT_PANIC)) && PANIC_TESTS+=("${line#@panic }") ;;
		"@xfail "*)
			if ((COLLECT_PANIC)); then
				PANIC_TESTS+=("${line#@xfail }")
				XFAIL[${line#@xfail }]=1
			fi ;;
		*) echo "$line" ;;
		esac
	done < <(parse_ktap "$label" "$log")
	reason=$(abnormal_exit "$BOOT_RC")
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
	((TOTAL_PASS += pass, TOTAL_FAIL += fail, TOTAL_SKIP += skip))
}

# check_panic LABEL LOG RC [xfail]: a panic test passes iff the kernel
# panicked, an expected-failure test iff the run ended with the test failed
# (and nothing worse), and every "# expect: TEXT" string shows up in the
# log after the expect lines.
check_panic() {
	local label=$1 log=$2 rc=$3 xfail=${4:-} last text reason problems=()
	last=$(clean_log "$log" | grep -n '^[[:space:]]*# expect: ' | tail -n 1)
	last=${last%%:*}
	if [[ -n $xfail ]] && ((rc != QEMU_SOME_FAILED)); then
		reason=$(abnormal_exit "$rc")
		problems+=("expected the test to fail, got: ${reason:-the test passed (QEMU exit $rc)}")
	elif [[ -z $xfail ]] && ((rc != QEMU_PANIC)); then
		reason=$(abnormal_exit "$rc")
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
		echo "ok $label"
		((TOTAL_PASS++))
		return
	fi
	echo "FAIL $label"
	printf '    %s\n' "${problems[@]}"
	log_tail "$log"
	((TOTAL_FAIL++))
}

# run_panic_tests RT: boot each collected panic (and expected-failure) test
# alone, PANIC_JOBS at a time, on the first CPU count >= 2 (panics must stop
# the other CPUs too).
run_panic_tests() {
	local rt=$1 cpus="" c name i j start=$SECONDS pids=()
	((${#PANIC_TESTS[@]})) || return 0
	for c in "${CPUS[@]}"; do ((c >= 2)) && { cpus=$c; break; }; done
	cpus=${cpus:-${CPUS[0]}}
	echo "[rt$rt panic] ${#PANIC_TESTS[@]} panic or expected-failure test(s), cpus$cpus, booting..."
	for name in "${PANIC_TESTS[@]}"; do
		bash scripts/build/mkiso.sh "$(kernel_dir "$rt")/kernel.elf" "ktest=$name" \
			"$(kernel_dir "$rt")/panic-$name.iso" || exit 2
	done
	for ((i = 0; i < ${#PANIC_TESTS[@]}; i += PANIC_JOBS)); do
		pids=()
		for name in "${PANIC_TESTS[@]:i:PANIC_JOBS}"; do
			boot "$(kernel_dir "$rt")/panic-$name.iso" "$cpus" "$LOGDIR/rt$rt-panic-$name.log"
			pids+=("$BOOT_PID")
		done
		for j in "${!pids[@]}"; do
			name=${PANIC_TESTS[i + j]}
			wait_boot "${pids[j]}"
			check_panic "[rt$rt panic] $name" "$LOGDIR/rt$rt-panic-$name.log" \
				"$BOOT_RC" "${XFAIL[$name]:-}"
		done
	done
	echo "[rt$rt panic] done ($((SECONDS - start))s)"
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

mkdir -p "$LOGDIR" || exit 2
rm -f "$LOGDIR"/*.log # no stale logs from tests that no longer exist

for rt in "${RTS[@]}"; do
	build "$rt"
	# Collected from every configuration (one that crashed early lists
	# none), once each.
	PANIC_TESTS=() COLLECT_PANIC=1
	declare -A XFAIL=()
	for cpus in "${CPUS[@]}"; do
		run_config "$rt" "$cpus"
	done
	COLLECT_PANIC=0
	for c in "${EXTRAS[@]}"; do
		run_config "$rt" "${c#*:}" "${c%%:*}" \
			"$(kernel_dir "$rt")/test-extra.iso" "${c%%:*}"
	done
	if ((${#PANIC_TESTS[@]})); then
		mapfile -t PANIC_TESTS < <(printf '%s\n' "${PANIC_TESTS[@]}" | sort -u)
	fi
	run_panic_tests "$rt"
	for cpus in "${UEFI[@]}"; do
		FIRMWARE=uefi run_config "$rt" "$cpus" uefi "$(kernel_dir "$rt")/test-uefi.iso"
	done
done

# run_host_test SCRIPT: a host-side test boots what it needs from KERNEL
# under its own timeouts; exit 0 is a pass, its output says why not.
run_host_test() {
	local name out
	name=$(basename "$1" .sh)
	if out=$(KERNEL=$(kernel_dir "${RTS[-1]}")/kernel.elf O=$O bash "$1" 2>&1); then
		echo "ok [host] $name"
		((TOTAL_PASS++))
	else
		echo "FAIL [host] $name"
		sed 's/^/    | /' <<<"$out" | tail -n 40
		((TOTAL_FAIL++))
	fi
}
if [[ $KTEST == '*' && ${HOST_TESTS:-1} == 1 ]]; then
	for t in tests/host/*.sh; do
		# labs.sh grades every lab's solution and starter: it is
		# `make labs-check`, a CI step of its own, not part of the matrix.
		[[ $t == */labs.sh ]] && continue
		[[ -f $t ]] && run_host_test "$t"
	done
fi

echo "$TOTAL_SKIP skipped"
echo "$TOTAL_PASS passed, $TOTAL_FAIL failed"
((TOTAL_FAIL == 0 && TOTAL_PASS > 0))
