#!/usr/bin/env bash
# Run a command beside N busy loops: a host as busy as a student's laptop
# with a build running, or a CI machine shared with other jobs, to check
# that no test depends on how fast the host is (`make test LOAD=N`,
# `make grade LAB=n LOAD=N`; docs/testing.md).
#
# usage: scripts/load.sh N COMMAND [ARG...]
#
# The loops start before COMMAND and end with this script: when COMMAND
# ends, on Ctrl-C, and also when the script is killed outright, since
# each loop checks a few times a second that the script is still there.
# They run at the tests' own priority and do no I/O: pure CPU load, N
# more runnable threads. Exit status: COMMAND's.
set -uo pipefail

if (($# < 2)) || [[ ! $1 =~ ^[0-9]+$ ]]; then
	echo "usage: $0 N COMMAND [ARG...]   (N busy loops beside COMMAND)" >&2
	exit 2
fi
n=$1
shift

# busy_loop: spin until this script is gone ($$ is the script's pid in
# the subshell too); `kill -0` is a builtin, so the check forks nothing.
busy_loop() {
	local i
	while kill -0 $$ 2>/dev/null; do
		for ((i = 0; i < 100000; i++)); do :; done
	done
}

loops=()
stop_loops() {
	((${#loops[@]})) && kill "${loops[@]}" 2>/dev/null
	loops=()
}
trap stop_loops EXIT
for ((k = 0; k < n; k++)); do
	busy_loop &
	loops+=($!)
done
((n)) && echo "load: $n busy loop(s) beside the run, load average now $(cut -d' ' -f1-3 /proc/loadavg)"

# In the foreground, so that Ctrl-C reaches COMMAND as it would without
# the loops (a background command of a script ignores it); this script's
# EXIT trap runs once COMMAND has ended.
"$@"
