"""A bad configuration fails the build with a readable message."""
import os
import subprocess
import sys

import pytest

from qs import REPO

pytestmark = pytest.mark.build


def kconfig_defconfig(tmp_path, text):
    frag = tmp_path / "bad_defconfig"
    frag.write_text(text)
    env = dict(os.environ, KCONFIG_CONFIG=str(tmp_path / ".config"))
    return subprocess.run([sys.executable, "tools/kconfig.py", "defconfig", str(frag)], cwd=REPO,
                          env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.mark.parametrize("line, words", [
    ("CONFIG_HZ_250=maybe", ["HZ_250", "maybe"]),
    ("CONFIG_NR_CPUS=999", ["NR_CPUS", "999"]),
    ("CONFIG_NR_CPUS=many", ["NR_CPUS", "many"]),
    ("CONFIG_NO_SUCH_OPTION=y", ["NO_SUCH_OPTION"]),
    ("CONFIG_RCU_CALL_RT_DIRECT=y", ["RCU_CALL_RT_DIRECT", "NR_CPUS = 1"]),
    ("CONFIG_RCU_XRCU=y\nCONFIG_RCU_THROTTLE=y", ["RCU_THROTTLE", "RCU_LTIMER"]),
    ("CONFIG_KPREEMPT_NONE=y\nCONFIG_RCU_PREEMPT=y", ["RCU_PREEMPT", "KPREEMPT"]),
], ids=["bool-maybe", "nr-cpus-out-of-range", "int-not-a-number", "undefined-symbol",
        "rcu-rt-direct-needs-one-cpu", "rcu-throttle-needs-ltimer", "rcu-preempt-needs-preempt"])
def test_bad_defconfig_is_refused(tmp_path, line, words):
    p = kconfig_defconfig(tmp_path, (REPO / "configs/defconfig").read_text() + line + "\n")
    assert p.returncode != 0, f"'{line}' was accepted:\n{p.stdout}"
    assert "Traceback" not in p.stdout, p.stdout
    for w in words:
        assert w in p.stdout, f"the message does not name {w!r}:\n{p.stdout}"


def test_bad_config_fails_make(tmp_path):
    """A hand-edited .config with a bad value stops `make` before compiling."""
    (tmp_path / ".config").write_text("CONFIG_HZ_250=maybe\n")
    p = subprocess.run(["make", "--no-print-directory", f"O={tmp_path}"], cwd=REPO,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode != 0, p.stdout
    assert "HZ_250" in p.stdout and "maybe" in p.stdout, p.stdout
    assert "  CC " not in p.stdout, "compiled with a bad configuration"


def test_unknown_defconfig_lists_the_available_ones(tmp_path):
    p = subprocess.run(["make", "--no-print-directory", f"O={tmp_path}", "no_such_defconfig"],
                       cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode != 0
    assert "no_such_defconfig" in p.stdout and "defconfig" in p.stdout.split("Available")[-1]


def test_good_defconfig_round_trips(tmp_path):
    """make <name>_defconfig then savedefconfig gives back the same settings."""
    p = subprocess.run(["make", "--no-print-directory", f"O={tmp_path}", "defconfig"], cwd=REPO,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    p = subprocess.run(["make", "--no-print-directory", f"O={tmp_path}", "savedefconfig"], cwd=REPO,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    saved = {l for l in (tmp_path / "defconfig").read_text().split("\n") if l.startswith("CONFIG_")}
    orig = {l for l in (REPO / "configs/defconfig").read_text().split("\n") if l.startswith("CONFIG_")}
    cfg = (tmp_path / ".config").read_text()
    for l in orig:
        assert l in cfg, f"{l} from configs/defconfig missing in .config"
    assert saved <= orig | {l for l in cfg.split("\n") if l.startswith("CONFIG_")}


def test_short_form_unknown_variant_lists_the_choices(tmp_path):
    """`make run RCU=<name>`: an unknown name stops make and lists the names."""
    p = subprocess.run(["make", "--no-print-directory", "RCU=nosuch", f"O={tmp_path}", "kernel"],
                       cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode != 0, p.stdout
    assert "RCU=nosuch" in p.stdout and "ltimer" in p.stdout and "poll" in p.stdout, p.stdout


def test_short_form_builds_the_variant(tmp_path):
    """`RCU=poll KPREEMPT=1` configures from configs/rcu_poll_kpreempt_defconfig."""
    p = subprocess.run(["make", "--no-print-directory", "RCU=poll", "KPREEMPT=1", f"O={tmp_path}",
                        f"{tmp_path}/.config"], cwd=REPO, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    cfg = (tmp_path / ".config").read_text()
    assert "CONFIG_RCU_POLL=y" in cfg and "CONFIG_KPREEMPT=y" in cfg, cfg


def test_whole_suite_sanitizer_is_added_to_every_build(monkeypatch):
    """QS_SANITIZER=kasan adds KASAN to a scenario's build; a build that
    names KCSAN keeps it (GCC refuses the pair); a misspelling is refused
    with what is allowed."""
    from qs.build import BuildError, configure, read_config, sanitizer_options
    monkeypatch.setenv("QS_SANITIZER", "kasan")
    assert sanitizer_options(("CONFIG_RCU_DEBUG_READ=y",)) == ("CONFIG_RCU_DEBUG_READ=y", "CONFIG_KASAN=y")
    assert sanitizer_options(("CONFIG_KCSAN=y",)) == ("CONFIG_KCSAN=y",)
    bdir = configure("test-sanitizer-option")
    assert read_config(bdir).get("CONFIG_KASAN") == "y"
    monkeypatch.setenv("QS_SANITIZER", "kasn")
    with pytest.raises(BuildError, match="kasan, kcsan"):
        sanitizer_options(())
    monkeypatch.delenv("QS_SANITIZER")
    assert sanitizer_options(("CONFIG_X=y",)) == ("CONFIG_X=y",)
