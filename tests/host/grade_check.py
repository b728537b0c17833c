"""Checks of scripts/grade without QEMU (run by tests/host/grade.sh): the
KTAP report of a boot, judged per check, and the spec parser's errors.
The logs are written here in the shape kernel/debug/ktest.c prints."""
import importlib.machinery
import importlib.util
import os
import sys
import tempfile

_loader = importlib.machinery.SourceFileLoader(
    "grade", os.path.join(os.path.dirname(__file__), "../../scripts/grade"))
grade = importlib.util.module_from_spec(
    importlib.util.spec_from_loader("grade", _loader))
_loader.exec_module(grade)
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def suite(name, *results):
    lines = ["    KTAP version 1", f"    # Subtest: {name}",
             f"    1..{len(results)}"]
    for i, r in enumerate(results, 1):
        lines += r.split("|")[1:] and [f"    {d}" for d in r.split("|")[1:]]
        lines.append(f"    {r.split('|')[0].replace('N', str(i), 1)}")
    return lines


def log(*suites, plan=None, before=(), end=True):
    lines = list(before) + ["KTAP version 1", f"1..{plan or len(suites)}"]
    for i, s in enumerate(suites, 1):
        lines += s
        if end or i < len(suites):
            lines.append(f"ok {i} {s[1].split(': ')[1]}")
    return "\r\n".join(lines) + "\r\n"


def judged(text, kernel_glob, reason=None):
    c = grade.Check(1, 1, 10, 10, "ktest", ["CPUS=2", f"KTEST={kernel_glob}"], False)
    grade.judge(c, grade.Report(text), reason, text, "x.log")
    return c


a = suite("alpha", "ok N one", "not ok N two|# alpha.c:3: expected 1 == 2", "ok N three # SKIP needs 2 CPUs")
b = suite("beta", "ok N one")
full = log(a, b)
expect(judged(full, "beta.*").passed, "a passed suite passes")
c = judged(full, "alpha.one")
expect(c.passed, f"one passed test passes: {c.why}")
c = judged(full, "alpha.*")
expect(not c.passed and "not ok alpha.two" in c.why, f"a failed test fails: {c.why}")
expect(any("alpha.c:3" in w for w in c.why), f"its diagnostic is shown: {c.why}")
c = judged(full, "alpha.three")
expect(not c.passed and any("skipped" in w for w in c.why), f"only skipped: {c.why}")
c = judged(full, "gamma.*")
expect(not c.passed and "no test ran" in c.why, f"nothing selected: {c.why}")

# A panic in beta's second test: alpha stays graded, beta is not done.
crash = log(a[:0] + suite("ok", "ok N one"), suite("beta", "ok N one", "ok N two")[:-1],
            plan=3, end=False)
c = judged(crash, "beta.*", "kernel panic")
expect(not c.passed and any("did not run to the end" in w for w in c.why), f"panic: {c.why}")
c = judged(crash, "ok.*", "kernel panic")
expect(c.passed, f"a suite done before the panic passes: {c.why}")
c = judged(crash, "b*.one", "kernel panic")
expect(not c.passed, "a wildcard suite with suites missing fails")

short = log(suite("beta", "ok N one", "ok N two")[:-1])  # plan 2, one result
short = short.replace("    1..1", "    1..2")
c = judged(short, "b*.*")
expect(not c.passed and any("1 of 2 results" in w for w in c.why), f"short suite: {c.why}")

c = judged(log(b, before=["# ktest: 1 lockdep report(s) before the tests: x"]), "beta.*")
expect(not c.passed and any("before the tests" in w for w in c.why), f"boot report: {c.why}")
c = judged(log(suite("beta", "not ok N one"),
               before=["smpboot: CPU 1 (APIC id 1) did not come online"]), "beta.*")
expect(c.why and c.why[0].startswith("boot: smpboot: CPU 1"), f"boot warning shown: {c.why}")

long = [grade.Check(1, i, 1, 10, "ktest", [f"KTEST=suite{i}.{'x' * 60}"], False)
        for i in range(7)]
parts = grade.split_cmdline(long)
expect(len(parts) == 4 and sum(map(len, parts)) == 7 and  # 69 bytes each
       all(len(",".join(g for c in p for g in c.globs)) < grade.CMDLINE_GLOBS_MAX
           for p in parts),
       f"globs split to fit the command line: {[len(p) for p in parts]}")

with tempfile.TemporaryDirectory() as root:
    os.makedirs(os.path.join(root, "tests/labs"))
    grade.ROOT = root
    for spec, err in [("50 10 ktest CPUS=1 KTEST='a.*'\n", "sum to 50"),
                      ("100 10 ktest CPUS=1\n", "without KTEST"),
                      ("100 10 ktest FOO=1 KTEST=a\n", "'FOO=1' is not one of"),
                      ("100 10 boot x\n", "unknown kind"),
                      ("100 x ktest KTEST=a\n", "bad timeout"),
                      ("100 10 ktest BOOT='ktest=x' KTEST=a\n", "is not boot options"),
                      ("100 10 ktest BOOT='a;b' KTEST=a\n", "is not boot options"),
                      ("50 10 host a.sh\n50 10 host a.sh\n", "named twice")]:
        with open(os.path.join(root, "tests/labs/lab1.grade"), "w") as f:
            f.write("# comment\n" + spec)
        try:
            grade.parse_spec(1)
            failures.append(f"spec accepted: {spec!r}")
        except grade.SpecError as e:
            expect(err in str(e), f"spec {spec!r}: '{err}' not in '{e}'")
    with open(os.path.join(root, "tests/labs/lab1.grade"), "w") as f:
        f.write("60 10 ktest CPUS=2 RT=0 KTEST='a.*'  # 3 s\n40 10 host t.sh hidden\n")
    checks = grade.parse_spec(1)
    expect(checks[0].boot_key() == ("2", "0", "1", "") and checks[1].hidden,
           "a valid spec parses")
    expect(not checks[1].present(), "a hidden check without its script is not run")
    # Boot options: a boot of their own, named in the check.
    with open(os.path.join(root, "tests/labs/lab1.grade"), "w") as f:
        f.write("50 10 ktest CPUS=2 KTEST='a.*'\n"
                "50 10 ktest CPUS=2 BOOT='softirq.bh_lock=0' KTEST='a.*'\n")
    plain, opt = grade.parse_spec(1)
    expect(opt.boot_key() == ("2", "1", "1", "softirq.bh_lock=0") and
           opt.boot_key() != plain.boot_key() and
           opt.name == "a.* (CPUS=2 RT=1 softirq.bh_lock=0)",
           f"boot options: {opt.boot_key()} {opt.name!r}")

# The score: visible and hidden apart, a total only when both ran.
vis = grade.Check(1, 1, 70, 10, "ktest", ["CPUS=2", "KTEST=a.*"], False)
hid = grade.Check(1, 2, 30, 10, "ktest", ["CPUS=2", "KTEST=b.*"], True)
vis.ran = vis.passed = True
s = grade.score_summary([vis, hid], {vis.name: 70, hid.name: 0})
expect(grade.score_line(s) == "Score: visible 70/70, hidden not run (30)",
       f"hidden not run: {grade.score_line(s)}")
expect(s["score"] is None and s["visible"] == {"score": 70, "max": 70, "run": True}
       and s["hidden"]["run"] is False, f"hidden not run, JSON: {s}")
hid.ran = True
s = grade.score_summary([vis, hid], {vis.name: 70, hid.name: 0})
expect(grade.score_line(s) == "Score: 70/100 (visible 70/70, hidden 0/30)",
       f"hidden failed: {grade.score_line(s)}")
expect(s["score"] == 70 and s["checks"] == {vis.name: 70, hid.name: 0},
       f"hidden failed, JSON: {s}")

# Gradescope's results.json: one test per check, the hidden ones shown
# once the grades are published, the total their sum.
hid.ran, hid.why = False, ["hidden: its tests are not in this tree"]
s = grade.score_summary([vis, hid], {vis.name: 70, hid.name: 0})
g = grade.gradescope_results([vis, hid], s, 12.4)
expect(g["score"] == 70 and g["execution_time"] == 12 and
       g["stdout_visibility"] == "hidden", f"gradescope top level: {g}")
t0, t1 = g["tests"]
expect(t0["visibility"] == "visible" and t0["score"] == t0["max_score"] == 70
       and t0["status"] == "passed", f"gradescope visible test: {t0}")
expect(t1["visibility"] == "after_published" and t1["score"] == 0 and
       t1["max_score"] == 30 and t1["output"].startswith("not run: hidden"),
       f"gradescope hidden test not run: {t1}")
hid.ran, hid.why = True, ["not ok b.x", "    # b.c:1: expected 1 == 2"]
g = grade.gradescope_results([vis, hid], s, 1)
expect(g["tests"][1]["output"] == "not ok b.x\n    # b.c:1: expected 1 == 2"
       and g["tests"][1]["status"] == "failed", f"gradescope failure: {g['tests'][1]}")

# HIDDEN= the solution tree itself: nothing to copy, and no error.
with tempfile.TemporaryDirectory() as root:
    hidden = os.path.join(root, "tests/labs/lab1_hidden_x.c")
    os.makedirs(os.path.dirname(hidden))
    with open(hidden, "w") as f:
        f.write("/* hidden */\n")
    grade.ROOT = root
    try:
        grade.copy_hidden(1, root)
    except Exception as e:  # shutil.SameFileError
        expect(False, f"HIDDEN=this tree: {e!r}")
    with open(hidden) as f:
        expect(f.read() == "/* hidden */\n", "HIDDEN=this tree: file changed")

for f in failures:
    print("FAIL:", f)
print(f"grade: {'all checks passed' if not failures else f'{len(failures)} failed'}")
sys.exit(1 if failures else 0)
