#!/usr/bin/env bash
# The link follows the tree (the Makefile's objects stamp): a test file
# added under tests/ is built into kernel.elf and runs; deleted again, it
# is gone from the next kernel.elf (nm) and from a boot's KTAP report,
# although no file that is left is newer than the image. Without the
# stamp the second build relinks nothing and the deleted test still runs.
#
# Made on a copy of the source tree and of KERNEL's build directory, with
# their timestamps, so that the copy starts up to date (only the new file
# is compiled) and the tree under test is never touched.
#
# usage: KERNEL=ELF O=BUILD_ROOT tests/host/relink.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
: "${KERNEL:?KERNEL names a built kernel.elf}"
objdir=$(dirname "$KERNEL")
config=$(basename "$objdir")
# The build switches of that directory (the Makefile's CONFIG_NAME).
if [[ ! $config =~ ^rt([01])-ld([01])(-notsan)?$ ]]; then
	echo "relink: $objdir is not a build directory rtR-ldL[-notsan]"
	exit 1
fi
switches=(RT="${BASH_REMATCH[1]}" LOCKDEP="${BASH_REMATCH[2]}"
	TSAN=$([[ -n ${BASH_REMATCH[3]} ]] && echo 0 || echo 1))

dir=$O/host-relink
rm -rf "$dir" && mkdir -p "$dir/src/build" || exit 1
# The files git tracks or would add, as the starter generator copies them
# (scripts/lab-starter); tar keeps their modification times.
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [[ -f $f ]] && printf '%s\0' "$f"; done |
	tar --null -T - -cf - | tar -xf - -C "$dir/src" || exit 1
# The build directory without the ISOs a concurrent `make test` writes
# there (they are large, and come and go while it runs).
tar -C "$objdir/.." --exclude='*.iso' --exclude='.mkiso.*' -cf - "$config" |
	tar -C "$dir/src/build" -xf - || exit 1
src=$dir/src elf=$dir/src/build/$config/kernel.elf

# build STEP: make the copy's kernel; prints what was compiled.
build() {
	if ! (cd "$src" && make -s -j2 O=build "${switches[@]}" elf) >"$dir/$1.out" 2>&1; then
		echo "FAIL $1: the build failed:"
		tail -n 20 "$dir/$1.out" | sed 's/^/    | /'
		exit 1
	fi
	echo "$1: built ($(grep -c '^  CC ' "$dir/$1.out") file(s) compiled)"
}

# boot STEP: boot the copy's kernel on one CPU with only the probe's
# suite selected; the kernel must report success (all of none passes).
boot() {
	bash scripts/build/mkiso.sh "$elf" 'ktest=relink_probe.*' "$dir/$1.iso" || exit 1
	timeout -k 5 300 bash scripts/qemu.sh "$dir/$1.iso" 1 </dev/null >"$dir/$1.log" 2>&1
	local rc=$?
	if ((rc != 33)); then
		echo "FAIL $1: QEMU exit $rc, not 33; log $dir/$1.log"
		exit 1
	fi
}

# A test added: compiled, linked, run.
cat >"$src/tests/relink_probe.c" <<-'C'
	/* A test tests/host/relink.sh adds to a copy of the tree, then deletes. */
	#include "ktest.h"

	KTEST(relink_probe, present)
	{
		KEXPECT_EQ(1 + 1, 2);
	}
C
build added
if ! grep -q ' ktest_fn_relink_probe_present$' <<<"$(nm "$elf")"; then
	echo "FAIL added: ktest_fn_relink_probe_present is not in $elf"
	exit 1
fi
boot added
if ! grep -qx '    ok 1 present' <<<"$(tr -d '\r' <"$dir/added.log")"; then
	echo "FAIL added: relink_probe.present did not run; log $dir/added.log"
	exit 1
fi
echo "added: relink_probe.present linked and passed"

# The same test deleted: relinked without it, though nothing is newer.
rm "$src/tests/relink_probe.c"
build deleted
if left=$(grep relink_probe <<<"$(nm "$elf")"); then
	echo "FAIL deleted: $elf still holds the deleted test:"
	sed 's/^/    | /' <<<"$left"
	exit 1
fi
boot deleted
if grep -Eq '^    (# Subtest: relink_probe|(not )?ok )' <<<"$(tr -d '\r' <"$dir/deleted.log")"; then
	echo "FAIL deleted: the deleted test still ran; log $dir/deleted.log"
	exit 1
fi
if ! grep -qx '# ktest: 0 passed, 0 failed, 0 skipped' <<<"$(tr -d '\r' <"$dir/deleted.log")"; then
	echo "FAIL deleted: no empty report; log $dir/deleted.log"
	exit 1
fi
echo "deleted: relinked without it; a boot selecting its suite runs nothing"
rm -rf "$src"
