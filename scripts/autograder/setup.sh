#!/usr/bin/env bash
# Gradescope runs this once, as root, on its Ubuntu 22.04 image, when it
# builds the autograder's image: the toolchain the grader needs (GCC,
# NASM, GRUB and xorriso for the boot image, QEMU), installed by the
# starter's own scripts/deps.sh, which uses apt-get directly when root;
# then the starter's kernels (prebuild), which each grade starts from.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends python3 ca-certificates
bash starter/scripts/deps.sh
bash starter/scripts/deps.sh --check
echo "setup: the toolchain of lab $(<lab) is installed"
AUTOGRADER_ROOT=$(dirname "$PWD") bash prebuild
echo "setup: the starter of lab $(<lab) is built"
