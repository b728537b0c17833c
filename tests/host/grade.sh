#!/usr/bin/env bash
# The lab grader's judgement without QEMU (tests/host/grade_check.py): KTAP
# reports with failures, skips, a panic mid-suite and a boot report, each
# judged per check, every kind of spec error, and the score as the JSON
# and Gradescope's results.json give it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
python3 -B tests/host/grade_check.py
