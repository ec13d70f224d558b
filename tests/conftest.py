"""Shared fixtures for Quiescent's pytest suites.

Every configuration is built once per session (qs.build caches builds in
the process), boots with identical parameters are shared (qs.boot.boot(cache=True)),
and each scenario's one-line summary is printed at the end of the session.
The accelerator comes from the environment: KVM=0 (TCG), 1 or auto (the
default: KVM if the cached probe passed, TCG otherwise).
"""
import os
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parent.parent / "tools"
sys.path.insert(0, str(TOOLS))
from qs import boot as qboot, build as qbuild, kvm as qkvm  # noqa: E402

SUMMARY = []


@pytest.fixture(scope="session")
def kvm():
    return os.environ.get("KVM", "auto")


@pytest.fixture(scope="session")
def defconfig_elf():
    """build/test-defconfig/quiescent.elf, built once."""
    try:
        return qbuild.build("test-defconfig", "defconfig")
    except qbuild.BuildError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def boot(kvm, defconfig_elf):
    """boot(cpus=, cmdline=, boot='kernel', timeout=) -> qs.boot.BootResult,
    shared between tests that ask for the same run."""
    def _boot(cpus=4, cmdline="", boot="kernel", timeout=60, label=None):
        try:
            return qboot.boot(name="test-defconfig", boot=boot, cpus=cpus, cmdline=cmdline,
                              timeout=timeout, kvm=kvm, label=label, cache=True)
        except qbuild.BuildError as e:
            pytest.fail(str(e), pytrace=False)
    return _boot


def record_summary(line):
    SUMMARY.append(line)


def pytest_terminal_summary(terminalreporter):
    if SUMMARY:
        terminalreporter.section("Quiescent runs (one line per boot)")
        for note in qkvm.accel_notes:
            terminalreporter.write_line(note)
        for line in SUMMARY:
            terminalreporter.write_line(line)
