#!/usr/bin/env bash
# The GDB helpers (scripts/kernel_gdb.py) against a real GDB: QEMU starts
# halted with its gdbstub on a free port, GDB in batch mode attaches,
# breaks in gdb_probe_point() once on each of 4 CPUs (tests/boot/gdb_probe.c;
# probe-continue skips a repeated stop) and runs every helper; the output
# is then checked against what the kernel printed on its serial port. No
# timing is asserted: each step is bounded by a generous timeout only.
#
# usage: KERNEL=ELF O=BUILD_ROOT tests/host/gdb.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

dir=$O/host-gdb
mkdir -p "$dir" || exit 1
bash scripts/build/mkiso.sh "$KERNEL" 'ktest=gdb.probe_on_each_cpu' "$dir/test.iso" || exit 1
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

timeout -k 5 900 bash scripts/qemu.sh "$dir/test.iso" 4 -S -gdb "tcp:127.0.0.1:$port" \
	</dev/null >"$dir/serial.log" 2>&1 &
qemu=$!
trap 'kill $qemu 2>/dev/null' EXIT
# QEMU listens once it has set up the machine.
for ((i = 0; i < 600; i++)); do
	python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close()" \
		2>/dev/null && break
	kill -0 $qemu 2>/dev/null || { echo "QEMU ended before its gdbstub listened"; cat "$dir/serial.log"; exit 1; }
	sleep 0.1
done

{
	echo "set architecture i386:x86-64"
	echo "set pagination off"
	echo "set confirm off"
	echo "target remote 127.0.0.1:$port"
	echo "set scheduler-locking step"
	echo "source scripts/kernel-helpers.gdb"
	echo "break gdb_probe_point"
	# QEMU's gdbstub can report a stop twice for the thread that last hit
	# the breakpoint (seen under host load: "stop 2" on CPU 1 again).
	# Stop k is the one where the probe has counted k earlier hits.
	cat <<-'PY'
	python
	class ProbeContinue(gdb.Command):
	    def __init__(self):
	        super().__init__("probe-continue", gdb.COMMAND_USER)
	        self.pc = None  # the breakpoint's address, from stop 0
	    def invoke(self, arg, from_tty):
	        want = int(arg)
	        for _ in range(20):
	            gdb.execute("continue")
	            frame = gdb.selected_frame()
	            hits = int(gdb.parse_and_eval("'gdb_probe.c'::probe.hits"))
	            if (frame.name() == "gdb_probe_point" and hits == want and
	                    self.pc in (None, frame.pc())):
	                self.pc = frame.pc()
	                return
	            print("probe-continue: stop at %s with %d hits is not stop %d; "
	                  "continuing" % (frame.name(), hits, want))
	        raise gdb.GdbError("stop %d never reached" % want)
	ProbeContinue()
	end
	PY
	for stop in 0 1 2 3; do
		echo "probe-continue $stop"
		echo "printf \"=== stop $stop: cpu %d\\n\", cpu"
		echo "ps"
		echo "runqueues"
		echo "held-locks"
	done
	echo 'printf "=== lockdep-graph\n"'
	echo "lockdep-graph"
	echo 'printf "=== dmesg\n"'
	echo "dmesg"
	echo 'printf "=== end\n"'
	echo "delete"
	echo "continue"
} >"$dir/test.gdb"
timeout -k 5 900 gdb -nx -batch -x "$dir/test.gdb" "$KERNEL" >"$dir/gdb.out" 2>&1
wait $qemu
rc=$?
trap - EXIT
if ((rc != 33)); then
	echo "QEMU exit $rc, not 33 (the probe test passed); serial log:"
	tail -n 30 "$dir/serial.log"
	echo "gdb output:"
	tail -n 30 "$dir/gdb.out"
	exit 1
fi
python3 tests/host/gdb_check.py "$dir/serial.log" "$dir/gdb.out"
