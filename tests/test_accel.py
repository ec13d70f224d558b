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
