#!/usr/bin/env bash
# x2APIC (arch/x86_64/lapic.c, docs/boot.md): the same kernel image runs
# its local APICs in x2APIC mode when the CPU offers it, and then boots
# more than 255 CPUs. Needs a QEMU whose TCG has x2APIC (8.x or newer;
# Debian 12's 7.2 has not: `scripts/deps.sh --qemu-backports` installs
# QEMU 10, and --qemu-beside DIR unpacks it beside the distribution's);
# with any other QEMU it says why it skipped and passes, unless
# X2APIC_REQUIRED=1 (CI), when a skip is a failure.
#
# Boots: x2APIC on 2 CPUs with the smp and percpu suites, and on 4 with
# the sched suite too (its cross-CPU wake-ups are IPIs through the x2APIC;
# on 2 CPUs as well it only lengthened this test, which make test's
# boots wait for, by no path the 4-CPU boot does not take);
# the same image with x2APIC hidden from the CPU (-cpu max,-x2apic), which
# must run in xAPIC mode; and -smp 288 on q35 (i440fx stops at 255) with
# the boot suite, where all 288 CPUs must come online.
#
# usage: KERNEL=ELF O=BUILD_ROOT [X2APIC_QEMU_BIN=... | QEMU_BIN=...] \
#        [X2APIC_REQUIRED=1] [X2APIC_BIG_CPUS=288] tests/host/x2apic.sh
# X2APIC_QEMU_BIN is the QEMU for this test alone (the rest of the suite
# keeps QEMU_BIN or the one on PATH).
# cores: 2 (up to 288 CPUs)
# takes: 55 s
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

qemu=${X2APIC_QEMU_BIN:-${QEMU_BIN:-qemu-system-x86_64}}
# skip WHY: pass, saying why, or fail when the test is required.
skip() {
	if [[ ${X2APIC_REQUIRED:-0} == 1 ]]; then
		echo "x2apic: FAIL: required (X2APIC_REQUIRED=1) but $1"
		exit 1
	fi
	echo "x2apic: skipped ($1)"
	exit 0
}
big=${X2APIC_BIG_CPUS:-288}
dir=$O/host-x2apic
status=0

# QEMU warns "TCG doesn't support requested feature: CPUID.01H:ECX.x2apic"
# and starts the CPU without it when TCG lacks x2APIC.
version=$("$qemu" --version 2>/dev/null | grep -o 'version [0-9]*\.[0-9]*' |
	cut -d' ' -f2)
if [[ -z $version ]]; then
	skip "no QEMU at '$qemu'"
fi
probe=$(echo quit | timeout 60 "$qemu" -machine pc -accel tcg \
	-cpu max,+x2apic -display none -nodefaults -monitor stdio -S 2>&1)
if grep -qi 'x2apic' <<<"$probe"; then
	skip "QEMU $version has no x2APIC under TCG"
fi
echo "x2apic: $qemu, QEMU $version"

mkdir -p "$dir" || exit 1

# case NAME MACHINE CPUS CPU_MODEL KTEST TIMEOUT TEXT...: boot the kernel
# with ktest=KTEST; every test must pass and the log hold each TEXT.
case_() {
	local name=$1 machine=$2 cpus=$3 model=$4 ktest=$5 limit=$6
	local rc log text start missing=()
	shift 6
	bash scripts/build/mkiso.sh "$KERNEL" "ktest=$ktest" "$dir/$name.iso" ||
		exit 1
	start=$(date +%s)
	QEMU_BIN=$qemu MACHINE=$machine QEMU_CPU=$model \
		QEMU_MEM=${QEMU_MEM:-1G} timeout -k 5 "$limit" \
		bash scripts/qemu.sh "$dir/$name.iso" "$cpus" </dev/null \
		>"$dir/$name.log" 2>&1
	rc=$?
	log=$(tr -d '\r' <"$dir/$name.log")
	for text in "$@" "# ktest: "; do
		grep -qF -- "$text" <<<"$log" || missing+=("$text")
	done
	if ((rc != 33 || ${#missing[@]})); then
		echo "FAIL $name: QEMU exit $rc (want 33)"
		((${#missing[@]})) && printf '    missing: %s\n' "${missing[@]}"
		grep -E 'APIC|smpboot|not ok|ktest:|PANIC|panic' <<<"$log" |
			head -n 12 | sed 's/^/    | /'
		status=1
	else
		echo "ok $name ($(($(date +%s) - start)) s;" \
			"$(grep -o 'smpboot: .*CPUs online.*' <<<"$log" | head -n 1))"
	fi
}

suites='smp.*,percpu.*,sched.*'
case_ x2apic_2cpus pc 2 max 'smp.*,percpu.*' 600 \
	"APIC: x2APIC mode" "smpboot: 2 of 2 CPUs online"
case_ x2apic_4cpus pc 4 max "$suites" 900 \
	"APIC: x2APIC mode" "smpboot: 4 of 4 CPUs online"
case_ xapic_same_image pc 2 max,-x2apic 'smp.*' 600 \
	"APIC: xAPIC mode" "smpboot: 2 of 2 CPUs online"
case_ "x2apic_${big}cpus_q35" q35 "$big" max 'boot.*' 1800 \
	"APIC: x2APIC mode" "MADT: $big CPU(s)" \
	"smpboot: $big of $big CPUs online"
exit $status
