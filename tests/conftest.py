"""Shared fixtures for Quiescent's pytest suites.

Every configuration is built once per session (qs.build caches builds in
the process), boots with identical parameters are shared (qs.boot.boot(cache=True)),
and each scenario's one-line summary is printed at the end of the session.
Under pytest-xdist (make test's -n) every case goes to whichever worker
is free (qs.build lets one make at a time into a build directory), except
the ISO cases of one build, which stay on one worker: each rewrites that
build's quiescent.iso (its grub.cfg carries the command line), so two at
once would boot each other's command line. The grouping is this file's
scheduler (pytest_xdist_make_scheduler), not xdist's `xdist_group` marks:
with pytest 9, xdist 3.8's loadgroup renames `item._nodeid`, which pytest
no longer reads, so those marks group nothing. Cases that write a shared
file take a per-worker copy instead (PYTEST_XDIST_WORKER).
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
from scheduling import case_group, make_scheduler  # noqa: E402

SUMMARY = []
ACCEL_NOTES = []
_pending = []                    # this case's summary lines, not yet reported
_notes_sent = set()              # qkvm.accel_notes already reported from this process


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
    """A line for the end-of-run summary. It travels in the case's report
    (user_properties), so that under xdist the controller, not the worker
    that ran the case, prints it."""
    _pending.append(line)


def pytest_addoption(parser):
    parser.addoption("--full", action="store_true",
                     help="also run the cases marked full (make test-full)")


def pytest_collection_modifyitems(config, items):
    skip_full = pytest.mark.skip(reason="a long check: make test-full (pytest --full) runs it")
    for item in items:
        if "full" in item.keywords and not config.getoption("full"):
            item.add_marker(skip_full)


def pytest_xdist_make_scheduler(config, log):
    from qs.scenario import scenarios
    iso_builds = {sc.name: sc.build_name for sc in scenarios() if sc.boot == "iso"}
    return make_scheduler(config, log, lambda nodeid: case_group(nodeid, iso_builds))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    for note in qkvm.accel_notes:
        if note not in _notes_sent:
            _notes_sent.add(note)
            outcome.get_result().user_properties.append(("qs_accel", note))
    if _pending:
        outcome.get_result().user_properties.extend(("qs_summary", l) for l in _pending)
        _pending.clear()


def pytest_runtest_logreport(report):
    SUMMARY.extend(v for k, v in report.user_properties if k == "qs_summary")
    ACCEL_NOTES.extend(v for k, v in report.user_properties if k == "qs_accel" and v not in ACCEL_NOTES)


def pytest_terminal_summary(terminalreporter):
    if SUMMARY:
        terminalreporter.section("Quiescent runs (one line per boot)")
        for note in ACCEL_NOTES:
            terminalreporter.write_line(note)
        for line in SUMMARY:
            terminalreporter.write_line(line)
