# The test runner's job queue (sourced by scripts/run-tests.sh).
#
# A job is a command run in the background, its output in a file. It
# starts when the jobs it depends on have ended and its weight, the host
# cores it keeps busy, fits in what the running jobs leave of the budget,
# JOB_CORES. Jobs start in the order they were queued, and a job that
# waits for cores holds back every job queued after it, so that a heavy
# boot is never starved by a stream of light ones slipping past; a job
# that waits for another job holds back none, and a job of weight 0 (one
# that takes only the cores the others leave idle) is never held back.
# When a job ends, the caller's job_ended hook gets its output whole, so
# the lines of two jobs never interleave.
#
# The caller defines:
#   job_started ID          called as the job starts
#   job_ended ID RC OUTPUT  called when it ends, with its exit status and
#                           the file holding its output
# and sets JOB_DIR (where the output files go) and JOB_CORES.

declare -a JOB_QUEUE=()              # ids not started yet, in order
declare -A JOB_WEIGHT=() JOB_DEPS=() JOB_CMD=() JOB_DONE=()
declare -A JOB_RUNNING=()            # pid -> id
JOB_USED=0                           # the weights of the running jobs

# job_add ID WEIGHT DEPS CMD...: queue CMD (a function or a command) as job
# ID, to run after the jobs named in DEPS (ids separated by spaces).
job_add() {
	local id=$1 weight=$2 deps=$3
	shift 3
	JOB_QUEUE+=("$id")
	JOB_WEIGHT[$id]=$((weight < JOB_CORES ? weight : JOB_CORES))
	JOB_DEPS[$id]=$deps
	JOB_CMD[$id]=$(printf '%q ' "$@")
}

# job_ready ID: have the jobs it depends on ended?
job_ready() {
	local dep
	for dep in ${JOB_DEPS[$1]}; do
		[[ -n ${JOB_DONE[$dep]:-} ]] || return 1
	done
}

job_start() {
	local id=$1
	job_started "$id"
	(eval "${JOB_CMD[$id]}") </dev/null >"$JOB_DIR/$id.out" 2>&1 &
	JOB_RUNNING[$!]=$id
	((JOB_USED += ${JOB_WEIGHT[$id]}))
}

# jobs_start: start every job that may start now, in queue order.
jobs_start() {
	local id rest=() held=
	for id in "${JOB_QUEUE[@]}"; do
		if ! job_ready "$id" || { [[ -n $held ]] && ((${JOB_WEIGHT[$id]})); }; then
			rest+=("$id")
		elif ((JOB_USED + ${JOB_WEIGHT[$id]} > JOB_CORES)); then
			rest+=("$id")
			held=1
		else
			job_start "$id"
		fi
	done
	JOB_QUEUE=("${rest[@]}")
}

# jobs_run: run the queue until every job has ended (job_ended may queue
# more). Fails if jobs are left that wait for a job that never ran.
jobs_run() {
	local pid rc id
	jobs_start
	while ((${#JOB_RUNNING[@]})); do
		wait -n -p pid "${!JOB_RUNNING[@]}"
		rc=$?
		id=${JOB_RUNNING[$pid]}
		unset "JOB_RUNNING[$pid]"
		((JOB_USED -= ${JOB_WEIGHT[$id]}))
		JOB_DONE[$id]=1
		job_ended "$id" "$rc" "$JOB_DIR/$id.out"
		jobs_start
	done
	if ((${#JOB_QUEUE[@]})); then
		echo "jobs left waiting for jobs that never ran: ${JOB_QUEUE[*]}" >&2
		return 1
	fi
}

# process_tree PID: PID and its descendants, parents first.
process_tree() {
	local child
	echo "$1"
	for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		process_tree "$child"
	done
}

# jobs_kill: end the running jobs and everything they started (a QEMU
# under `timeout` sits in a process group of its own, out of reach of
# the terminal's Ctrl-C). The whole tree is listed before the first kill,
# while every process still has its parent.
jobs_kill() {
	local pid pids=()
	for pid in "${!JOB_RUNNING[@]}"; do
		mapfile -t -O "${#pids[@]}" pids < <(process_tree "$pid")
	done
	((${#pids[@]})) && kill -TERM "${pids[@]}" 2>/dev/null
	JOB_RUNNING=()
}
