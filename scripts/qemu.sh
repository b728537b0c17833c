#!/usr/bin/env bash
# Boot an ISO in QEMU with the serial port on stdio and no display.
#
# usage: scripts/qemu.sh ISO CPUS [extra qemu args...]
#   e.g. scripts/qemu.sh build/kernel.iso 4 -s -S    (wait for GDB on :1234)
#
# Environment: QEMU_CPU (default max), QEMU_MEM (default 256M),
#              ACCEL (tcg or kvm, default tcg; kvm falls back to tcg if
#              /dev/kvm cannot be used), QEMU_ICOUNT (a shift N: the
#              deterministic mode, one instruction = 2^N ns of virtual
#              time, single-threaded TCG, virtual time jumping over idle
#              periods: the same run twice gives the same log).
#
# Exit status: when the guest writes VALUE to port 0xf4 (isa-debug-exit),
# QEMU exits with (VALUE << 1) | 1, e.g. 0x10 -> 33. A triple fault with
# -no-reboot, or a guest reset, exits with 0.
set -euo pipefail

if [[ $# -lt 2 ]]; then
	echo "usage: $0 ISO CPUS [extra qemu args...]" >&2
	exit 2
fi
iso=$1 cpus=$2
shift 2

accel=${ACCEL:-tcg}
if [[ $accel == kvm && ! (-r /dev/kvm && -w /dev/kvm) ]]; then
	echo "qemu.sh: warning: /dev/kvm is not usable, falling back to tcg" >&2
	accel=tcg
fi
# One host thread per vCPU, so that SMP races can really happen under TCG;
# icount needs a single one.
icount=()
if [[ -n ${QEMU_ICOUNT:-} ]]; then
	accel=tcg,thread=single
	icount=(-icount "shift=$QEMU_ICOUNT,sleep=off")
elif [[ $accel == tcg ]]; then
	accel=tcg,thread=multi
fi

exec qemu-system-x86_64 \
	-machine pc \
	-cpu "${QEMU_CPU:-max}" \
	-m "${QEMU_MEM:-256M}" \
	-smp "$cpus" \
	-accel "$accel" "${icount[@]}" \
	-cdrom "$iso" -boot d \
	-display none \
	-serial stdio \
	-monitor none \
	-no-reboot \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	"$@"
