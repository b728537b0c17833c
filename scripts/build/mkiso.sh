#!/usr/bin/env bash
# Make a BIOS-bootable GRUB ISO that boots KERNEL_ELF with multiboot2.
#
# usage: scripts/build/mkiso.sh KERNEL_ELF CMDLINE OUT_ISO
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

# Only the BIOS platform: smaller, faster ISO, and no EFI image to build.
GRUB_PLATFORM_DIR=${GRUB_PLATFORM_DIR:-/usr/lib/grub/i386-pc}

outdir=$(dirname -- "$out")
mkdir -p -- "$outdir"
tmp=$(mktemp -d "$outdir/.mkiso.XXXXXX")
trap 'rm -rf -- "$tmp"' EXIT

mkdir -p "$tmp/iso/boot/grub"
cp -- "$kernel" "$tmp/iso/boot/kernel.elf"

# The command line is single-quoted so GRUB neither expands '$' nor tries
# wildcard expansion of '*'. GRUB also writes to the serial port so that its
# errors ("no multiboot header", ...) end up in the test logs; as a "dumb"
# terminal, set before it is switched on, it writes no escape sequences,
# only a "Booting" line before the kernel's output.
# MKISO_GRUB_SERIAL=0 keeps GRUB on the (invisible) VGA console only.
{
	echo "set timeout=0"
	echo "set default=0"
	if [[ ${MKISO_GRUB_SERIAL:-1} == 1 ]]; then
		echo "serial --unit=0 --speed=115200"
		echo "terminfo serial dumb"
		echo "terminal_output serial console"
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

args=(-o "$tmp/out.iso")
[[ -d $GRUB_PLATFORM_DIR ]] && args+=(-d "$GRUB_PLATFORM_DIR")

# grub-mkrescue (and the xorriso it runs) is chatty even on success.
if ! TMPDIR=$tmp grub-mkrescue "${args[@]}" "$tmp/iso" >"$tmp/log" 2>&1; then
	echo "mkiso: grub-mkrescue failed for $out:" >&2
	cat "$tmp/log" >&2
	exit 1
fi
mv -f -- "$tmp/out.iso" "$out"
