#!/usr/bin/env bash
# The host side of `make bench`: builds a benchmark kernel (LOCKDEP=0, so
# the validator's hooks cost nothing) for each RT setting, boots it with
# kbench=$KBENCH on $CPUS CPUs, prints each run's table and writes its
# figures as JSON lines to $O/bench/rt$RT.json (one object per figure:
# bench, variant, cpus, value, unit, plus rt).
#
# Environment: CPUS (default 4), RT_LIST (default "0 1"), KBENCH (glob,
# default '*'), TIMEOUT (seconds per boot, default 600), O (default build).
# Figures are for comparing within one run: QEMU on a shared host is noisy.
set -uo pipefail
cd "$(dirname "$0")/.."

CPUS=${CPUS:-4}
RT_LIST=${RT_LIST:-"0 1"}
KBENCH=${KBENCH:-'*'}
TIMEOUT=${TIMEOUT:-600}
O=${O:-build}
JOBS=${JOBS:-$(nproc)}
unset MAKEFLAGS MFLAGS

mkdir -p "$O/bench"
status=0
for rt in $RT_LIST; do
	dir=$O/bench-rt$rt
	log=$O/bench/rt$rt.log
	json=$O/bench/rt$rt.json
	echo "[bench rt$rt] building (LOCKDEP=0)..."
	if ! make -s -j"$JOBS" O="$dir" RT="$rt" LOCKDEP=0 kernel; then
		echo "[bench rt$rt] build failed" >&2
		exit 2
	fi
	bash scripts/mkiso.sh "$dir/kernel.elf" "kbench=$KBENCH" "$dir/bench.iso" || exit 2
	echo "[bench rt$rt] running on $CPUS CPUs..."
	timeout -k 5 "$TIMEOUT" bash scripts/qemu.sh "$dir/bench.iso" "$CPUS" \
		</dev/null >"$log" 2>&1
	rc=$?
	tr -d '\r' <"$log" | sed -n '/^== bench /,/^== bench done/p' | grep -v '^BENCH '
	tr -d '\r' <"$log" | sed -n 's/^BENCH {\(.*\)}$/{"rt": '"$rt"', \1}/p' >"$json"
	if [ "$rc" -ne 33 ] || ! grep -q '^== bench done' <(tr -d '\r' <"$log"); then
		echo "[bench rt$rt] FAILED (QEMU exit $rc); last lines of $log:" >&2
		tail -n 40 "$log" >&2
		status=1
	elif grep -q 'ERROR' "$log"; then
		status=1
	fi
	echo "[bench rt$rt] $(wc -l <"$json") figures in $json"
done
exit $status
