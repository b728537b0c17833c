#!/usr/bin/env bash
# The QEMU board switch (MACHINE=pc|q35, scripts/qemu.sh) and the extra
# configurations of the test matrix (EXTRA_CONFIGS, scripts/run-tests.sh):
# a board or an entry that does not exist is refused before anything
# boots, and the kernel boots on q35 with an odd CPU count, finding its
# CPUs and I/O APIC in q35's MADT and passing the ACPI and SMP suites.
#
# usage: KERNEL=ELF O=BUILD_ROOT tests/host/machine.sh
# cores: 2 (three CPUs on q35 running the SMP suite)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

dir=$O/host-machine
mkdir -p "$dir" || exit 1
status=0

# refused NAME WANT_TEXT CMD...: CMD must exit 2 and print WANT_TEXT.
refused() {
	local name=$1 want=$2 out rc
	shift 2
	out=$("$@" 2>&1 </dev/null)
	rc=$?
	if ((rc != 2)) || ! grep -qF -- "$want" <<<"$out"; then
		echo "FAIL $name: exit $rc (want 2), output:"
		sed 's/^/    | /' <<<"$out" | head -n 5
		status=1
	else
		echo "ok $name"
	fi
}

refused bad_machine "MACHINE=isapc: expected pc or q35" \
	env MACHINE=isapc bash scripts/qemu.sh "$dir/none.iso" 1
refused bad_extra_machine "bad EXTRA_CONFIGS entry: q36:3" \
	env O="$dir" EXTRA_CONFIGS="q35:3 q36:3" KTEST='acpi.*' \
	bash scripts/run-tests.sh
refused bad_extra_cpus "bad EXTRA_CONFIGS entry: q35:three" \
	env O="$dir" EXTRA_CONFIGS="q35:three" KTEST='acpi.*' \
	bash scripts/run-tests.sh

bash scripts/build/mkiso.sh "$KERNEL" "ktest=acpi.*,smp.*" "$dir/q35.iso" || exit 1
MACHINE=q35 timeout -k 5 300 bash scripts/qemu.sh "$dir/q35.iso" 3 </dev/null \
	>"$dir/q35.log" 2>&1
rc=$?
log=$(tr -d '\r' <"$dir/q35.log")
missing=()
for text in "MADT: 3 CPU(s), 1 I/O APIC(s)" "smpboot: 3 of 3 CPUs online" \
	"# ktest: " " 0 failed"; do
	grep -qF -- "$text" <<<"$log" || missing+=("$text")
done
if ((rc != 33 || ${#missing[@]})); then
	echo "FAIL q35_three_cpus: QEMU exit $rc (want 33)"
	printf '    missing: %s\n' "${missing[@]}"
	tail -n 20 <<<"$log" | sed 's/^/    | /'
	status=1
else
	echo "ok q35_three_cpus"
fi
exit $status
