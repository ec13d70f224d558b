"""syzq, the coverage-guided fuzzer, and its host half (docs/fuzzing.md).

The parts that need no boot (the reducer, the text form, the initrd,
crash titles, the C writer) run in make test in well under a second; the
scenario syzq-kcov-smp2 is make test's short run of the loop itself. The planted bug (fault=kill_signal_self:warn:
a WARNING when kill() queues a real signal on the caller's own process,
reachable only by a program that passes what getpid() returned to
kill()) is found, reduced to a few calls and written as a C program
that reproduces it, while the random `fuzz` misses it in the same time;
and tools/fuzz.py, make fuzz's command, run twice, keeps its corpus
between the runs: make test-full (a PROVE_RCU+KCOV build and some twenty
boots, about four minutes).
"""
import re

import pytest

from qs import boot as qboot
from qs import fuzz
from qs.boot import BootResult

PLANTED = "fault=kill_signal_self:warn"


def test_ddmin_finds_the_two_that_matter():
    calls = []

    def test(s):
        calls.append(len(s))
        return 3 in s and 11 in s
    assert fuzz.ddmin(list(range(16)), test) == [3, 11]
    assert len(calls) < 40


def test_ddmin_keeps_what_it_cannot_shrink():
    assert fuzz.ddmin([1, 2], lambda s: len(s) == 2) == [1, 2]


def test_text_form_round_trip_and_drop_call():
    text = "pipe2(0,2048);write(s0,0,16);fork();kill(r2,9)"
    calls = fuzz.parse_prog(text)
    assert fuzz.format_prog(calls) == text
    # Without the pipe, the write's descriptor is a plain -1, and kill's
    # reference moves down with the fork.
    assert fuzz.format_prog(fuzz.drop_call(calls, 0)) == "write(-1,0,16);fork();kill(r1,9)"
    with pytest.raises(ValueError):
        fuzz.parse_prog("kill r2")


def test_collide_programs_keep_their_mode_through_the_reducer():
    """A collide program (two processes run it at once) reduced call by
    call is still one: without its prefix syzq -r would run it in one
    process, where the race it found cannot happen."""
    text = "collide:qs_creat(2,420,0);qs_creat(1,420,0);rename(1,2);stat(2,0)"
    mode, calls = fuzz.split_mode(text)[0], fuzz.parse_prog(text)
    assert mode == "collide:" and len(calls) == 4
    assert fuzz.format_prog(fuzz.drop_call(calls, 0), mode) == \
        "collide:qs_creat(1,420,0);rename(1,2);stat(2,0)"
    assert fuzz.split_mode("stat(2,0)") == ("", "stat(2,0)")


def test_every_description_parses():
    descs = fuzz.parse_descs()
    assert descs["kill"] == ["PID", "SIG"] and descs["fork"] == []
    assert len(descs) > 70


def test_crash_titles_drop_what_differs_between_runs():
    a = "[    3.120000] cpu1: WARNING: CPU 1: fault point kill_signal_self reached (x)"
    b = "[   17.000001] cpu0: WARNING: CPU 0: fault point kill_signal_self reached (x)"
    assert fuzz.title_of(a) == fuzz.title_of(b) == "WARNING: CPU: fault point kill_signal_self reached (x)"
    k = "BUG: KASAN: use-after-free in d_lookup_rcu+0x4c/0x120 at addr ffff800001234560"
    assert fuzz.title_of(k) == "BUG: KASAN: use-after-free in d_lookup_rcu at addr ADDR"


def _result(log, status="pass"):
    return BootResult(cmd=[], boot="kernel", cpus=2, cmdline="", accel="tcg", exit_code=0,
                      status=status, elapsed=1.0, log_path="", log=log, console=None)


def test_crash_title_of_a_boot():
    assert fuzz.crash_title(_result("syzq: done: 10 programs\n")) == ""
    assert fuzz.crash_title(_result("[  1.0] cpu0: syzq: FAIL: allocations not back\n")) == \
        "syzq: allocations not back"
    assert fuzz.crash_title(_result("x\n", status="timeout")).startswith("hang")
    assert fuzz.crash_title(_result("[ 1.0] cpu1: BUG: scheduling while atomic\n")) == \
        "BUG: scheduling while atomic"


@pytest.mark.parametrize("report", ["[ 20.1] cpu1: syzq: FAIL: collide: no order of two "
                                    "processes' calls explains their results",
                                    "[ 20.1] cpu0: WARNING: CPU: 0 PID: 9 at x.c:1 f+0x1/0x2"])
def test_programs_saved_are_those_before_the_report(tmp_path, monkeypatch, report):
    """What ran after the report did not cause it: the programs handed to
    the reducer stop at the report's line, whatever kind of report it is
    (a collide's FAIL does not stop the guest, which runs on for minutes
    past the 48 programs kept)."""
    fz = fuzz.Fuzzer(cpus=2, work=tmp_path, say=lambda s: None, reduce=False)
    lines = [f"[ 1.0] cpu0: syzq: run w{i % 2} getpid();p{i}()" for i in range(10)]
    lines += [report] + [f"[ 30.0] cpu0: syzq: run w{i % 2} later{i}()" for i in range(100)]

    def boot(variant, cmd, files, timeout, watch=None, tag="run"):
        for ln in lines:
            watch(ln + "\n")
        return _result("\n".join(lines) + "\n")
    monkeypatch.setattr(fz, "boot", boot)
    got = {}
    monkeypatch.setattr(fz, "found", lambda title, v, r, progs, n=0: got.update(progs=progs))
    fz.fuzz_boot("prove", 10)
    assert got["progs"] and not any("later" in p for p in got["progs"]), got
    assert got["progs"][-2:] == ["getpid();p8()", "getpid();p9()"], got


def test_initrd_gets_the_corpus(tmp_path):
    src = tmp_path / "a.cpio"
    src.write_bytes(fuzz._cpio_entry("bin/x", b"abc", 1, 0o100755) +
                    fuzz._cpio_entry("TRAILER!!!", b"", 0, 0))
    out = fuzz.cpio_with(src, {"etc/fuzz/corpus": b"fork()\n"})
    names = re.findall(rb"070701[0-9a-f]{104}([^\0]+)\0", out)
    assert names == [b"bin/x", b"etc", b"etc/fuzz", b"etc/fuzz/corpus", b"TRAILER!!!"]
    assert b"fork()\n" in out and len(out) % 512 == 0


def test_c_reproducer_text():
    src = fuzz.c_program("fork();kill(r0,9)", "WARNING: x", "repro_x")
    assert "r[0] = s[0] = fork();" in src
    assert "__syscall6(SYS_kill, r[0], 9L, 0, 0, 0, 0)" in src
    # A structure only syzq builds (a seeded sockaddr) is not written out.
    assert fuzz.c_program("socket(2,2,0);bind(r0,77,16)", "t", "n") is None


@pytest.mark.qemu
@pytest.mark.full
def test_planted_bug_found_reduced_and_reproduced(tmp_path):
    """The fuzzer finds the planted bug in a minute, reduces it to a few
    calls that end in a kill() of the pid getpid() returned, and
    the C program it writes reproduces it on a fresh boot."""
    fz = fuzz.Fuzzer(cpus=2, args=PLANTED, work=tmp_path, say=print)
    fz.run(60)
    titles = [c.title for c in fz.crashes]
    assert any("kill_signal_self" in t for t in titles), titles
    c = next(c for c in fz.crashes if "kill_signal_self" in c.title)
    assert c.reproduced, c.dir
    calls = fuzz.parse_prog(c.repro)
    assert len(calls) <= 3, c.repro
    assert calls[-1][0] == "kill" and calls[-1][1][0][0] == "r", c.repro
    assert calls[int(calls[-1][1][0][1:])][0] == "getpid", c.repro
    assert c.c_path and c.c_reproduces, c.dir


@pytest.mark.qemu
@pytest.mark.full
def test_random_fuzz_misses_the_planted_bug(kvm):
    """A million calls of `fuzz` (some 15 s of guest time here, longer
    than syzq takes to find the bug; a two-minute soak saturates its
    coverage) never reach it: its kill() sends signal 0 only."""
    r = qboot.boot(name="fuzz-prove", options=fuzz.options_for("prove"), cpus=2, timeout=400,
                   cmdline=f"{PLANTED} -- fuzz 2 500000; poweroff", kvm=kvm)
    assert "fuzz: PASS" in r.log, r.tail()
    assert "kill_signal_self reached" not in r.log, r.tail()


@pytest.mark.qemu
@pytest.mark.full
def test_make_fuzz_keeps_its_corpus(tmp_path, capsys):
    """tools/fuzz.py twice (40 s each, make fuzz's own command): the first
    run finds no crash and leaves a corpus in its folder; the second
    boots with it in the initrd, and its warm-up, as long as the first
    one's, reaches more edges than the first one's did."""
    from fuzz import main as fuzz_main      # tools/fuzz.py
    assert fuzz_main(["--duration", "40s", "--work", str(tmp_path)]) == 0
    first = (tmp_path / "corpus.txt").read_text().split()
    out = capsys.readouterr().out
    assert len(first) > 20, out
    warm1 = [int(m) for m in re.findall(r"warm-up \d+ s: \d+ programs \S+, (\d+) edges", out)]
    assert fuzz_main(["--duration", "40s", "--work", str(tmp_path), "--seed", "2"]) == 0
    out2 = capsys.readouterr().out
    assert f"fuzz: {len(first)} programs in the corpus" in out2, out2
    warm2 = [int(m) for m in re.findall(r"warm-up \d+ s: \d+ programs \S+, (\d+) edges", out2)]
    assert warm1 and warm2 and warm2[-1] > warm1[-1], (warm1, warm2)


@pytest.mark.qemu
@pytest.mark.full
def test_corpus_coverage_is_what_its_calls_ran(tmp_path):
    """make fuzz's coverage report of a corpus (syzq -r -C, one boot) of
    one semget(): sys_semget is reached; nothing of kernel/fs, kernel/net
    or kernel/module is, since KCOV covers the calling task only and the
    executor drops what its own setup ran before each call."""
    fz = fuzz.Fuzzer(cpus=2, work=tmp_path, say=print)
    fz.corpus = ["semget(0,1,512)"]
    areas = {ln.split(":")[0]: ln for ln in fz.coverage()}
    assert "functions 0/" not in areas["kernel/ipc"], areas
    for a in ("kernel/fs", "kernel/net", "kernel/module"):
        assert f"{a}: functions 0/" in areas[a], areas
    table = (tmp_path / "coverage.txt").read_text()
    sem = re.search(r"^kernel/ipc/sem\.c .*\n(    never reached: .*)?", table, re.M)
    assert sem and "sys_semget" not in (sem.group(1) or ""), table
