"""A KTAP version 1 parser for Quiescent's console log.

The kernel (kernel/core/ktest.c) prints, raw and without the printk prefix:

    KTAP version 1
    1..3
        # smp_ipi_reaches_all: 4 CPUs answered
    ok 1 smp_ipi_reaches_all
    not ok 2 broken_thing
    ok 3 needs_two_cpus # SKIP only one CPU
    # ktest summary: 3 tests, 1 passed, 1 failed, 1 skipped

Diagnostics ("    # ...") belong to the test whose result line follows
them. printk lines ("[    1.234567] cpu2: ...") and anything else that is
not KTAP may be interleaved anywhere and are ignored, so the parser can be
fed the whole console log.

Library:   parse(text) -> Report
CLI:       ktap.py LOGFILE     prints the results and exits 0 if all passed
"""
import re
import sys
from dataclasses import dataclass, field

_VERSION = re.compile(r"^\s*KTAP version (\d+)\s*$")
_PLAN = re.compile(r"^\s*1\.\.(\d+)\s*$")
_RESULT = re.compile(r"^\s*(not ok|ok)\s+(\d+)\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*?))?\s*$")
_DIAG = re.compile(r"^\s+#\s?(.*)$")
_SUMMARY = re.compile(r"^# ktest summary: (\d+) tests, (\d+) passed, (\d+) failed, (\d+) skipped")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Z0-9]")


@dataclass
class Result:
    number: int
    name: str
    ok: bool
    skipped: bool = False
    directive: str = ""          # the text after '#', e.g. "SKIP only one CPU"
    diagnostics: list = field(default_factory=list)

    @property
    def status(self):
        if self.skipped:
            return "skip"
        return "pass" if self.ok else "fail"


@dataclass
class Report:
    version: int = None          # None: no "KTAP version" line seen
    planned: int = None          # from "1..N"
    results: list = field(default_factory=list)
    summary: dict = None         # the kernel's own summary line, if printed
    stray_diagnostics: list = field(default_factory=list)  # after the last result

    @property
    def passed(self):
        return [r for r in self.results if r.ok and not r.skipped]

    @property
    def failed(self):
        return [r for r in self.results if not r.ok]

    @property
    def skipped(self):
        return [r for r in self.results if r.skipped]

    @property
    def complete(self):
        """Every planned result was printed (the run was not cut short)."""
        return self.planned is not None and len(self.results) == self.planned

    @property
    def all_ok(self):
        return self.version is not None and self.complete and not self.failed

    def by_name(self, name):
        for r in self.results:
            if r.name == name:
                return r
        return None

    def problems(self):
        """Human-readable reasons why this report is not a clean pass."""
        out = []
        if self.version is None:
            out.append("no 'KTAP version' line (did the kernel run any tests?)")
        if self.planned is None and self.version is not None:
            out.append("no test plan line '1..N'")
        elif self.planned is not None and len(self.results) != self.planned:
            out.append(f"plan said {self.planned} tests, {len(self.results)} results printed")
        for r in self.failed:
            d = "; ".join(r.diagnostics[-5:])
            out.append(f"not ok {r.number} {r.name}" + (f": {d}" if d else ""))
        if self.summary and self.results:
            s = self.summary
            if (s["failed"] != len(self.failed) or s["skipped"] != len(self.skipped)
                    or s["tests"] != len(self.results)):
                out.append(f"kernel summary {s} disagrees with the result lines")
        return out

    def line(self):
        """One-line summary, e.g. 'ktap 7/7 ok (0 failed, 1 skipped)'."""
        if self.version is None:
            return "ktap: none"
        n = self.planned if self.planned is not None else "?"
        return (f"ktap {len(self.passed) + len(self.skipped)}/{n} ok "
                f"({len(self.failed)} failed, {len(self.skipped)} skipped)")


def clean(text):
    """Strip ANSI escapes (GRUB's screen control) and carriage returns."""
    return _ANSI.sub("", text).replace("\r", "")


def parse(text):
    rep = Report()
    pending = []                 # diagnostics waiting for their result line
    for line in clean(text).split("\n"):
        if line.startswith("["):          # printk line: "[    1.2] cpu0: ..."
            continue
        m = _VERSION.match(line)
        if m:
            rep.version = int(m.group(1))
            continue
        m = _SUMMARY.match(line)
        if m:
            rep.summary = dict(zip(("tests", "passed", "failed", "skipped"),
                                   map(int, m.groups())))
            continue
        if rep.version is None:
            continue                      # KTAP starts at its version line
        m = _PLAN.match(line)
        if m and rep.planned is None:
            rep.planned = int(m.group(1))
            continue
        m = _DIAG.match(line)
        if m:
            pending.append(m.group(1))
            continue
        m = _RESULT.match(line)
        if m:
            directive = (m.group(4) or "").strip()
            skipped = directive.upper().startswith("SKIP")
            rep.results.append(Result(number=int(m.group(2)), name=m.group(3).strip(),
                                      ok=m.group(1) == "ok", skipped=skipped,
                                      directive=directive, diagnostics=pending))
            pending = []
    rep.stray_diagnostics = pending
    return rep


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    with open(argv[1], errors="replace") as f:
        rep = parse(f.read())
    for r in rep.results:
        extra = f"  # {r.directive}" if r.directive else ""
        print(f"{r.status:4}  {r.name}{extra}")
        if not r.ok:
            for d in r.diagnostics:
                print(f"      {d}")
    print(rep.line())
    for p in rep.problems():
        print("problem:", p)
    return 0 if rep.all_ok else 1

