# GDB helpers for percpu-kernel in GDB's Python API, loaded by
# scripts/kernel.gdb (`make gdb`). They read the kernel's own data
# structures, so they work on any vCPU and with the machine stopped:
#
#   ps              every task: id, name, state, CPU, priority,
#                   migration_disabled, preempt_count, on CPU or queued
#   runqueues       each online CPU's run queue: current task and queue
#   held-locks      the locks each task holds (LOCKDEP=1), in order
#   lockdep-graph   the validator's classes and dependency edges
#   dmesg           the kernel log buffer (printk.c's log_buf)
#   next-unlocked   `next` with the other CPUs running (see below)
#
# Stepping: kernel.gdb sets `scheduler-locking step` so that a step stays
# on its CPU. Then only the stepping CPU runs, and `next` over a call that
# waits for another CPU (flush_tlb_kernel_range(), smp_call_function_*(),
# a spin on a lock another CPU holds) never returns. A hook before each
# `next` and `step` warns when the line calls a known cross-CPU wait;
# `next-unlocked` steps over it with every CPU running.

import re

import gdb

TASK_STATES = {0: "R", 1: "S", 2: "D", 4: "X", 8: "N"}
POLICIES = {0: "NORMAL", 1: "FIFO", 2: "RR"}
MAX_RT_PRIO = 100
MAX_PRIO = 140

# Calls that may wait for another CPU: a cross-CPU call or TLB shootdown
# waits for the others to answer; a lock or a join waits for whoever holds
# it, maybe elsewhere. Each is the start of a function name.
CROSS_CPU_WAITS = (
    "flush_tlb", "smp_call_function", "stop_other_cpus",
    "trigger_all_cpu_backtrace", "kthread_join", "wait_for_completion",
    "raw_spin_lock", "spin_lock", "arch_spin_lock", "rt_mutex_lock",
    "mutex_lock", "local_lock",
)


def sym(name):
    return gdb.parse_and_eval(name)


def make_ptr(addr, ptype):
    """A pointer of type ptype to addr. gdb.Value() takes a signed 64-bit
    integer, and kernel addresses are above 2^63: pass the same bits."""
    if addr >= 1 << 63:
        addr -= 1 << 64
    return gdb.Value(addr).cast(ptype)


def per_cpu(var, cpu):
    """CPU's copy of per-CPU variable var (a gdb.Value lvalue)."""
    off = int(sym("__per_cpu_offset")[cpu])
    addr = int(var.address) + off
    return make_ptr(addr, var.type.pointer()).dereference()


def online_cpus():
    mask = sym("__cpu_online_mask")
    words = mask["bits"]
    n = int(sym("nr_cpu_ids"))
    return [c for c in range(n) if int(words[c // 64]) >> (c % 64) & 1]


def container_of(ptr, typename, member):
    t = gdb.lookup_type(typename)
    off = int(gdb.Value(0).cast(t.pointer())[member].address)
    return make_ptr(int(ptr) - off, t.pointer())


def list_entries(head, typename, member):
    """The entries of a struct list_head list, as pointers to typename."""
    node = head["next"]
    end = int(head.address)
    while int(node) != end:
        yield container_of(node, typename, member)
        node = node["next"]


def all_tasks():
    return list_entries(sym("all_tasks"), "struct task_struct", "tasks")


def task_name(t):
    return t["comm"].string()


def task_prio(t):
    """The effective RT priority (1..99), 0 for NORMAL, as task_prio()."""
    p = int(t["prio"])
    return MAX_RT_PRIO - 1 - p if p < MAX_RT_PRIO else 0


def task_running(t):
    return bool(t["on_cpu"])


def task_preempt_count(t):
    """A running task's count lives in its CPU's __preempt_count; a
    switched-out one's was saved in the task."""
    if task_running(t):
        return int(per_cpu(sym("__preempt_count"), int(t["cpu"])))
    return int(t["saved_preempt_count"])


def task_state(t):
    s = int(t["__state"])
    return TASK_STATES.get(s, str(s))


class Ps(gdb.Command):
    """List every task: ps
Columns: id, state (R running or runnable, S sleeping, D uninterruptible,
X dead, N new), CPU, policy and effective RT priority (inherited included),
migration_disabled, preempt_count (the CPU's if running, else the saved
one), whether it is on a CPU now, and its name."""

    def __init__(self):
        super().__init__("ps", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        print("  ID ST CPU POLICY PRIO MIGDIS PREEMPT ONCPU NAME")
        for t in all_tasks():
            print("%4d %2s %3d %6s %4d %6d %#7x %5s %s" % (
                int(t["pid"]), task_state(t), int(t["cpu"]),
                POLICIES.get(int(t["policy"]), "?"), task_prio(t),
                int(t["migration_disabled"]), task_preempt_count(t),
                "yes" if task_running(t) else "no", task_name(t)))


class Runqueues(gdb.Command):
    """Show each online CPU's run queue: runqueues
For each CPU: nr_running, the task it runs, then the queued tasks, RT
ones by priority first, then the NORMAL queue, in the order they run."""

    def __init__(self):
        super().__init__("runqueues", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        for cpu in online_cpus():
            rq = per_cpu(sym("runqueues"), cpu)
            curr = rq["curr"]
            print("CPU %d: nr_running %d, curr %d \"%s\"" % (
                cpu, int(rq["nr_running"]), int(curr["pid"]),
                task_name(curr)))
            for p in range(MAX_RT_PRIO):
                for t in list_entries(rq["rt_queue"][p], "struct task_struct",
                                      "run_list"):
                    print("    rt prio %2d: %d \"%s\"" % (
                        task_prio(t), int(t["pid"]), task_name(t)))
            for t in list_entries(rq["normal_queue"], "struct task_struct",
                                  "run_list"):
                print("    normal:     %d \"%s\"" % (
                    int(t["pid"]), task_name(t)))


def lockdep_enabled():
    try:
        gdb.lookup_type("struct held_lock")
        return True
    except gdb.error:
        return False


def class_name(idx):
    c = sym("lock_classes")[idx]
    name = c["name"].string() if int(c["name"]) else "?"
    sub = int(c["subclass"])
    return name + ("/%d" % sub if sub else "")


def print_held(locks, title):
    """One stack of held locks (struct held_locks), if it holds any."""
    depth = int(locks["depth"])
    if depth == 0:
        return False
    print("%d lock(s) held %s:" % (depth, title))
    for i in range(depth):
        h = locks["held"][i]
        where = gdb.execute("info symbol %d" % int(h["ip"]),
                            to_string=True).strip()
        print("  #%d: %s (%#x), at %s" % (
            i, class_name(int(h["class_idx"])), int(h["map"]), where))
    return True


class HeldLocks(gdb.Command):
    """Show the locks each task holds: held-locks
As lockdep tracks them (LOCKDEP=1): for each task holding any, the locks
in the order taken, with class, lock address and where it was taken; then
those each CPU's interrupt handlers hold (a stack per CPU)."""

    def __init__(self):
        super().__init__("held-locks", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if not lockdep_enabled():
            print("held-locks: a LOCKDEP=0 kernel does not track held locks")
            return
        any_held = False
        for t in all_tasks():
            any_held |= print_held(t["lockdep"]["locks"], 'by %d "%s"' % (
                int(t["pid"]), task_name(t)))
        for cpu in online_cpus():
            any_held |= print_held(per_cpu(sym("hardirq_held_locks"), cpu),
                                   "in hardirq on CPU %d" % cpu)
        if not any_held:
            print("no locks held")


class LockdepGraph(gdb.Command):
    """Show the lock validator's classes and edges: lockdep-graph
Each class with its index and name, then each dependency edge
"A -> B" (B was taken while A was held), as lockdep_graph.c keeps them."""

    def __init__(self):
        super().__init__("lockdep-graph", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if not lockdep_enabled():
            print("lockdep-graph: a LOCKDEP=0 kernel has no graph")
            return
        nr_classes = int(sym("nr_classes"))
        nr_edges = int(sym("nr_edges"))
        print("%d classes:" % (nr_classes - 1))
        for i in range(1, nr_classes):
            print("  class %d: %s" % (i, class_name(i)))
        print("%d edges:" % (nr_edges - 1))
        edges = sym("edges")
        for i in range(1, nr_edges):
            e = edges[i]
            print("  %s -> %s" % (class_name(int(e["from"])),
                                  class_name(int(e["to"]))))


class Dmesg(gdb.Command):
    """Print the kernel log buffer: dmesg
What printk() wrote, oldest first: the last LOG_BUF_LEN bytes."""

    def __init__(self):
        super().__init__("dmesg", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        buf = sym("log_buf")
        size = buf.type.sizeof
        end = int(sym("log_next"))
        start = max(0, end - size)
        inf = gdb.selected_inferior()
        base = int(buf.address)
        out = bytearray()
        pos = start
        while pos < end:   # at most two pieces: to the ring's end, then on
            off = pos % size
            n = min(end - pos, size - off)
            out += inf.read_memory(base + off, n).tobytes()
            pos += n
        gdb.write(out.decode("utf-8", "replace"))


class NextUnlocked(gdb.Command):
    """`next` with every CPU running: next-unlocked [N]
For a line that waits for another CPU (a TLB shootdown, a cross-CPU
call, a lock held elsewhere), which plain `next` under `scheduler-locking
step` never finishes. The other CPUs run until this step ends, so a
breakpoint they reach stops there instead; scheduler-locking is put back."""

    def __init__(self):
        super().__init__("next-unlocked", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        old = gdb.parameter("scheduler-locking")
        gdb.execute("set scheduler-locking off")
        try:
            gdb.execute("next " + arg, from_tty)
        finally:
            gdb.execute("set scheduler-locking " + old)


def current_source_line():
    try:
        sal = gdb.selected_frame().find_sal()
        if sal.symtab is None:
            return None
        with open(sal.symtab.fullname()) as f:
            lines = f.readlines()
        return lines[sal.line - 1] if 0 < sal.line <= len(lines) else None
    except (gdb.error, OSError):
        return None


class CrossCpuCheck(gdb.Command):
    """Warn before a locked step over a cross-CPU wait (hook-next)."""

    def __init__(self):
        super().__init__("cross-cpu-check", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if gdb.parameter("scheduler-locking") not in ("step", "on"):
            return
        line = current_source_line()
        if not line:
            return
        m = re.search(r"\b((?:%s)\w*)\s*\(" % "|".join(CROSS_CPU_WAITS),
                      line)
        if m:
            print("warning: this line calls %s(), which may wait for another "
                  "CPU; with scheduler-locking %s only this CPU runs and "
                  "`next` may never return. Use `next-unlocked` (Ctrl-C "
                  "gets you back)." % (m.group(1),
                                       gdb.parameter("scheduler-locking")))


Ps()
Runqueues()
HeldLocks()
LockdepGraph()
Dmesg()
NextUnlocked()
CrossCpuCheck()
