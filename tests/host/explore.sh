#!/usr/bin/env bash
# The explorer in CI (docs/debugging.md): on its own kernel (EXPLORE=1
# EXPLORE_BUGS=1, one CPU, deterministic mode), the unit tests of the
# decision function and of the explore_only= lists pass; a planted bug
# (explore_bugs.missing_lock) fails under one of the first 8 seeds (the
# search finds it: which one depends on every decision point the kernel
# passes, so it moves when the kernel changes), that seed fails twice with
# identical serial logs and prints its seed and the command that replays
# it; and injecting nothing (explore_only=none) it passes, so the
# injections made the failure. The same for PCT (MODE=pct): the planted
# explore_bugs.sleep_as_grace_period, which no injection reaches, fails
# under one of the first 8 seeds, twice identically, and the log prints
# the run's probability bound. (Whether a change point is needed depends
# on the seed: a reader that ranks below the writer from the start fails
# with the priorities alone.)
#
# usage: O=BUILD_ROOT tests/host/explore.sh   (KERNEL is not used: the
# kernels `make test` builds have no explorer)
# cores: 0 (a build, then one vCPU in the deterministic mode, where the
# guest's time is its instruction count: it may run in the cores the
# boots leave idle, at a low priority, as slowly as they leave it to)
# takes: 155 s
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

# The host's bounds on a boot only catch a hung one (a boot here takes a
# few seconds of CPU); at a low priority on a busy host, allow for more.
export O=${O:-build} RT=1 LOCKDEP=0 CPUS=1 BOOT_TIMEOUT=${BOOT_TIMEOUT:-600}
dir=$(make -s --no-print-directory RT=1 LOCKDEP=0 EXPLORE=1 EXPLORE_BUGS=1 builddir)
out=$O/host-explore
mkdir -p "$out" || exit 1
make -s RT=1 LOCKDEP=0 EXPLORE=1 EXPLORE_BUGS=1 elf >/dev/null || exit 1

bash scripts/build/mkiso.sh "$dir/kernel.elf" 'ktest=explore.* ktest_seed=1' "$out/unit.iso" || exit 1
DETERMINISTIC=1 timeout -k 5 "$BOOT_TIMEOUT" bash scripts/qemu.sh "$out/unit.iso" 1 \
	</dev/null >"$out/unit.log" 2>&1
rc=$?
if ((rc != 33)) || ! grep -q '^    ok 5 ' "$out/unit.log"; then
	echo "explore.* unit tests: QEMU exit $rc, not 33 with 5 passed (log $out/unit.log)"
	exit 1
fi

KTEST=explore_bugs.missing_lock SEEDS=8 SHRINK=0 bash scripts/explore.sh \
	>"$out/search.out" 2>&1
seed=$(sed -n 's/^explore: explore_bugs.missing_lock: seed \([0-9]*\) FAILED.*/\1/p' \
	"$out/search.out" | head -n 1)
if [[ -z $seed ]]; then
	echo "missing_lock did not fail under any of seeds 1..8:"
	cat "$out/search.out"
	exit 1
fi
if ! KTEST=explore_bugs.missing_lock KSEED=$seed RUNS=2 bash scripts/explore.sh >"$out/replay.out" 2>&1; then
	echo "missing_lock under seed $seed did not fail twice with identical logs:"
	cat "$out/replay.out"
	exit 1
fi
log=$dir/explore_bugs.missing_lock/replay1.log
for want in "^explore: seed=$seed " "# explore: seed=$seed: [0-9]* decisions, [1-9][0-9]* injected" \
	"# explore: replay: make explore KTEST=explore_bugs.missing_lock KSEED=$seed "; do
	if ! tr -d '\r' <"$log" | grep -q -- "$want"; then
		echo "the failing run's log has no line matching: $want"
		exit 1
	fi
done

if ! KTEST=explore_bugs.missing_lock KSEED=$seed EXPLORE_ONLY=none RUNS=1 \
	bash scripts/explore.sh >"$out/none.out" 2>&1; then
	if ! grep -q 'explore-result: replay .* failed=0 ' "$out/none.out"; then
		cat "$out/none.out"
		exit 1
	fi
else
	echo "missing_lock failed with no injection at all: not the explorer's find"
	exit 1
fi

# PCT: search (with its calibration boot), replay twice, no change point.
t=explore_bugs.sleep_as_grace_period
KTEST=$t MODE=pct SEEDS=8 SHRINK=0 bash scripts/explore.sh >"$out/pct.out" 2>&1
pseed=$(sed -n 's/^explore-result: search .* found=1 seed=\([0-9]*\) .*/\1/p' "$out/pct.out")
steps=$(sed -n 's/^explore-result: search .* steps=\([0-9]*\).*/\1/p' "$out/pct.out")
if [[ -z $pseed ]]; then
	echo "$t did not fail under PCT with any of seeds 1..8:"
	cat "$out/pct.out"
	exit 1
fi
if ! KTEST=$t MODE=pct PCT_STEPS=$steps KSEED=$pseed RUNS=2 bash scripts/explore.sh \
	>"$out/pct-replay.out" 2>&1; then
	echo "$t under PCT seed $pseed did not fail twice with identical logs:"
	cat "$out/pct-replay.out"
	exit 1
fi
if ! tr -d '\r' <"$dir/$t/replay1.log" | grep -q -- "# explore: pct: .* probability >= 1/[0-9]"; then
	echo "the PCT run's log does not print its probability bound"
	exit 1
fi
echo "unit tests passed; seed $seed failed twice, identically; no injection passed;" \
	"PCT: seed $pseed (k=$steps) failed twice, identically"
