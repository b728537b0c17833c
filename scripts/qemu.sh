#!/usr/bin/env bash
# Boot an ISO in QEMU with the serial port on stdio and no display.
#
# usage: scripts/qemu.sh ISO CPUS [extra qemu args...]
#   e.g. scripts/qemu.sh build/kernel.iso 4 -s -S    (wait for GDB on :1234)
#
# Environment: MACHINE (pc or q35, default pc: QEMU's i440FX board with
#              an ISA bridge, or its ICH9 board with PCIe, an LPC bridge
#              and an HPET; both boot the same image through SeaBIOS),
#              FIRMWARE (bios or uefi, default bios: SeaBIOS, or OVMF
#              from Debian's ovmf package; OVMF_CODE and OVMF_VARS name
#              other files),
#              QEMU_CPU (default max; max,-x2apic with DETERMINISTIC=1),
#              QEMU_MEM (default 256M),
#              ACCEL (tcg or kvm, default tcg; kvm falls back to tcg if
#              /dev/kvm cannot be used), DETERMINISTIC=1 (see below),
#              ICOUNT_SHIFT (default 0: one instruction = 1 ns),
#              QEMU_ICOUNT=N (DETERMINISTIC=1 with ICOUNT_SHIFT=N: make
#              rtlat's name for it), QEMU_MONITOR=PATH (the human
#              monitor on a Unix socket at PATH, for scripts that send it
#              commands such as nmi; default: no monitor),
#              QEMU_BIN (the QEMU binary, default qemu-system-x86_64 on
#              the PATH: e.g. a newer QEMU with x2APIC under TCG,
#              docs/boot.md).
#
# Exit status: when the guest writes VALUE to port 0xf4 (isa-debug-exit),
# QEMU exits with (VALUE << 1) | 1, e.g. 0x10 -> 33. A triple fault with
# -no-reboot, or a guest reset, exits with 0.
#
# QEMU_VERDICT=1 (what `make qemu` sets) translates that for a shell: one
# line saying how the kernel ended, and 0 when every test passed (or the
# kernel was only booted), 1 when a test failed, 2 on a kernel panic, 3
# when QEMU_VERDICT_NEEDED=1 (tests or benchmarks were asked for) and the
# kernel never gave its verdict (a reset or a triple fault).
set -euo pipefail

if [[ $# -lt 2 ]]; then
	echo "usage: $0 ISO CPUS [extra qemu args...]" >&2
	exit 2
fi
iso=$1 cpus=$2
shift 2

machine=${MACHINE:-pc}
case $machine in
pc | q35) ;;
*)
	echo "qemu.sh: MACHINE=$machine: expected pc or q35" >&2
	exit 2
	;;
esac
accel=${ACCEL:-tcg}
if [[ $accel == kvm && ! (-r /dev/kvm && -w /dev/kvm) ]]; then
	echo "qemu.sh: warning: /dev/kvm is not usable, falling back to tcg" >&2
	accel=tcg
fi
# QEMU_ICOUNT=N: the deterministic mode at shift N (make rtlat).
if [[ -n ${QEMU_ICOUNT:-} ]]; then
	DETERMINISTIC=1
	ICOUNT_SHIFT=$QEMU_ICOUNT
fi
# One host thread per vCPU, so that SMP races can really happen under TCG.
[[ $accel == tcg ]] && accel=tcg,thread=multi
# DETERMINISTIC=1: one host thread runs every vCPU in turn, and virtual time
# is the instruction count (sleep=off: an idle machine jumps to its next
# timer), the RTC too: the same image and seed print the same serial log.
# Exact on one CPU; with several, QEMU 7.2's round-robin kick can still
# switch vCPUs at a host-dependent instruction now and then, more often
# with a larger shift than 0 (docs/debugging.md).
# No x2APIC there: a QEMU whose TCG has it (10.0 here) aborts with "Bad
# icount read" when the kernel reads the APIC timer's count through its
# MSR under -icount; the memory-mapped register is read correctly.
det=()
cpu_model=${QEMU_CPU:-max}
if [[ ${DETERMINISTIC:-0} == 1 ]]; then
	accel=tcg,thread=single
	det=(-icount "shift=${ICOUNT_SHIFT:-0},sleep=off" -rtc base=2000-01-01,clock=vm)
	cpu_model=${QEMU_CPU:-max,-x2apic}
fi

# UEFI: OVMF's code read-only in the first flash chip, its variable store
# in the second. The firmware writes boot entries there: snapshot=on keeps
# those writes in a temporary overlay that goes with QEMU, so the package's
# file stays as it is and any number of QEMUs can share it.
#
# On SeaBIOS the ISO (a hybrid image, bootable as a disk too) is a
# virtio disk: SeaBIOS reads a CD-ROM a 2 KiB sector per I/O request,
# each waiting for QEMU's I/O thread, which on a busy host waits for a
# time slice (the boot up to the kernel's first line took 2 to 4 times
# as long). OVMF boots it as the CD-ROM it is.
firmware=() boot_disk=(-drive "file=$iso,format=raw,if=virtio,readonly=on")
case ${FIRMWARE:-bios} in
bios) ;;
uefi)
	ovmf_code=${OVMF_CODE:-/usr/share/OVMF/OVMF_CODE.fd}
	ovmf_vars=${OVMF_VARS:-/usr/share/OVMF/OVMF_VARS.fd}
	if [[ ! -f $ovmf_code || ! -f $ovmf_vars ]]; then
		echo "qemu.sh: FIRMWARE=uefi needs $ovmf_code and $ovmf_vars: install ovmf (scripts/deps.sh)" >&2
		exit 2
	fi
	firmware=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=$ovmf_code"
		-drive "if=pflash,format=raw,unit=1,snapshot=on,file=$ovmf_vars")
	boot_disk=(-cdrom "$iso" -boot d)
	;;
*)
	echo "qemu.sh: FIRMWARE=$FIRMWARE: expected bios or uefi" >&2
	exit 2
	;;
esac

monitor=(-monitor none)
if [[ -n ${QEMU_MONITOR:-} ]]; then
	monitor=(-monitor "unix:$QEMU_MONITOR,server=on,wait=off")
fi

qemu=("${QEMU_BIN:-qemu-system-x86_64}"
	-machine "$machine"
	-cpu "$cpu_model"
	-m "${QEMU_MEM:-256M}"
	-smp "$cpus"
	-accel "$accel"
	"${boot_disk[@]}"
	-nic none
	-display none
	-serial stdio
	"${monitor[@]}"
	"${firmware[@]}"
	-no-reboot
	-device isa-debug-exit,iobase=0xf4,iosize=0x04
	"${det[@]}" "$@")
# Plain runs exec QEMU, so that a timeout's signal reaches QEMU itself.
[[ ${QEMU_VERDICT:-0} == 1 ]] || exec "${qemu[@]}"

rc=0
"${qemu[@]}" || rc=$?
case $rc in
33) echo "qemu: PASSED: the kernel reported success (exit 33)"; exit 0 ;;
35) echo "qemu: FAILED: a test failed (exit 35)"; exit 1 ;;
37) echo "qemu: FAILED: kernel panic (exit 37)"; exit 2 ;;
0)
	if [[ ${QEMU_VERDICT_NEEDED:-0} == 1 ]]; then
		echo "qemu: FAILED: QEMU stopped without the kernel's verdict (reset or triple fault)"
		exit 3
	fi
	echo "qemu: QEMU stopped"; exit 0 ;;
*) echo "qemu: QEMU ended with status $rc"; exit "$rc" ;;
esac
