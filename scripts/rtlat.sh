#!/usr/bin/env bash
# The host side of `make rtlat`: the realtime latency experiment of
# docs/realtime.md. For RT=0 and RT=1 it builds a kernel (LOCKDEP=0) in
# $O/rt$RT-ld0, boots it with kbench=rtlat on $CPUS CPUs, and the RT=1
# kernel once more without the BH lock (softirq.bh_lock=0; run "rt1-nobh"),
# and keeps for each run R (rt0, rt1, rt1-nobh):
#
#   $O/bench/rtlat-$R.log   the serial log
#   $O/bench/rtlat-$R.txt   the cyclictest-format output (status lines,
#                           --histogram buckets and summaries)
#   $O/bench/rtlat-$R.json  one JSON object per run (RTLAT lines)
#
# then scripts/rtlat-report prints the table of ratios (max thread latency
# over the section length L, against the design's prediction) and writes
# $O/bench/rtlat-table.txt, rtlat.dat and, when gnuplot is there,
# rtlat.png.
#
# Environment: CPUS (default 2), RTLAT_CPU (the measured CPU, default the
# last), ICOUNT (default 2: the deterministic mode, QEMU -icount shift=2,
# single-threaded TCG, figures repeat exactly; empty: wall-clock mode, one
# host thread per vCPU, figures include the host's scheduling), TIMEOUT
# (seconds per boot, default 600), O (default build).
# Exit status: 2 if a build failed, 1 if a boot or the report failed.
set -uo pipefail
cd "$(dirname "$0")/.."

CPUS=${CPUS:-2}
ICOUNT=${ICOUNT-2}
TIMEOUT=${TIMEOUT:-600}
O=${O:-build}
JOBS=${JOBS:-$(nproc)}
unset MAKEFLAGS MFLAGS

cmdline="kbench=rtlat${RTLAT_CPU:+ rtlat_cpu=$RTLAT_CPU}"
if [ -n "$ICOUNT" ]; then
	echo "[rtlat] deterministic mode: -icount shift=$ICOUNT, single-threaded TCG"
else
	echo "[rtlat] wall-clock mode: multi-threaded TCG"
	if [ "$CPUS" -gt "$(nproc)" ]; then
		echo "[rtlat] WARNING: $CPUS vCPUs on $(nproc) host cores: latencies" \
			"include vCPUs waiting for a host core"
	fi
fi
mkdir -p "$O/bench"
status=0
# One boot: run name, RT, extra boot options.
boot() {
	local run=$1 rt=$2 extra=$3 dir log rc
	dir=$(make -s --no-print-directory O="$O" RT="$rt" LOCKDEP=0 builddir)
	log=$O/bench/rtlat-$run.log
	echo "[rtlat $run] building..."
	if ! make -s -j"$JOBS" O="$O" RT="$rt" LOCKDEP=0 elf; then
		echo "[rtlat $run] build failed" >&2
		exit 2
	fi
	bash scripts/build/mkiso.sh "$dir/kernel.elf" "$cmdline$extra" \
		"$dir/rtlat-$run.iso" || exit 2
	echo "[rtlat $run] running on $CPUS CPUs..."
	QEMU_ICOUNT=$ICOUNT timeout -k 5 "$TIMEOUT" bash scripts/qemu.sh \
		"$dir/rtlat-$run.iso" "$CPUS" </dev/null >"$log" 2>&1
	rc=$?
	tr -d '\r' <"$log" | sed -n '/^== bench rtlat/,/^== bench done/p' |
		grep -v '^RTLAT \|^== ' >"$O/bench/rtlat-$run.txt"
	tr -d '\r' <"$log" | sed -n 's/^RTLAT //p' >"$O/bench/rtlat-$run.json"
	if [ "$rc" -ne 33 ] || grep -q ERROR "$log"; then
		echo "[rtlat $run] FAILED (QEMU exit $rc); last lines of $log:" >&2
		tail -n 30 "$log" >&2
		status=1
	fi
	echo "[rtlat $run] $(wc -l <"$O/bench/rtlat-$run.json") runs in $O/bench/rtlat-$run.json"
}

boot rt0 0 ""
boot rt1 1 ""
boot rt1-nobh 1 " softirq.bh_lock=0"
python3 scripts/rtlat-report "$O/bench" || status=1
exit $status
