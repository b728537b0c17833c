#!/usr/bin/env bash
# Install the Debian/Ubuntu packages needed to build the kernel, make a GRUB
# ISO (for BIOS and UEFI), run it in QEMU (on SeaBIOS or OVMF) and debug it
# with GDB.
#
# usage: scripts/deps.sh           install whatever is missing (silent if none)
#        scripts/deps.sh --check   exit 0 if everything is present, else 1
#        scripts/deps.sh --bench   the same, plus what `make rtlat` uses
#                                  for its plot (gnuplot); `make test`
#                                  never needs it
#        scripts/deps.sh --qemu-backports
#                                  opt in: replace the distribution's QEMU
#                                  with the one in its backports suite
#                                  (Debian 12: QEMU 10, which has x2APIC
#                                  under TCG, for tests/host/x2apic.sh and
#                                  -smp above 255; docs/boot.md). Changes
#                                  the system QEMU for every user.
#
# Each package is detected by a command or directory it provides rather than
# by dpkg, so tools installed some other way are accepted too.
set -euo pipefail

# "thing-to-check package": a name without a slash is a command on PATH.
REQUIREMENTS=(
	"qemu-system-x86_64 qemu-system-x86"
	"nasm nasm"
	"grub-mkrescue grub-common"
	"/usr/lib/grub/i386-pc grub-pc-bin" # BIOS GRUB modules for the ISO
	"/usr/lib/grub/x86_64-efi grub-efi-amd64-bin" # and UEFI ones (hybrid)
	"/usr/share/OVMF ovmf" # UEFI firmware for QEMU (FIRMWARE=uefi)
	"xorriso xorriso"
	"mformat mtools" # grub-mkrescue's EFI system partition image
	"gdb gdb"
	"python3 python3" # host checks (tests/host/), GDB helper checks
	"gcc gcc"
	"make make"
	"ld binutils"
	"objcopy binutils"
)
# Optional: only for the benchmarks' plots.
BENCH_REQUIREMENTS=(
	"gnuplot gnuplot-nox"
)
if [[ ${1:-} == --bench ]]; then
	REQUIREMENTS+=("${BENCH_REQUIREMENTS[@]}")
	shift
fi

# Prints the packages whose command/directory is missing, one per line.
missing_packages() {
	local req what pkg
	for req in "${REQUIREMENTS[@]}"; do
		read -r what pkg <<<"$req"
		if [[ $what == /* ]]; then
			[[ -d $what ]] && continue
		else
			command -v "$what" >/dev/null 2>&1 && continue
		fi
		echo "$pkg"
	done | sort -u
}

# Root through sudo when not root; sets as_root, or fails naming what for.
need_root() {
	if [[ $(id -u) -eq 0 ]]; then
		as_root=(env)
	elif command -v sudo >/dev/null 2>&1; then
		as_root=(sudo env)
	else
		echo "deps: need root or sudo to install: $*" >&2
		exit 1
	fi
}

# The backports suite of this Debian release (bookworm-backports on
# Debian 12), added as an APT source of its own, and qemu-system-x86 from
# it: APT never takes a backports package unless asked with -t, so
# nothing else on the system moves.
install_qemu_backports() {
	local codename list
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	if [[ -z $codename ]] || ! grep -qi debian /etc/os-release; then
		echo "deps: --qemu-backports needs Debian (found no Debian codename)" >&2
		exit 1
	fi
	need_root qemu-system-x86 from "$codename-backports"
	list=/etc/apt/sources.list.d/$codename-backports.list
	if ! grep -rqs "$codename-backports" /etc/apt/sources.list /etc/apt/sources.list.d; then
		echo "deb http://deb.debian.org/debian $codename-backports main" |
			"${as_root[@]}" tee "$list" >/dev/null
	fi
	"${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get update -q
	"${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends -t "$codename-backports" qemu-system-x86
	qemu-system-x86_64 --version | head -n 1
}

if [[ ${1:-} == --qemu-backports ]]; then
	install_qemu_backports
	exit 0
fi

mapfile -t missing < <(missing_packages)

if [[ ${1:-} == --check ]]; then
	if ((${#missing[@]} == 0)); then exit 0; else exit 1; fi
elif [[ $# -gt 0 ]]; then
	echo "usage: $0 [--check | --bench | --qemu-backports]" >&2
	exit 2
fi

((${#missing[@]} == 0)) && exit 0

echo "deps: installing ${missing[*]}"

if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: apt-get not found; please install the equivalent of: ${missing[*]}" >&2
	exit 1
fi

need_root "${missing[@]}"

# noninteractive: never stop on a debconf question (CI has no terminal).
"${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -q --no-install-recommends "${missing[@]}"

# Check again: a package name may exist but not provide what we expect.
mapfile -t still < <(missing_packages)
if ((${#still[@]} > 0)); then
	echo "deps: still missing after install: ${still[*]}" >&2
	exit 1
fi
