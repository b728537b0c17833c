#!/usr/bin/env bash
# The firmware's hand-over (docs/boot.md, "BIOS and UEFI"): the hybrid ISO
# boots on OVMF and the kernel says it took GRUB's EFI memory map and the
# RSDP from its tag; a configuration that expects EFI but was booted
# through BIOS fails firmware.tags_match_firmware; a machine with no ACPI
# at all (QEMU's acpi=off: no tag and nothing in the BIOS areas) boots on
# one CPU and says why; bad FIRMWARE and MKISO_FIRMWARE values are refused.
# OVMF without ACPI does not start at all, so the EFI case with no RSDP
# tag is the firmware suite's (rsdp_without_loader_tag).
#
# usage: KERNEL=ELF O=BUILD_ROOT tests/host/firmware.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

dir=$O/host-firmware
mkdir -p "$dir" || exit 1
status=0

# case_ NAME FIRMWARE CMDLINE RC TEXT... [-- QEMU ARGS]: boot CMDLINE on
# FIRMWARE with 2 CPUs; QEMU must exit RC and the log hold every TEXT.
case_() {
	local name=$1 fw=$2 cmdline=$3 want=$4 rc log texts=() missing=()
	shift 4
	while (($#)) && [[ $1 != -- ]]; do texts+=("$1"); shift; done
	(($#)) && shift
	bash scripts/build/mkiso.sh "$KERNEL" "$cmdline" "$dir/$name.iso" || exit 1
	FIRMWARE=$fw timeout -k 5 300 bash scripts/qemu.sh "$dir/$name.iso" 2 "$@" \
		</dev/null >"$dir/$name.log" 2>&1
	rc=$?
	log=$(tr -d '\r' <"$dir/$name.log")
	for text in "${texts[@]}"; do
		grep -qF -- "$text" <<<"$log" || missing+=("$text")
	done
	if ((rc != want || ${#missing[@]})); then
		echo "FAIL $name: QEMU exit $rc (want $want)"
		printf '    missing: %s\n' "${missing[@]}"
		grep -E 'Memory map|ACPI|smpboot|not ok|ktest:' <<<"$log" |
			head -n 12 | sed 's/^/    | /'
		status=1
	else
		echo "ok $name"
	fi
}

case_ uefi uefi 'ktest=firmware.* ktest_firmware=efi' 33 \
	"Memory map (EFI firmware, the EFI memory map):" \
	"ACPI: RSDP rev 2 from the loader's tag" \
	"smpboot: AP trampoline at 0x" "usable low memory in the EFI memory map" \
	"smpboot: 2 of 2 CPUs online" "# ktest: 5 passed, 0 failed"
case_ efi_expected_bios_booted bios 'ktest=firmware.tags_match_firmware ktest_firmware=efi' 35 \
	"Memory map (BIOS firmware, the loader's memory map):" \
	"not ok 1 tags_match_firmware"
case_ no_acpi bios 'ktest=boot.*' 33 \
	"ACPI: no RSDP: the loader passed none, and none is in the BIOS areas; booting on one CPU" \
	"# ktest: 10 passed, 0 failed" -- -machine pc,acpi=off

# bad_value NAME WANT_TEXT CMD...: CMD must exit 2 saying WANT_TEXT.
bad_value() {
	local name=$1 text=$2 out rc
	shift 2
	out=$("$@" 2>&1 </dev/null)
	rc=$?
	if ((rc == 2)) && grep -qF -- "$text" <<<"$out"; then
		echo "ok $name"
	else
		echo "FAIL $name: exit $rc, output: $out"
		status=1
	fi
}
bad_value bad_firmware "FIRMWARE=coreboot: expected bios or uefi" \
	env FIRMWARE=coreboot bash scripts/qemu.sh "$dir/uefi.iso" 1
bad_value bad_mkiso_firmware "MKISO_FIRMWARE=arm: expected bios, uefi or both" \
	env MKISO_FIRMWARE=arm bash scripts/build/mkiso.sh "$KERNEL" x "$dir/bad.iso"
exit $status
