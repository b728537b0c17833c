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
#        scripts/deps.sh --qemu-beside DIR
#                                  the same QEMU unpacked under DIR, beside
#                                  the distribution's, which stays the one
#                                  on PATH; prints the binary's path (for
#                                  QEMU_BIN or X2APIC_QEMU_BIN). What CI
#                                  does for tests/host/x2apic.sh.
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

# The backports suite's QEMU unpacked under DIR, beside the
# distribution's. APT runs with a source list, package lists and cache of
# its own under DIR, so the system's sources and lists are not touched;
# `apt-get download` fetches qemu-system-x86, qemu-system-data and seabios
# from the backports suite and dpkg-deb unpacks them under DIR/root. QEMU
# finds its data and firmware relative to its own binary (it relocates
# its configured paths from where it runs). The libraries it links to are
# the distribution's own: any it lacks are installed from the ordinary
# suites (root). Prints the binary's path on stdout, the rest on stderr.
install_qemu_beside() {
	local dir=$1 codename apt_opts deb libs=() missing=() lib
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	if [[ -z $codename ]] || ! grep -qi debian /etc/os-release; then
		echo "deps: --qemu-beside needs Debian (found no Debian codename)" >&2
		exit 1
	fi
	mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" \
		"$dir/debs"
	dir=$(cd "$dir" && pwd)
	echo "deb http://deb.debian.org/debian $codename-backports main" \
		>"$dir/apt/sources.list"
	apt_opts=(-q -o Dir::Etc::SourceList="$dir/apt/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$dir/apt/lists"
		-o Dir::Cache="$dir/apt/cache" -o Debug::NoLocking=1
		-o APT::Sandbox::User="$(id -un)")
	apt-get "${apt_opts[@]}" update >&2
	rm -f "$dir"/debs/*.deb
	(cd "$dir/debs" && apt-get "${apt_opts[@]}" download \
		"qemu-system-x86/$codename-backports" \
		"qemu-system-data/$codename-backports" \
		"seabios/$codename-backports") >&2
	rm -rf "$dir/root"
	mkdir -p "$dir/root"
	for deb in "$dir"/debs/*.deb; do
		dpkg-deb -x "$deb" "$dir/root"
	done
	# Its library dependencies, by package name, that are not installed.
	mapfile -t libs < <(apt-cache "${apt_opts[@]}" show \
		"qemu-system-x86/$codename-backports" |
		sed -n 's/^Depends: //p' | head -n 1 | tr ',' '\n' |
		sed 's/^ *\([^ ]*\).*/\1/' | grep '^lib')
	for lib in "${libs[@]}"; do
		dpkg -s "$lib" >/dev/null 2>&1 || missing+=("$lib")
	done
	if ((${#missing[@]})); then
		need_root "${missing[@]}"
		"${as_root[@]}" DEBIAN_FRONTEND=noninteractive apt-get install \
			-y -q --no-install-recommends "${missing[@]}" >&2
	fi
	if ! "$dir/root/usr/bin/qemu-system-x86_64" --version >&2; then
		echo "deps: the unpacked QEMU does not run:" >&2
		ldd "$dir/root/usr/bin/qemu-system-x86_64" | grep 'not found' >&2
		exit 1
	fi
	echo "$dir/root/usr/bin/qemu-system-x86_64"
}

if [[ ${1:-} == --qemu-backports ]]; then
	install_qemu_backports
	exit 0
fi
if [[ ${1:-} == --qemu-beside ]]; then
	if [[ -z ${2:-} ]]; then
		echo "usage: $0 --qemu-beside DIR" >&2
		exit 2
	fi
	install_qemu_beside "$2"
	exit 0
fi

mapfile -t missing < <(missing_packages)

if [[ ${1:-} == --check ]]; then
	if ((${#missing[@]} == 0)); then exit 0; else exit 1; fi
elif [[ $# -gt 0 ]]; then
	echo "usage: $0 [--check | --bench | --qemu-backports | --qemu-beside DIR]" >&2
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
