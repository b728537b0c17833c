#!/usr/bin/env bash
# Boot options are validated (kernel/cmdline.c, docs/boot.md): each bad
# value is refused with a line naming the option and the accepted range,
# the default is kept, and the run it belongs to (tests, torture, a
# benchmark) fails; a command line longer than the kernel keeps is
# reported. One boot per case, on 2 CPUs, and a control with good values.
#
# usage: KERNEL=ELF O=BUILD_ROOT tests/host/bootopts.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

dir=$O/host-bootopts
mkdir -p "$dir" || exit 1
status=0
pad=$(printf 'x%.0s' {1..1100})

# case NAME CMDLINE RC TEXT...: boot CMDLINE; QEMU must exit RC and the log
# hold every TEXT.
case_() {
	local name=$1 cmdline=$2 want=$3 rc log text missing=()
	shift 3
	bash scripts/build/mkiso.sh "$KERNEL" "$cmdline" "$dir/$name.iso" || exit 1
	timeout -k 5 300 bash scripts/qemu.sh "$dir/$name.iso" 2 </dev/null \
		>"$dir/$name.log" 2>&1
	rc=$?
	log=$(tr -d '\r' <"$dir/$name.log")
	for text in "$@"; do
		grep -qF -- "$text" <<<"$log" || missing+=("$text")
	done
	if ((rc != want || ${#missing[@]})); then
		echo "FAIL $name: QEMU exit $rc (want $want)"
		printf '    missing: %s\n' "${missing[@]}"
		grep -E 'cmdline|ktest:|torture:|ERROR' <<<"$log" | head -n 10 | sed 's/^/    | /'
		status=1
	else
		echo "ok $name"
	fi
}

case_ control 'ktest=kstrtox.* ktest_timeout=30 ktest_seed=5' 33 \
	"ktest: each test bounded to 30 s" "# ktest: 4 passed, 0 failed"
case_ timeout_overflow 'ktest=kstrtox.* ktest_timeout=18446744074' 35 \
	"cmdline: ktest_timeout=18446744074 refused: out of range; accepted: 1 to 86400; the default 300 is kept" \
	"ktest: each test bounded to 300 s" \
	"# ktest: 1 boot option(s) refused (see above): counted as a failure"
case_ seed_not_a_number 'ktest=kstrtox.* ktest_seed=abc' 35 \
	"cmdline: ktest_seed=abc refused: not a number; accepted: 0 to 18446744073709551615; the default 1 is kept" \
	"# ktest: 1 boot option(s) refused"
case_ torture_secs 'torture=spin_lock torture_secs=abc' 35 \
	"cmdline: torture_secs=abc refused: not a number; accepted: 1 to 3600; the default 10 is kept" \
	"torture: ktest_seed=1 torture=spin_lock torture_secs=10" \
	"torture: 1 boot option(s) refused (see above): not run, failed"
case_ rtlat_cpu 'kbench=rtlat rtlat_cpu=300' 33 \
	"cmdline: rtlat_cpu=300 refused: out of range; accepted: 0 to 1; the default 1 is kept" \
	"ERROR: rtlat: boot option refused (see above): nothing measured" \
	"ERROR: 1 boot option(s) refused (see above)"
case_ rt_runtime_off 'ktest=kstrtox.* sched_rt_runtime_us=-1' 33 \
	"sched: RT throttling off (sched_rt_runtime_us=-1)" "# ktest: 4 passed, 0 failed"
case_ rt_runtime_range 'ktest=kstrtox.* sched_rt_runtime_us=2000000' 35 \
	"cmdline: sched_rt_runtime_us=2000000 refused: out of range; accepted: -1 to 1000000; the default 950000 is kept" \
	"sched: RT tasks get 950000 of every 1000000 us on each CPU" \
	"# ktest: 1 boot option(s) refused"
case_ rt_runtime_zero 'ktest=kstrtox.* sched_rt_runtime_us=0' 35 \
	"cmdline: sched_rt_runtime_us=0 refused: out of range; accepted: -1, or 1000 to 1000000; the default 950000 is kept" \
	"# ktest: 1 boot option(s) refused"
case_ cmdline_too_long "ktest=kstrtox.* pad=$pad" 35 \
	"cmdline: the command line has 1120 bytes; only the first 1023 are kept, the options after them are lost" \
	"# ktest: 1 boot option(s) refused"
exit $status
