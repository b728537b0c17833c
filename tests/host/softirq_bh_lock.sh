#!/usr/bin/env bash
# PREEMPT_RT without the BH lock (softirq.bh_lock=0, Linux 6.18's
# PREEMPT_RT_NEEDS_BH_LOCK=n; docs/softirq.md): the softirq tests and the
# detector corpus's softirq family again, on 2 CPUs, in the mode the
# matrix (BH lock on, the default) does not boot: there BHs off no longer
# keep a softirq out, and the checker must report data they alone
# protect (precision and recall 100% with the labels of that mode); and
# lab 10's softirq users, whose point is that mode. On an RT=0 kernel
# the option changes nothing and the same tests pass.
#
# usage: KERNEL=ELF O=BUILD_ROOT tests/host/softirq_bh_lock.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

dir=$O/host-softirq
mkdir -p "$dir" || exit 1
tests='softirq.*,percpu_corpus.softirq_family,lab10*'
bash scripts/build/mkiso.sh "$KERNEL" "ktest=$tests, softirq.bh_lock=0" \
	"$dir/nobh.iso" || exit 1
timeout -k 5 300 bash scripts/qemu.sh "$dir/nobh.iso" 2 </dev/null \
	>"$dir/nobh.log" 2>&1
rc=$?
log=$(tr -d '\r' <"$dir/nobh.log")
mode=$(grep -o 'softirq: ksoftirqd per CPU.*' <<<"$log")
if ((rc != 33)) || ! grep -q '# ktest: [0-9]* passed, 0 failed' <<<"$log" ||
	{ grep -q PREEMPT_RT <<<"$mode" && ! grep -q 'BH lock off' <<<"$mode"; }; then
	echo "FAIL softirq_bh_lock: QEMU exit $rc (want 33), mode: ${mode:-none}"
	grep -E 'not ok|# tests/|BUG|WARNING' <<<"$log" | head -n 10 | sed 's/^/    | /'
	exit 1
fi
echo "ok softirq_bh_lock (${mode#softirq: })"
