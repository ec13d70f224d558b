"""The README's gdb walk, as a student does it, from an idle boot.

Terminal 1 runs `make gdb` (QEMU stopped, gdb attached), terminal 2 `make
console`; both are pseudo-terminals driven by pexpect. In gdb: continue,
then, once the shell's prompt is on the console, Ctrl-C, qs-rcu-gp,
continue; at the console: rcu sync. gdb must stop where the grace period
begins and where it ends, qs-rcu must show the waiting synchronize_rcu()
callback at the first stop, and after the last continue the shell says synchronize_rcu()
returned. On an idle kernel nothing else starts a grace period, so
without `rcu sync` the walk would wait forever (the test would time out).
"""
import os
import re
import sys

import pexpect
import pytest

from qs import REPO
from qs.build import BuildError, build

pytestmark = pytest.mark.qemu
GDB_PROMPT = r"\(gdb\) "
SHELL_PROMPT = r"(?:^|\n)\$ "


@pytest.fixture(scope="module")
def ltimer_dir():
    try:
        elf = build("test-rcu_ltimer_defconfig", "rcu_ltimer_defconfig")
    except BuildError as e:
        pytest.fail(str(e), pytrace=False)
    return os.path.relpath(elf.parent, REPO)


class Terminal:
    """A program on a pseudo-terminal, everything it printed kept."""

    def __init__(self, argv, timeout=60):
        # TERM=dumb: gdb prints no colours or bracketed-paste codes.
        self.p = pexpect.spawn(argv[0], argv[1:], cwd=REPO, encoding="utf-8",
                               codec_errors="replace", timeout=timeout, echo=False,
                               env=dict(os.environ, TERM="dumb"))
        self.text = []
        self.p.logfile_read = self

    def write(self, s):
        self.text.append(s)

    def flush(self):
        pass

    def expect(self, rx, timeout=-1):
        try:
            self.p.expect(rx, timeout=timeout)
        except (pexpect.TIMEOUT, pexpect.EOF) as e:
            pytest.fail(f"never saw /{rx}/ ({type(e).__name__}); it printed:\n"
                        + "".join(self.text)[-3000:], pytrace=False)
        return self.p.before

    def command(self, line, timeout=-1):
        """A gdb command and what it printed up to the next prompt."""
        self.p.sendline(line)
        return self.expect(GDB_PROMPT, timeout)

    def close(self):
        self.p.close(force=True)


def test_readme_gdb_walk(ltimer_dir):
    gdb = Terminal(["make", "--no-print-directory", "gdb", f"O={ltimer_dir}", "CPUS=2"])
    con = None
    try:
        gdb.expect(GDB_PROMPT)                       # stopped at the first instruction
        con = Terminal([sys.executable, "tools/console.py", "--build-dir", ltimer_dir])
        con.expect("console: attached")
        gdb.p.sendline("continue")
        gdb.expect("Continuing.")
        con.expect(SHELL_PROMPT, timeout=120)        # booted; the shell is idle
        gdb.p.sendintr()                             # Ctrl-C
        gdb.expect(GDB_PROMPT)
        out = gdb.command("qs-rcu-gp")
        assert "rcu sync" in out, out
        gdb.p.sendline("continue")
        gdb.expect("Continuing.")
        con.p.send("rcu sync\r")

        stops, views = [], []
        # A grace period another callback started (a dead task's struct is
        # freed by call_rcu()) may come first: wait for the one the shell's
        # synchronize_rcu() callback is in.
        def ours():
            return any(s == "rcu_gp_begin" and "wakeme_after_rcu" in v for s, v in zip(stops, views))
        while len(stops) < 10 and not (ours() and "rcu_gp_end" in stops):
            out = gdb.expect(GDB_PROMPT, timeout=120)
            m = re.search(r"Breakpoint \d+, (rcu_gp_\w+) ", out)
            assert m, f"gdb stopped elsewhere:\n{out}"
            stops.append(m.group(1))
            views.append(gdb.command("qs-rcu"))
            gdb.p.sendline("continue")
            gdb.expect("Continuing.")
        # Where the grace period begins: the batches, and the callback the
        # student's synchronize_rcu() queued, named by its function.
        first = next((v for s, v in zip(stops, views) if s == "rcu_gp_begin" and "wakeme_after_rcu" in v),
                     views[stops.index("rcu_gp_begin")])
        assert re.search(r"rcu-ltimer: curbatch \d+ maxbatch \d+", first), first
        assert "wakeme_after_rcu" in first, first
        assert re.search(r"last grace period begun: (none|\d+), last ended: (none|\d+)", first), first
        assert "Python Exception" not in "".join(views), views

        gdb.p.sendintr()
        gdb.expect(GDB_PROMPT)
        gdb.command("delete")
        gdb.p.sendline("continue")
        gdb.expect("Continuing.")
        con.expect(r"rcu: synchronize_rcu\(\) returned after [\d.]+ ms", timeout=120)
        con.expect(SHELL_PROMPT)
        con.p.send("poweroff\r")
        con.expect(r"console: QEMU closed the console", timeout=60)
    finally:
        if con:
            con.close()
        gdb.close()
