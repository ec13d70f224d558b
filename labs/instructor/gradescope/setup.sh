#!/bin/bash
# Gradescope autograder setup (labs/README.md, "Grading on Gradescope"):
# run once, as root, when Gradescope builds the autograder's image from the
# zip. The zip holds this file, run_autograder, and the course's full tree
# (labs/instructor/ included) as quiescent/. Pick Gradescope's Ubuntu 24.04
# base image: the tools need QEMU 7.2 or later and Python 3.11 (tomllib),
# which 22.04 does not have.
set -eu
SRC=/autograder/source/quiescent
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends qemu-system-x86 nasm grub-common grub-pc-bin \
	xorriso mtools gcc make binutils python3 python3-pip gdb
# The Python modules (kconfiglib, pytest, matplotlib, pexpect) and a check
# of everything the build and the boots need: the tree's own script.
cd "$SRC"
PYTHON=python3 tools/setup-deps.sh
python3 -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11 or later (tomllib): use the Ubuntu 24.04 image"'
# Build every configuration the graders boot once here, so that a
# submission only recompiles the student's file (a first build takes
# about two minutes per configuration).
for cfg in $(sed -n 's/^config = "\(.*\)"/\1/p' labs/lab*/grade.toml | sort -u); do
	python3 -c "import sys; sys.path.insert(0, 'tools')
from qs.build import build
build('test-$cfg', '$cfg')" || echo "setup: configs/$cfg did not build" >&2
done
