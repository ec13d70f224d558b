"""The accelerator choice (tools/qs/kvm.py) without QEMU: the verdict from
bench_accel's figures, the CPU model on the one QEMU command line, and
what KVM=0/1/force decide from a probe's result. A KVM that boots but
emulates the guest's kernel code (an add in hundreds of ns) must not be
used for KVM=1, and the reason must reach the caller."""
import json

import pytest

from qs import kvm as qkvm
from qs.qemu import qemu_command

# bench_accel on the 2-core development machine (ns): kvm-pvm emulating
# the kernel with -cpu host,-arch-capabilities, and TCG.
EMULATED = {"add": 822.74, "loop": 1575.37, "rdtsc": 5807.34, "pause": 2304.17, "lock_inc": 3405.73}
TCG = {"add": 0.09, "loop": 1.06, "rdtsc": 12.24, "pause": 209.46, "lock_inc": 9.43}
NATIVE = {"add": 0.12, "loop": 0.4, "rdtsc": 9.0, "pause": 12.0, "lock_inc": 5.5}


def test_verdict_from_bench_accel():
    ok, why = qkvm.judge_speed(EMULATED, TCG)
    assert ok is False and "emulates" in why and "823 ns" in why, why
    ok, why = qkvm.judge_speed(NATIVE, TCG)
    assert ok is True and "natively" in why, why
    ok, why = qkvm.judge_speed({}, TCG)
    assert ok is None, why


def cmd_cpu(cmd):
    return cmd[cmd.index("-cpu") + 1], cmd[cmd.index("-accel") + 1]


def test_cpu_model_on_the_command_line(tmp_path, monkeypatch):
    assert cmd_cpu(qemu_command("k.elf", accel="tcg")) == ("max", "tcg,thread=multi")
    assert cmd_cpu(qemu_command("k.elf", accel="kvm", cpu="host,-arch-capabilities")) == \
        ("host,-arch-capabilities", "kvm")
    # without cpu=, KVM boots with the model the cached probe found
    probe = tmp_path / ".kvm-probe"
    monkeypatch.setattr(qkvm, "KVM_PROBE_FILE", probe)
    assert cmd_cpu(qemu_command("k.elf", accel="kvm"))[0] == "host"
    probe.write_text(json.dumps(dict(key=qkvm._probe_key(), ok=False, reason="x",
                                     cpu="host,-arch-capabilities")))
    assert cmd_cpu(qemu_command("k.elf", accel="kvm"))[0] == "host,-arch-capabilities"


@pytest.fixture
def probed(monkeypatch):
    """decide() against a probe result set by the test."""
    result = {}
    monkeypatch.setattr(qkvm, "kvm_probe", lambda elf, force=False: dict(result))
    monkeypatch.setattr(qkvm, "kvm_usable", lambda: True)
    return result


def test_decide_falls_back_and_says_why(probed):
    probed.update(ok=False, cpu="host,-arch-capabilities",
                  reason="-cpu host,-arch-capabilities: KVM here emulates the guest's kernel code")
    assert qkvm.decide("0", "k.elf").accel == "tcg"
    for kvm in ("1", "auto"):
        a = qkvm.decide(kvm, "k.elf")
        assert (a.accel, a.cpu) == ("tcg", "max"), a
        assert "KVM not used" in a.why and "emulates" in a.why, a.why
    a = qkvm.decide("force", "k.elf")
    assert (a.accel, a.cpu) == ("kvm", "host,-arch-capabilities"), a
    assert "emulates" in a.why, a.why


def test_decide_uses_native_kvm_with_the_probed_model(probed):
    probed.update(ok=True, cpu="host,-arch-capabilities",
                  reason="-cpu host,-arch-capabilities: KVM runs kernel code natively")
    a = qkvm.decide("1", "k.elf")
    assert (a.accel, a.cpu) == ("kvm", "host,-arch-capabilities"), a


def test_force_without_a_bootable_model_is_an_error(probed):
    probed.update(ok=False, cpu=None, reason="no CPU model boots under KVM")
    with pytest.raises(SystemExit):
        qkvm.decide("force", "k.elf")
    assert qkvm.decide("1", "k.elf").accel == "tcg"


def _fake_boot(results, calls):
    """qs.boot.boot_image replaced: each call pops the result set for its
    accelerator and CPU model and records the timeout it was given."""
    from types import SimpleNamespace as NS

    def boot_image(elf, accel, cpu=None, timeout=60, **kw):
        calls.append((accel, cpu, timeout))
        status, elapsed, log, bench, stderr = results[(accel, cpu)]
        banner = {"cpus": 2} if "config:" in log else None
        return NS(status=status, elapsed=elapsed, log=log, stderr=stderr,
                  console=NS(banner=banner, bench=[dict(bench="accel", op=op, ps=ns * 1000)
                                                   for op, ns in bench.items()]),
                  describe_status=lambda: status)
    return boot_image


@pytest.fixture
def probe_env(tmp_path, monkeypatch):
    from qs import boot as qboot
    results, calls = {}, []
    monkeypatch.setattr(qkvm, "KVM_PROBE_FILE", tmp_path / ".kvm-probe")
    monkeypatch.setattr(qkvm, "kvm_usable", lambda: True)
    monkeypatch.setattr(qboot, "boot_image", _fake_boot(results, calls))
    return results, calls


def test_probe_waits_on_kvm_only_as_long_as_tcg_justifies(probe_env):
    """A KVM that starts the guest but is still running it long after TCG
    finished is judged from that, at once: the probe does not wait out a
    minute, nor go on to try the other CPU models (each would be as slow)."""
    results, calls = probe_env
    done = "config: HZ=100 CPUs=2\nktap ok\n"
    results[("tcg", None)] = ("pass", 2.0, done, TCG, "")
    results[("kvm", "host")] = ("timeout", 10.0, "config: HZ=100 CPUs=2\n", {}, "")
    d = qkvm.kvm_probe("k.elf")
    assert calls[0][0] == "tcg", calls                 # TCG first: it sets the wait
    kvm_calls = [c for c in calls if c[0] == "kvm"]
    assert [c[1] for c in kvm_calls] == ["host"], calls
    assert kvm_calls[0][2] <= qkvm.kvm_wait(2.0) <= 20, calls
    assert d["ok"] is False and d["cpu"] == "host", d
    assert "slower than TCG" in d["reason"], d["reason"]


def test_probe_moves_past_a_refused_model(probe_env):
    results, calls = probe_env
    done = "config: HZ=100 CPUs=2\nktap ok\n"
    results[("tcg", None)] = ("pass", 2.0, done, TCG, "")
    results[("kvm", "host")] = ("crash", 0.2, "", {},
                                "qemu-system-x86_64: error: failed to set MSR 0x10a")
    results[("kvm", "host,-arch-capabilities")] = ("pass", 0.5, done, NATIVE, "")
    d = qkvm.kvm_probe("k.elf")
    assert [c[1] for c in calls if c[0] == "kvm"] == ["host", "host,-arch-capabilities"], calls
    assert d["ok"] is True and d["cpu"] == "host,-arch-capabilities", d
    assert "MSR 0x10a" in d["tried"][0]["result"], d["tried"]
