#!/usr/bin/env bash
# `make torture`: boot the kernel with torture=TYPES and check its report.
#
# usage: [VAR=value ...] scripts/torture.sh
#   TORTURE       glob list of torture types (default: every type)
#   TORTURE_SECS  seconds each type runs (default 10)
#   SEED          ktest_seed (default 1)
#   CPUS, RT, LOCKDEP, O as for `make`; DETERMINISTIC=1 replays a seed
#   TIMEOUT       seconds allowed for the boot (default: from the types)
#
# Passes when the kernel says every type ended in SUCCESS (QEMU exit 33)
# and each lock type printed its "Writes: ... Fail: 0" line. The serial
# log is kept in $O/torture.log.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2

TORTURE=${TORTURE:-*} TORTURE_SECS=${TORTURE_SECS:-10} SEED=${SEED:-1}
CPUS=${CPUS:-4} RT=${RT:-1} LOCKDEP=${LOCKDEP:-1} O=${O:-build}
dir=$(make -s --no-print-directory O="$O" RT="$RT" LOCKDEP="$LOCKDEP" builddir)
log=$O/torture.log
# Up to 9 types of TORTURE_SECS, lock_busted and rcu_busted up to 10
# seeds of 10 s each, under a slow host: generous.
TIMEOUT=${TIMEOUT:-$((9 * TORTURE_SECS * 4 + 800))}

make -s O="$O" RT="$RT" LOCKDEP="$LOCKDEP" elf || exit 2
cmdline="torture=$TORTURE torture_secs=$TORTURE_SECS ktest_seed=$SEED"
bash scripts/build/mkiso.sh "$dir/kernel.elf" "$cmdline" "$dir/torture.iso" || exit 2
echo "torture: $cmdline on $CPUS CPUs, RT=$RT (log: $log)"
timeout -k 5 "$TIMEOUT" bash scripts/qemu.sh "$dir/torture.iso" "$CPUS" \
	</dev/null >"$log" 2>&1
rc=$?
clean=$(tr -d '\r' <"$log" | sed 's/\x1b\[[0-9;?]*[A-Za-z]//g')
grep -E -- '-torture:( Writes|--- (Start|End)| seed=| counted| caught| replay| Reader Pipe| freed elements)|^torture:|soft lockup' <<<"$clean"
problems=()
((rc == 33)) || problems+=("QEMU exit $rc (33: every type passed; 124: timeout)")
while read -r name; do
	grep -q -- "^$name-torture: Writes: Total: [0-9]* Max/Min: [0-9]*/[0-9]* Fail: 0$" <<<"$clean" ||
		problems+=("$name: no final 'Writes: ... Fail: 0' line")
done < <(sed -n 's/^\([a-z_]*_lock\)-torture:--- End of test: .*/\1/p' <<<"$clean")
if grep -q '^rcu-torture:--- End of test' <<<"$clean"; then
	grep -q -- "^rcu-torture: Writes: Total: [0-9]* Reads: [0-9]* Fail: 0$" <<<"$clean" ||
		problems+=("rcu: no 'Writes: ... Fail: 0' line")
fi
grep -q 'BUG: soft lockup' <<<"$clean" && problems+=("a soft lockup was reported")
grep -q -E '^(WARNING|BUG|possible)' <<<"$clean" && problems+=("a lockdep report (see the log)")
if ((${#problems[@]})); then
	printf 'torture: FAIL: %s\n' "${problems[@]}"
	exit 1
fi
echo "torture: PASS"
