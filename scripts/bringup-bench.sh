#!/usr/bin/env bash
# The AP bring-up figure of `make bench` (docs/boot.md, "Parallel
# bring-up"): how long the boot CPU takes to bring N APs online, over the
# time for one AP, for N = 1, 3, 7 (2, 4 and 8 CPUs). Each configuration
# boots BOOTS times (default 5) in the deterministic mode (DETERMINISTIC=1:
# one-threaded TCG with -icount, so the time is virtual and the host's
# load does not enter it), and its figure is the median of the boots'
# "smpboot: ... CPUs online, T us from the kick" lines, with the
# spread of the boots (max - min over the median).
#
# usage: KERNEL=ELF OUT=DIR RT=n [BOOTS=5] scripts/bringup-bench.sh
# Prints a table and writes DIR/rt$RT-bringup.json (one line per N).
# Exit status 1 if a boot did not print its line or not all CPUs came up.
set -uo pipefail
cd "$(dirname "$0")/.."

BOOTS=${BOOTS:-5}
TIMEOUT=${TIMEOUT:-600}
iso=$OUT/bringup-rt$RT.iso
json=$OUT/rt$RT-bringup.json
bash scripts/build/mkiso.sh "$KERNEL" 'kbench=none' "$iso" >/dev/null || exit 2

# median and spread of the numbers on stdin: "MEDIAN MIN MAX SPREAD%"
stats() {
	sort -n | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%d %d %d %d\n", m, v[1], v[NR], m ? (v[NR] - v[1]) * 100 / m : 0 }'
}

status=0
: >"$json"
# The figure depends on the QEMU (docs/boot.md, "What it costs"): say which.
qemu_version=$("${QEMU_BIN:-qemu-system-x86_64}" --version 2>/dev/null |
	grep -o 'version [0-9.]*' | head -n 1)
echo "[bench rt$RT-bringup] AP bring-up, deterministic mode (QEMU ${qemu_version#version }), median of $BOOTS boots"
printf '  %-4s %-5s %12s %10s %10s %7s %8s\n' APs CPUs "median us" "min" "max" spread ratio
one=
for aps in 1 3 7; do
	cpus=$((aps + 1))
	times=()
	for ((i = 1; i <= BOOTS; i++)); do
		log=$OUT/bringup-rt$RT-cpus$cpus-$i.log
		DETERMINISTIC=1 timeout -k 5 "$TIMEOUT" bash scripts/qemu.sh "$iso" "$cpus" \
			</dev/null >"$log" 2>&1
		line=$(tr -d '\r' <"$log" | grep -a "^smpboot: [0-9]* of $cpus CPUs online")
		if [[ $line != "smpboot: $cpus of $cpus CPUs online, "* ]]; then
			echo "  $cpus CPUs, boot $i: no full bring-up line; log $log" >&2
			status=1
			continue
		fi
		t=${line##*online, }
		times+=("${t%% us*}")
	done
	((${#times[@]})) || continue
	read -r med lo hi spread < <(printf '%s\n' "${times[@]}" | stats)
	[[ -z $one ]] && one=$med
	ratio=$(awk -v a="$med" -v b="$one" 'BEGIN { printf "%.2f", b ? a / b : 0 }')
	printf '  %-4s %-5s %12s %10s %10s %6s%% %7sx\n' "$aps" "$cpus" "$med" "$lo" "$hi" "$spread" "$ratio"
	printf '{"rt": %s, "bench": "smp_bringup", "qemu": "%s", "aps": %s, "cpus": %s, "median_us": %s, "min_us": %s, "max_us": %s, "runs": %s, "ratio_to_one_ap": %s}\n' \
		"$RT" "${qemu_version#version }" "$aps" "$cpus" "$med" "$lo" "$hi" "${#times[@]}" "$ratio" >>"$json"
done
echo "[bench rt$RT-bringup] ratio: bring-up of N APs over one AP (goal: <= 1.5x up to 8 CPUs)"
exit $status
