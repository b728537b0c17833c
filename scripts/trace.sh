#!/usr/bin/env bash
# The host side of `make trace`: boot the tests $KTEST selects with the
# scheduler trace on from before the first test to after the last
# (kernel command line "trace"), then turn its dump into
#
#   $O/trace/trace.log    the serial log
#   $O/trace/trace.json   Chrome/Perfetto JSON: open it in ui.perfetto.dev
#   $O/trace/trace.txt    ftrace-style text
#
# and check it (scripts/trace2perfetto --check).
# Environment: KTEST (default '*'), CPUS (default 4), RT, LOCKDEP (as for
# make), TIMEOUT (default 300), O (default build).
set -uo pipefail
cd "$(dirname "$0")/.."

KTEST=${KTEST:-*}
CPUS=${CPUS:-4}
RT=${RT:-1}
LOCKDEP=${LOCKDEP:-1}
TIMEOUT=${TIMEOUT:-300}
O=${O:-build}
unset MAKEFLAGS MFLAGS
dir=$O/trace
mkdir -p "$dir"
kdir=$(make -s --no-print-directory O="$O" RT="$RT" LOCKDEP="$LOCKDEP" builddir)
if ! make -s -j"$(nproc)" O="$O" RT="$RT" LOCKDEP="$LOCKDEP" elf; then
	echo "[trace] build failed" >&2
	exit 2
fi
# The trailing comma: a glob naming one panic test does not run it.
bash scripts/build/mkiso.sh "$kdir/kernel.elf" "ktest=$KTEST, trace" \
	"$dir/trace.iso" || exit 2
echo "[trace] running ktest=$KTEST on $CPUS CPUs (RT=$RT)..."
timeout -k 5 "$TIMEOUT" bash scripts/qemu.sh "$dir/trace.iso" "$CPUS" \
	</dev/null >"$dir/trace.log" 2>&1
echo "[trace] QEMU exit $?"
python3 scripts/trace2perfetto --check -o "$dir/trace.json" \
	--text "$dir/trace.txt" "$dir/trace.log"
