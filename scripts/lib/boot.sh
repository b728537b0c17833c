# A boot under the host's bounds, and what its exit status means
# (sourced by scripts/run-tests.sh). Uses SILENCE, TIMEOUT and MACHINE.
#
# Run as a script, one boot: scripts/lib/boot.sh ISO CPUS LOG, with the
# bounds from the environment (the grader's use, scripts/grade); the exit
# status is QEMU's, or BOOT_LIMIT with the reason in LOG.limit.

# QEMU exit codes: the guest writes 0x10/0x11/0x12 to isa-debug-exit.
QEMU_ALL_PASSED=33 QEMU_SOME_FAILED=35 QEMU_PANIC=37
# What boot() returns when it ended QEMU itself (LOG.limit says why).
BOOT_LIMIT=124

# watch_boot PID LOG: the host's bound on a boot. The kernel ends a test
# that hangs itself (its time bound prints a report) and says every
# minute that a long test still runs, so a correct boot prints something
# at least every 60 s however slow the host is; one
# that prints nothing for SILENCE seconds has stopped altogether, and one
# that runs TIMEOUT seconds in all prints forever. Either is ended, with
# the reason in LOG.limit (not in LOG, where QEMU's last words could
# overwrite it).
watch_boot() {
	local pid=$1 log=$2 start=$SECONDS last=$SECONDS size=0 now why=
	while sleep 5; do
		now=$(stat -c %s "$log" 2>/dev/null) || now=0
		((now != size)) && size=$now last=$SECONDS
		if ((SECONDS - last >= SILENCE)); then
			why="no serial output for ${SILENCE}s (SILENCE): the kernel stopped"
		elif ((SECONDS - start >= TIMEOUT)); then
			why="still running after ${TIMEOUT}s (TIMEOUT)"
		else
			continue
		fi
		echo "$why" >"$log.limit"
		kill -TERM "$pid" 2>/dev/null
		sleep 5
		kill -KILL "$pid" 2>/dev/null
		return
	done
}

# boot ISO CPUS LOG [MACHINE]: run QEMU to its end under watch_boot; sets
# BOOT_RC to QEMU's exit status, or BOOT_LIMIT if the watch ended it.
boot() {
	local qemu watch
	rm -f "$3.limit"
	MACHINE=${4:-$MACHINE} bash scripts/qemu.sh "$1" "$2" </dev/null >"$3" 2>&1 &
	qemu=$!
	watch_boot "$qemu" "$3" &
	watch=$!
	wait "$qemu"
	BOOT_RC=$?
	kill "$watch" 2>/dev/null
	wait "$watch" 2>/dev/null
	[[ -f $3.limit ]] && BOOT_RC=$BOOT_LIMIT
}

# abnormal_exit RC LOG: why a boot did not end with the kernel's own test
# verdict (empty if it did).
abnormal_exit() {
	case $1 in
	"$QEMU_ALL_PASSED" | "$QEMU_SOME_FAILED") ;;
	"$QEMU_PANIC") echo "kernel panic" ;;
	"$BOOT_LIMIT") cat "$2.limit" ;;
	0) echo "guest reset or triple fault (QEMU exit 0)" ;;
	125 | 126 | 127) echo "could not run QEMU (exit $1)" ;;
	*) echo "QEMU or guest crash (exit $1)" ;;
	esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
	SILENCE=${SILENCE:-300} TIMEOUT=${TIMEOUT:-3600} MACHINE=${MACHINE:-pc}
	boot "$@"
	exit "$BOOT_RC"
fi
