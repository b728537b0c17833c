"""Check the GDB helpers' output (tests/host/gdb.sh) against the kernel's.

usage: gdb_check.py SERIAL_LOG GDB_OUTPUT; exit 0 when every check holds,
else 1 with one line per mismatch.

At stop k the kernel has printed, just before gdb_probe_point(), a line
"gdb_probe: task ID "NAME" on CPU C prio P preempt_count X
migration_disabled M holds LOCKS". Then: the breakpoint's cpu argument is
C; `ps` shows task ID as NAME, running (R, on CPU yes) on C, FIFO at P,
with X and M; `runqueues` shows C running it; `held-locks` lists LOCKS in
order for it, and nothing for a task that holds nothing; `lockdep-graph`
has the edge the kernel printed; `dmesg` holds every line printed so far.
"""
import re
import sys

PROBE = re.compile(r'gdb_probe: task (\d+) "(\S+)" on CPU (\d+) prio (\d+) '
                   r'preempt_count (\d+) migration_disabled (\d+) holds (.*)')


def clean(text):
    return re.sub(r'\x1b\[[0-9;?]*[A-Za-z]', '', text.replace('\r', ''))


def sections(out):
    """The gdb output split at the "=== NAME" markers."""
    parts, name = {}, None
    for line in out.splitlines():
        m = re.match(r'=== (.*)', line)
        if m:
            name = m.group(1)
            parts[name] = []
        elif name is not None:
            parts[name].append(line)
    return parts


def check_stop(k, probe, lines, fail):
    tid, name, cpu, prio, pc, md, holds = probe
    text = "\n".join(lines)
    head = lines[0] if lines else ""
    if not head.startswith("cpu %s" % cpu):  # the marker line's tail
        fail("stop %d: breakpoint cpu argument %r, kernel said CPU %s"
             % (k, head, cpu))
    ps = [l.split() for l in lines if re.match(r'\s*%s\s' % tid, l)]
    want = [tid, "R", cpu, "FIFO", prio, md, "%#x" % int(pc), "yes", name]
    if not ps:
        fail("stop %d: ps does not list task %s" % (k, tid))
    elif ps[0] != want:
        fail("stop %d: ps shows %s, kernel said %s" % (k, ps[0], want))
    if not re.search(r'^CPU %s: nr_running \d+, curr %s "%s"' % (cpu, tid, name),
                     text, re.M):
        fail("stop %d: runqueues does not show CPU %s running %s" % (k, cpu, name))
    held = re.findall(r'^  #\d+: (\S+) ', text, re.M)
    if "LOCKDEP=0 kernel" in text:
        pass                      # nothing tracked, nothing to compare
    elif holds == "nothing":
        if re.search(r'held by %s "%s"' % (tid, name), text):
            fail("stop %d: held-locks lists locks for %s, which holds none" % (k, name))
    else:
        if not re.search(r'^%d lock\(s\) held by %s "%s":' % (len(holds.split()), tid, name),
                         text, re.M) or held[:len(holds.split())] != holds.split():
            fail("stop %d: held-locks shows %s, kernel said %s" % (k, held, holds))


def main():
    serial = clean(open(sys.argv[1], errors="replace").read())
    out = clean(open(sys.argv[2], errors="replace").read())
    errors = []
    fail = errors.append
    probes = PROBE.findall(serial)
    parts = sections(out)
    if len(probes) != 4:
        fail("the kernel printed %d probe lines, not 4" % len(probes))
    for k, probe in enumerate(probes[:4]):
        key = next((s for s in parts if s.startswith("stop %d:" % k)), None)
        if key is None:
            fail("gdb never reached stop %d" % k)
            continue
        check_stop(k, probe, [key[len("stop %d: " % k):]] + parts[key], fail)
    if "LOCKDEP=0 kernel" in out:
        pass
    elif "gdb_probe_outer -> gdb_probe_inner" not in "\n".join(parts.get("lockdep-graph", [])) \
            and "gdb_probe: edge gdb_probe_outer -> gdb_probe_inner" in serial:
        fail("lockdep-graph lacks the edge gdb_probe_outer -> gdb_probe_inner")
    dmesg = "\n".join(parts.get("dmesg", []))
    for line in re.findall(r'^gdb_probe: .*$', serial, re.M):
        if line not in dmesg:
            fail("dmesg lacks the kernel line %r" % line)
    if "percpu-kernel: booted by" not in dmesg:
        fail("dmesg lacks the boot banner")
    for e in errors:
        print(e)
    if errors:
        print("(gdb output: %s)" % sys.argv[2])
        return 1
    print("4 stops on CPUs %s; ps, runqueues, held-locks, lockdep-graph and "
          "dmesg agree with the kernel" % ",".join(p[2] for p in probes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
