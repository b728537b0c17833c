#!/usr/bin/env bash
# NMIs at any time (docs/usermode.md), injected from outside through
# QEMU's monitor (`nmi`: one NMI at every CPU):
#   1. early: GDB stops the boot CPU at paging_init(), before the kernel
#      has an NMI handler, the monitor injects an NMI, the boot goes on.
#      The kernel must ignore it, report it later from ordinary context,
#      and finish its tests (before: "BUG: unhandled exception 2 (NMI)").
#   2. storm: 2 CPUs run the system-call storm, the fuzzer, the swapgs,
#      FPU and rseq tests while a script sends NMIs every few ms. Every
#      test must pass (each process completes, the GS bases are checked
#      afterwards), the NMIs must have been counted (some in ring 3), and
#      reported only from the tick, never from NMI context, rate-limited
#      (far fewer lines than NMIs).
#
# usage: KERNEL=ELF O=BUILD_ROOT tests/host/nmi.sh
# cores: 2 (two CPUs running programs flat out, the storm)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

dir=$O/host-nmi
mkdir -p "$dir" || exit 1
status=0
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# wait_listen PORT PID: until QEMU's gdbstub accepts connections.
wait_listen() {
	for ((i = 0; i < 600; i++)); do
		python3 -c "import socket; socket.create_connection(('127.0.0.1', $1), 1).close()" \
			2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# --- 1. an NMI before the handler exists -------------------------------
bash scripts/build/mkiso.sh "$KERNEL" 'ktest=nmi.*' "$dir/early.iso" || exit 1
port=$(free_port)
timeout -k 5 600 bash scripts/qemu.sh "$dir/early.iso" 2 -S -gdb "tcp:127.0.0.1:$port" \
	</dev/null >"$dir/early.log" 2>&1 &
qemu=$!
trap 'kill $qemu 2>/dev/null' EXIT
if ! wait_listen "$port" "$qemu"; then
	echo "early: QEMU's gdbstub never listened"
	exit 1
fi
cat >"$dir/early.gdb" <<-GDB
	set architecture i386:x86-64
	set pagination off
	set confirm off
	target remote 127.0.0.1:$port
	hbreak paging_init
	continue
	monitor nmi
	delete
	detach
GDB
timeout -k 5 300 gdb -nx -batch -x "$dir/early.gdb" "$KERNEL" >"$dir/early.gdb.out" 2>&1
wait $qemu
rc=$?
trap - EXIT
log=$(tr -d '\r' <"$dir/early.log")
if ! grep -q 'Breakpoint 1, .*paging_init' "$dir/early.gdb.out"; then
	echo "early: GDB did not stop in paging_init:"
	tail -n 10 "$dir/early.gdb.out"
	status=1
elif ((rc != 33)); then
	echo "early: QEMU exit $rc, not 33 (tests passed); serial log:"
	tail -n 20 <<<"$log"
	status=1
elif ! grep -qE '^NMI: [0-9]+ NMI\(s\) before the NMI handler was set; ignored' <<<"$log"; then
	echo "early: no deferred report of the early NMI"
	status=1
else
	echo "early: $(grep -E '^NMI: .* before the NMI handler' <<<"$log")"
fi

# --- 2. NMIs while programs run and make system calls ------------------
bash scripts/build/mkiso.sh "$KERNEL" \
	'ktest=nmi.*,user.swapgs_under_ipis,user.fuzz,user.syscalls,fpu.*,rseq.percpu_counter_exact' \
	"$dir/storm.iso" || exit 1
sock=$dir/monitor.sock
rm -f "$sock"
QEMU_MONITOR=$sock timeout -k 5 600 bash scripts/qemu.sh "$dir/storm.iso" 2 \
	</dev/null >"$dir/storm.log" 2>&1 &
qemu=$!
trap 'kill $qemu 2>/dev/null' EXIT
# Send nmi every 3 ms from the moment every CPU is up (the early boot is
# part 1's; an NMI at a CPU still in its start-up trampoline, before it
# has an IDT, would reset the machine, in Linux as here) until QEMU is
# gone.
sent=$(python3 - "$sock" "$dir/storm.log" <<-'PY'
	import os, socket, sys, time
	sock_path, log = sys.argv[1], sys.argv[2]
	deadline = time.time() + 600
	while time.time() < deadline:  # every CPU online
	    try:
	        if b"smpboot: " in open(log, "rb").read():
	            break
	    except OSError:
	        pass
	    time.sleep(0.01)
	s = socket.socket(socket.AF_UNIX)
	s.connect(sock_path)
	s.settimeout(10)
	def prompt():
	    buf = b""
	    while not buf.endswith(b"(qemu) "):
	        chunk = s.recv(4096)
	        if not chunk:
	            raise EOFError
	        buf += chunk
	sent = 0
	try:
	    prompt()
	    while time.time() < deadline:
	        s.sendall(b"nmi\n")
	        prompt()
	        sent += 1
	        time.sleep(0.003)
	except (EOFError, OSError, socket.timeout):
	    pass
	print(sent)
	PY
)
wait $qemu
rc=$?
trap - EXIT
log=$(tr -d '\r' <"$dir/storm.log")
# The last report of each CPU says how many NMIs hit it in ring 3.
in_user=$(grep -oE '^NMI: [0-9]+ unexpected NMI\(s\) on CPU [0-9]+ \([0-9]+ in user' <<<"$log" |
	awk '{ cpu = $7; n = substr($8, 2) + 0; last[cpu] = n }
	     END { for (c in last) t += last[c]; print t + 0 }')
reported=$(grep -oE '^NMI: [0-9]+ unexpected' <<<"$log" | awk '{ t += $2 } END { print t + 0 }')
lines=$(grep -cE '^NMI: [0-9]+ unexpected' <<<"$log")
suppressed=$(grep -oE 'nmi_report_deferred: [0-9]+ callbacks suppressed' <<<"$log" |
	awk '{ t += $2 } END { print t + 0 }')
# The reports are rate-limited, and a storm shorter than an interval
# prints only its first ones, from before the programs ran: the storm
# test's own line counts every NMI, printed or held back.
summary=$(grep -oE 'NMIs since boot: [0-9]+ unexpected, [0-9]+ of them in user mode' <<<"$log" |
	tail -n 1)
if [[ -n $summary ]]; then
	read -r reported in_user < <(awk '{ print $4, $6 }' <<<"$summary")
fi
echo "storm: $sent NMIs sent (to each CPU), $reported seen by the kernel, $in_user of them in ring 3; $lines report line(s), $suppressed report(s) held back"
if ((rc != 33)); then
	echo "storm: QEMU exit $rc, not 33 (every test passed); serial log:"
	grep -E '^ *(not ok|# )|BUG|panic' <<<"$log" | head -n 20
	tail -n 20 <<<"$log"
	status=1
fi
if ((sent < 50 || reported == 0 || in_user == 0)); then
	echo "storm: too few NMIs delivered to prove anything"
	status=1
fi
# Rate-limited, as Linux's unknown-NMI message: each CPU's tick would
# report each NMI, so there must be far fewer lines than NMIs (10 lines
# per 5 s pass; the count of those held back is printed when the next
# interval starts, so a short storm may end before it).
if ((sent >= 200 && lines * 4 > sent)); then
	echo "storm: the NMI reports are not rate-limited ($lines lines for $sent NMIs, $suppressed held back)"
	status=1
fi
if grep -q 'with no request' <<<"$log"; then
	echo "storm: an NMI printed from NMI context"
	status=1
fi
exit $status
