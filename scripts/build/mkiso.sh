#!/usr/bin/env bash
# Make a GRUB ISO that boots KERNEL_ELF with multiboot2, on BIOS and on
# UEFI firmware (a hybrid: El Torito entries for both, GRUB for each).
#
# usage: scripts/build/mkiso.sh KERNEL_ELF CMDLINE OUT_ISO
#
# MKISO_FIRMWARE: bios, uefi or both (default: both when GRUB's EFI
# modules, grub-efi-amd64-bin, are installed, else bios). A hybrid ISO
# takes about 0.8 s more to make than a BIOS-only one (1.7 s against 1.0 s
# on a busy 2-core host) and is 26 MiB instead of 16.
#
# CMDLINE is passed to the kernel verbatim (e.g. 'ktest=*'); it must not
# contain a single quote. Quiet on success; on failure prints grub-mkrescue's
# log. Several instances may run at once as long as OUT_ISO differs: all
# scratch files live in a private directory next to OUT_ISO, and the ISO is
# renamed into place only when complete.
set -euo pipefail

if [[ $# -ne 3 ]]; then
	echo "usage: $0 KERNEL_ELF CMDLINE OUT_ISO" >&2
	exit 2
fi
kernel=$1 cmdline=$2 out=$3

if [[ ! -f $kernel ]]; then
	echo "mkiso: $kernel: no such file" >&2
	exit 1
fi
if [[ $cmdline == *"'"* || $cmdline == *$'\n'* ]]; then
	echo "mkiso: command line must not contain a quote or newline" >&2
	exit 1
fi

GRUB_BIOS_DIR=/usr/lib/grub/i386-pc
GRUB_EFI_DIR=/usr/lib/grub/x86_64-efi
if [[ -d $GRUB_EFI_DIR ]]; then
	firmware=${MKISO_FIRMWARE:-both}
else
	firmware=${MKISO_FIRMWARE:-bios}
fi
case $firmware in
bios) platform_dirs=("$GRUB_BIOS_DIR") ;;
uefi) platform_dirs=("$GRUB_EFI_DIR") ;;
both) platform_dirs=("$GRUB_BIOS_DIR" "$GRUB_EFI_DIR") ;;
*)
	echo "mkiso: MKISO_FIRMWARE=$firmware: expected bios, uefi or both" >&2
	exit 2
	;;
esac
for d in "${platform_dirs[@]}"; do
	if [[ ! -d $d ]]; then
		echo "mkiso: $d missing: install $([[ $d == "$GRUB_EFI_DIR" ]] &&
			echo grub-efi-amd64-bin || echo grub-pc-bin) (scripts/deps.sh)" >&2
		exit 1
	fi
done

outdir=$(dirname -- "$out")
mkdir -p -- "$outdir"
tmp=$(mktemp -d "$outdir/.mkiso.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

mkdir -p "$tmp/iso/boot/grub"
# Without its debug information: GRUB reads the image through the
# firmware's disk calls, 1.2 s for the 9 MB of a LOCKDEP=1 kernel under
# TCG, at every boot; its 2.6 MB without them load in a quarter of that.
# Addresses and symbols are the same (GDB reads the debug information
# from the build directory's kernel.elf, and the kernel its own symbol
# table). OBJCOPY as the Makefile's: the cross toolchain's when there is
# one.
objcopy=${OBJCOPY:-$(command -v x86_64-elf-objcopy || echo objcopy)}
"$objcopy" --strip-debug -- "$kernel" "$tmp/iso/boot/kernel.elf"

# The command line is single-quoted so GRUB neither expands '$' nor tries
# wildcard expansion of '*'. GRUB also writes to the serial port so that its
# errors ("no multiboot header", ...) end up in the test logs; as a "dumb"
# terminal, set before it is switched on, it writes no escape sequences,
# only a "Booting" line before the kernel's output. Under EFI the
# firmware's console is the serial port too (OVMF), so GRUB writes to the
# port only, or every line would come twice; and there is no text mode to
# hand over, so gfxpayload=keep leaves the firmware's graphics mode as it
# is rather than failing to find one ("no suitable video mode").
# MKISO_GRUB_SERIAL=0 keeps GRUB on the (invisible) screen only.
{
	echo "set timeout=0"
	echo "set default=0"
	echo 'if [ "$grub_platform" = efi ]; then set gfxpayload=keep; fi'
	if [[ ${MKISO_GRUB_SERIAL:-1} == 1 ]]; then
		echo "serial --unit=0 --speed=115200"
		echo "terminfo serial dumb"
		echo 'if [ "$grub_platform" = efi ]; then'
		echo "	terminal_output serial"
		echo "else"
		echo "	terminal_output serial console"
		echo "fi"
	fi
	echo 'menuentry "percpu-kernel" {'
	# One single-quoted GRUB word per option: GRUB would wrap a word with
	# spaces in double quotes when it builds the kernel's command line.
	words=""
	set -f  # no pathname expansion of ktest=*
	for w in $cmdline; do words+=" '$w'"; done
	set +f
	echo "	multiboot2 /boot/kernel.elf$words"
	echo "	boot"
	echo "}"
} >"$tmp/iso/boot/grub/grub.cfg"

# One platform: -d names its modules; both: grub-mkrescue's default, every
# platform installed under /usr/lib/grub.
#
# The modules grub.cfg needs are built into GRUB's core image: loading
# each from the disk at every boot would cost a firmware disk call per
# block, and under TCG on a busy host each of those waits for QEMU's I/O
# thread to be scheduled (a 2-CPU boot reached the kernel after 23 s at
# host load 8, 1 s when idle). A BIOS-only image (the grader's) carries
# no other module, locale, font or theme: a quarter of the size.
modules="multiboot2 normal serial terminfo terminal test"
args=(-o "$tmp/out.iso" --modules="$modules")
((${#platform_dirs[@]} == 1)) && args+=(-d "${platform_dirs[0]}")
[[ $firmware == bios ]] &&
	args+=(--install-modules="$modules iso9660 biosdisk" --locales= --fonts= --themes=)

# grub-mkrescue (and the xorriso it runs) is chatty even on success.
if ! TMPDIR=$tmp grub-mkrescue "${args[@]}" "$tmp/iso" >"$tmp/log" 2>&1; then
	echo "mkiso: grub-mkrescue failed for $out:" >&2
	cat "$tmp/log" >&2
	exit 1
fi
mv -f -- "$tmp/out.iso" "$out"
