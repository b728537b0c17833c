#!/usr/bin/env bash
# The test runner's own machinery, without a kernel (docs/testing.md):
#   1. the job queue (scripts/lib/jobs.sh): the running weights never pass
#      the budget, a job starts only after the jobs it depends on, a job
#      that waits for cores holds back the ones queued after it but those
#      of weight 0, each job's output comes whole, and jobs_kill ends a
#      job's whole tree;
#   2. the host's bounds on a boot (scripts/lib/boot.sh), with stand-ins
#      for QEMU (QEMU_BIN): one silent for SILENCE seconds is ended and
#      said to have stopped, one that prints forever is ended at TIMEOUT,
#      one that ignores SIGTERM is killed, and one that ends by itself
#      keeps its exit status;
#   3. the load (scripts/load.sh): its busy loops run beside the command
#      and are gone after it, also when the script is killed outright.
# Every wait is for an event; the time bounds only keep a broken runner
# from hanging this test.
#
# usage: O=BUILD_ROOT tests/host/runner.sh
# cores: 0 (it waits for its stand-ins' bounds: 2 s of CPU in 65 s)
# takes: 65 s
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
dir=${O:-build}/host-runner
rm -rf "$dir" && mkdir -p "$dir" || exit 1
dir=$(realpath "$dir")
status=0
fail() {
	echo "FAIL $*"
	status=1
}

# gone PID...: wait until none of the processes exists (at most 60 s).
gone() {
	local i pid
	for ((i = 0; i < 600; i++)); do
		for pid; do
			kill -0 "$pid" 2>/dev/null && { sleep 0.1; continue 2; }
		done
		return 0
	done
	return 1
}

# --- 1. the job queue ---------------------------------------------------
(
	source scripts/lib/jobs.sh
	JOB_CORES=2 JOB_DIR=$dir/jobs
	mkdir -p "$JOB_DIR"
	events=$dir/events
	job_started() { echo "start $1 $JOB_USED" >>"$events"; }
	job_ended() { echo "end $1 $2 $(tr '\n' ' ' <"$3")" >>"$events"; }
	# work NAME LINES: print LINES lines with a pause between them, so
	# that the jobs overlap and their lines could interleave.
	work() {
		local i
		for ((i = 1; i <= $2; i++)); do
			echo "$1.$i"
			sleep 0.2
		done
	}
	job_add heavy 2 "" work heavy 3
	job_add light 1 "" work light 2
	job_add after_heavy 1 "heavy" work after_heavy 2
	job_add wide 5 "" work wide 1 # capped at the budget
	job_add behind_wide 1 "" work behind_wide 1
	job_add idle 0 "" work idle 1 # starts whatever waits
	job_add fails 1 "" false
	jobs_run || echo "jobs_run failed" >>"$events"
	job_add orphan 1 "never_queued" true
	jobs_run 2>"$dir/orphan.err" && echo "jobs_run passed a lost dependency" >>"$events"
)
events=$dir/events
# The weights: replay the starts and ends; at most 2 at any moment.
if ! awk '
	$1 == "start" { w = ($2 == "heavy" || $2 == "wide") ? 2 : $2 == "idle" ? 0 : 1
		used += w; weight[$2] = w; if (used > 2) bad = 1; started[$2] = NR }
	$1 == "end" { used -= weight[$2] }
	END { exit bad }' "$events"; then
	fail "jobs: more than 2 cores' worth of jobs ran at once:"
	sed 's/^/    | /' "$events"
fi
line_of() { grep -n "^$1 $2 " "$events" | head -n 1 | cut -d: -f1; }
[[ $(line_of start after_heavy) -gt $(line_of end heavy) ]] ||
	fail "jobs: after_heavy started before heavy, which it depends on, ended"
[[ $(line_of start behind_wide) -gt $(line_of start wide) ]] ||
	fail "jobs: behind_wide overtook wide, which waited for cores"
[[ $(line_of start idle) -lt $(line_of start wide) ]] ||
	fail "jobs: idle, of weight 0, waited behind wide"
grep -qx 'end heavy 0 heavy.1 heavy.2 heavy.3 ' "$events" ||
	fail "jobs: heavy's output not whole and in order: $(grep '^end heavy' "$events")"
grep -q '^end fails 1 ' "$events" || fail "jobs: a failing job's status was lost"
n=$(grep -c '^start ' "$events")
((n == 7)) || fail "jobs: $n jobs started, not 7"
grep -q 'jobs_run failed\|passed a lost dependency' "$events" &&
	fail "jobs: $(grep 'jobs_run' "$events")"
grep -q 'never ran: orphan' "$dir/orphan.err" ||
	fail "jobs: a job waiting for a job never queued was not reported"

# jobs_kill ends the job, its children and theirs.
(
	source scripts/lib/jobs.sh
	JOB_CORES=1 JOB_DIR=$dir/jobs
	job_started() { :; }
	tree() {
		bash -c 'sleep 300 & echo $! >'"$dir"'/grandchild; wait' &
		echo $! >"$dir/child"
		echo $BASHPID >"$dir/job"
		wait
	}
	job_add tree 1 "" tree
	job_start tree
	for ((i = 0; i < 600; i++)); do
		[[ -s $dir/grandchild ]] && break
		sleep 0.1
	done
	jobs_kill
)
pids=$(cat "$dir/job" "$dir/child" "$dir/grandchild" 2>/dev/null)
if [[ $(wc -w <<<"$pids") != 3 ]]; then
	fail "jobs_kill: the job never started its tree"
elif ! gone $pids; then
	fail "jobs_kill: left running: $(ps -o pid=,args= -p "${pids//$'\n'/,}")"
fi
((status == 0)) && echo "ok the job queue: budget, order, whole outputs, kill"

# --- 2. the bounds on a boot -------------------------------------------
# fake NAME BODY: a stand-in for qemu-system-x86_64 (any arguments).
fake() {
	printf '#!/usr/bin/env bash\n%s\n' "$2" >"$dir/$1"
	chmod +x "$dir/$1"
}
fake silent 'echo "booting"; exec sleep 600'
fake chatty 'while :; do echo tick; sleep 0.5; done'
fake deaf 'trap "" TERM; echo "booting"; while :; do sleep 1; done'
fake ends 'echo "# ktest: 1 passed, 0 failed, 0 skipped"; exit 33'
# bounded NAME SILENCE TIMEOUT WANT_RC WANT_WHY: boot the stand-in NAME.
bounded() {
	local out
	out=$(
		source scripts/lib/boot.sh
		SILENCE=$2 TIMEOUT=$3 MACHINE=pc
		QEMU_BIN=$dir/$1 boot "$dir/none.iso" 1 "$dir/$1.log"
		echo "$BOOT_RC|$(abnormal_exit "$BOOT_RC" "$dir/$1.log")"
	)
	if [[ $out != "$4|$5" ]]; then
		fail "boot $1: got '$out', want '$4|$5'"
	else
		echo "ok boot $1: ${5:-exit $4}"
	fi
}
bounded silent 6 600 124 "no serial output for 6s (SILENCE): the kernel stopped"
bounded chatty 600 8 124 "still running after 8s (TIMEOUT)"
bounded deaf 6 600 124 "no serial output for 6s (SILENCE): the kernel stopped"
bounded ends 600 600 33 ""
[[ -e $dir/ends.log.limit ]] && fail "boot ends: a limit was recorded"

# --- 3. the load ----------------------------------------------------------
# The command lists the script's other children: the busy loops.
bash scripts/load.sh 2 bash -c 'ps -o pid= --ppid $PPID | grep -vx " *$$" >'"$dir/loops"
loops=$(tr -d ' ' <"$dir/loops" | tr '\n' ' ')
if [[ $(wc -w <<<"$loops") != 2 ]]; then
	fail "load: 2 loops asked for, found: $loops"
elif ! gone $loops; then
	fail "load: loops left after the command ended: $loops"
else
	echo "ok load: 2 busy loops beside the command, gone after it"
fi
bash scripts/load.sh 1 bash -c 'echo $$ >'"$dir/command"'; exec sleep 300' >/dev/null &
wrapper=$!
for ((i = 0; i < 600; i++)); do
	[[ -s $dir/command ]] && break
	sleep 0.1
done
command=$(<"$dir/command")
loops=$(ps -o pid= --ppid "$wrapper" | grep -vx " *$command" | tr -d ' ')
kill -KILL "$wrapper"
wait "$wrapper" 2>/dev/null
if [[ -z $loops ]]; then
	fail "load: no loop seen beside 'sleep 300'"
elif ! gone $loops; then
	fail "load: a loop outlived its killed script: $loops"
else
	echo "ok load: the loops end with a script killed outright"
fi
# The command itself is the caller's to end, as without the load.
kill "$command" 2>/dev/null
exit $status
