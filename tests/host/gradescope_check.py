"""Validates a results.json of Gradescope's autograder format against a
lab's grading spec (run by tests/host/autograder.sh).

usage: gradescope_check.py RESULTS SPEC starter|solution

Gradescope's format: a top-level "score" and "tests", each test with
"name", "score", "max_score", "output" and "visibility" (one of
hidden, after_due_date, after_published, visible). Checked here: every
check of the spec is a test, with its points as max_score, hidden checks
"after_published" and the others "visible"; the total is the sum of the
tests' scores; a failed test says why; the solution scores 100 and the
untouched starter more than 0 and less than 100, and the score the
spec's `# starter scores: N` line states."""
import json
import os
import re
import shlex
import sys

VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


def spec_checks(path):
    """[(points, hidden)] of the spec's checks, in order."""
    checks = []
    with open(path) as f:
        for line in f:
            words = shlex.split(line, comments=True)
            if words:
                checks.append((int(words[0]), words[-1] == "hidden"))
    return checks


def problems(results, spec, kind):
    out = []
    try:
        with open(results) as f:
            r = json.load(f)
    except (OSError, ValueError) as e:
        return [f"{results}: not JSON: {e}"]
    if not isinstance(r.get("score"), (int, float)):
        out.append(f"top-level score is {r.get('score')!r}, not a number")
    tests = r.get("tests")
    if not isinstance(tests, list):
        return out + [f"tests is {tests!r}, not a list"]
    checks = spec_checks(spec)
    if len(tests) != len(checks):
        out.append(f"{len(tests)} tests for the spec's {len(checks)} checks")
    for t, (points, hidden) in zip(tests, checks):
        name = t.get("name")
        for key, kinds in (("name", str), ("score", (int, float)),
                           ("max_score", (int, float)), ("output", str),
                           ("visibility", str)):
            if not isinstance(t.get(key), kinds):
                out.append(f"test {name!r}: {key} is {t.get(key)!r}")
        if t.get("visibility") not in VISIBILITY:
            out.append(f"test {name!r}: visibility {t.get('visibility')!r}")
        want = "after_published" if hidden else "visible"
        if t.get("visibility") != want:
            out.append(f"test {name!r}: visibility {t.get('visibility')!r}, want {want}")
        if t.get("max_score") != points:
            out.append(f"test {name!r}: max_score {t.get('max_score')}, spec {points}")
        if t.get("score") not in (0, points):
            out.append(f"test {name!r}: score {t.get('score')} of {points}")
        if t.get("score") == 0 and not (t.get("output") or "").strip():
            out.append(f"test {name!r}: failed without saying why")
    total = sum(t.get("score", 0) for t in tests if isinstance(t, dict))
    if r.get("score") != total:
        out.append(f"score {r.get('score')} is not the tests' sum {total}")
    if kind == "solution" and r.get("score") != 100:
        out.append(f"the solution scores {r.get('score')}, not 100")
    if kind == "starter" and not 0 < (r.get("score") or 0) < 100:
        out.append(f"the starter scores {r.get('score')}, want 0 < score < 100")
    want = starter_score(spec)
    if kind == "starter" and want is not None and r.get("score") != want:
        out.append(f"the starter scores {r.get('score')}, its spec says {want}")
    return out


def starter_score(path):
    """The spec's `# starter scores: N`, or None."""
    with open(path) as f:
        for line in f:
            m = re.match(r"# starter scores: (\d+)", line)
            if m:
                return int(m.group(1))
    return None


def main(argv):
    if len(argv) != 3 or argv[2] not in ("starter", "solution"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    found = problems(*argv)
    for p in found:
        print(f"{os.path.basename(argv[0])}: {p}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
