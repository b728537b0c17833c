#!/usr/bin/env bash
# DETERMINISTIC=1 is deterministic: the same image booted twice (contended
# locks, sleeping and waking tasks, timer ticks, timed loops) prints the
# same serial log, byte for byte. On one CPU: with more, QEMU 7.2's
# round-robin TCG is repeatable only most of the time (docs/debugging.md),
# and a test that passes most of the time is not a test.
#
# usage: KERNEL=ELF O=BUILD_ROOT tests/host/deterministic.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

dir=$O/host-deterministic
mkdir -p "$dir" || exit 1
bash scripts/build/mkiso.sh "$KERNEL" 'ktest=locks.* ktest_seed=7' "$dir/test.iso" || exit 1
for i in 1 2; do
	DETERMINISTIC=1 timeout -k 5 600 bash scripts/qemu.sh "$dir/test.iso" 1 \
		</dev/null >"$dir/run$i.log" 2>&1
	rc=$?
	if ((rc != 33)); then
		echo "run $i: QEMU exit $rc, not 33 (all tests passed); log $dir/run$i.log"
		exit 1
	fi
done
if ! grep -q '^    ok ' "$dir/run1.log"; then
	echo "run 1 shows no passed test: nothing was compared"
	exit 1
fi
if ! cmp -s "$dir/run1.log" "$dir/run2.log"; then
	echo "the two runs differ:"
	diff "$dir/run1.log" "$dir/run2.log" | head -n 20
	exit 1
fi
echo "$(wc -l <"$dir/run1.log") identical lines"
