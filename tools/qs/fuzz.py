"""make fuzz: the host half of syzq, the coverage-guided fuzzer (docs/fuzzing.md).

The guest (user/bin/syzq.c) runs programs and prints what it finds; this
module boots it and keeps what a boot cannot: the corpus, in
build/fuzz/corpus.txt (the initrd carries it in as /etc/fuzz/corpus, the
console carries new programs out as `syzq: new` lines), and the crashes,
each in build/fuzz/crashes/<title>/ with its console log, the programs
that ran before it, and, once reduced, the shortest program that still
crashes a fresh boot, as syzq's text and as a C program for user/bin.

    from qs import fuzz
    fz = fuzz.Fuzzer(cpus=2, variants=["prove"])
    fz.run(seconds=60)                   # boots until the time is spent
    for c in fz.crashes: print(c.title, c.dir)
    print(fz.coverage())                 # what the corpus reaches, per file

A crash is what judges a console elsewhere in the tree (qs.judge: a
WARNING, BUG, Call Trace, panic or stall line), syzq's own FAIL (the
allocation counters not back at their baseline after rcu_barrier()), or
a boot that stops printing progress. The reducer is delta debugging
(Zeller and Hildebrandt's ddmin) over the programs, then over the calls
of the one left, then over the arguments (each literal tried as 0), each
test a fresh boot. Hypothesis's shrinker would need hundreds of test runs
and works on its own generated choice sequences; here a test run is a
boot of seconds and the failing input comes from the guest, which is what
ddmin is for: few tests of an input given from outside.
"""
import re
import shutil
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from qs import REPO
from qs.boot import StopOn, boot_image
from qs.build import build, run_make
from qs.judge import unexpected_lines

WORK = REPO / "build" / "fuzz"
CALLS_H = REPO / "user" / "bin" / "fuzz" / "calls.h"

# Every boot has PROVE_RCU and the lock validator (PROVE_RCU selects it);
# KASAN and KCSAN cannot share a kernel, so each is a build of its own.
VARIANTS = {
    "prove": [],
    "kasan": ["CONFIG_KASAN=y"],
    "kcsan": ["CONFIG_KCSAN=y"],
}
BASE_OPTIONS = ["CONFIG_PROVE_RCU=y", "CONFIG_PROVE_LOCKING=y", "CONFIG_FAULT_INJECT=y"]

RE_PREFIX = re.compile(r"^\[\s*\d+\.\d+\] cpu\d+: ")
RE_RUN = re.compile(r"^syzq: run w(\d+) (\S+)$")
RE_NEW = re.compile(r"^syzq: new w\d+ \+\d+ (\S+)$")
RE_PROGRESS = re.compile(r"^syzq: (progress|warm-up|done|FAIL)")
RE_FAIL = re.compile(r"^syzq: FAIL: (.*)$")


def has_kcov():
    """Whether this tree's kernel can be built with CONFIG_KCOV."""
    return any("config KCOV\n" in p.read_text() for p in REPO.glob("kernel/**/Kconfig"))


def options_for(variant):
    return BASE_OPTIONS + (["CONFIG_KCOV=y"] if has_kcov() else []) + VARIANTS[variant]


def title_of(line):
    """A crash's title: the report line without what differs from run to
    run (the time and CPU, addresses, offsets, pids), as syzkaller's are."""
    t = RE_PREFIX.sub("", line.strip())
    t = re.sub(r"\bCPU \d+\b", "CPU", t)
    t = re.sub(r"\+0x[0-9a-f]+/0x[0-9a-f]+", "", t)
    t = re.sub(r"0x[0-9a-f]+|\b[0-9a-f]{12,16}\b", "ADDR", t)
    t = re.sub(r"\b(pid|task) \d+", r"\1 N", t)
    return t[:120]


def slug(title):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", title).strip("-")[:80] or "crash"


# ------------------------------------------------------------------ the initrd
def _cpio_entry(name, data, ino, mode):
    name_b = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name_b), 0]
    out = b"070701" + b"".join(b"%08x" % f for f in fields) + name_b
    out += b"\0" * (-len(out) % 4) + data
    return out + b"\0" * (-len(out) % 4)


def cpio_with(src, files):
    """The newc archive src with files {name: bytes} added (replacing any of
    the same name) and the directories they need; those in bin/ can run."""
    blob, pos, names = open(src, "rb").read(), 0, set()
    out = b""
    while True:
        hdr = blob[pos:pos + 110]
        fsize, nsize = int(hdr[54:62], 16), int(hdr[94:102], 16)
        name = blob[pos + 110:pos + 110 + nsize - 1].decode()
        end = pos + 110 + nsize
        end += -end % 4
        end += fsize
        end += -end % 4
        if name == "TRAILER!!!":
            break
        if name not in files:
            out += blob[pos:end]
            names.add(name)
        pos = end
    ino = 90000
    for name in sorted(files):
        parts = name.split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            if d not in names:
                out += _cpio_entry(d, b"", ino, 0o040755)
                names.add(d)
                ino += 1
        out += _cpio_entry(name, files[name], ino, 0o100755 if name.startswith("bin/") else 0o100644)
        ino += 1
    out += _cpio_entry("TRAILER!!!", b"", 0, 0)
    return out + b"\0" * (-len(out) % 512)


def boot_dir(tag):
    """Where fuzz_image() puts a boot's ELF and initrd (WORK's, whatever a
    Fuzzer's own work folder is)."""
    return WORK / "boot" / tag


def fuzz_image(variant, files, tag):
    """An ELF of this variant with an initrd that holds files, in its own
    folder (QEMU takes the initrd beside the ELF: qs.qemu)."""
    name = f"fuzz-{variant}"
    elf = build(name, "defconfig", options_for(variant))
    d = boot_dir(tag)
    d.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(elf, d / "quiescent.elf")
    (d / "initrd.cpio").write_bytes(cpio_with(elf.with_name("initrd.cpio"), files))
    return d / "quiescent.elf"


# ------------------------------------------------------------------ programs
def parse_descs():
    """{call name: [argument kinds]} from user/bin/fuzz/calls.h."""
    out = {}
    for m in re.finditer(r"CALL\(SYS_(\w+), (\w+), (\w+)((?:, K_\w+)*)\)", CALLS_H.read_text()):
        out[m.group(1)] = [k.strip()[2:] for k in m.group(4).split(",") if k.strip()]
    return out


COLLIDE = "collide:"


def parse_prog(text):
    """syzq's text form as [(name, [token, ...])]; a collide program's
    prefix (two processes run it at once) is kept by split_mode()."""
    calls = []
    for part in split_mode(text)[1].strip().split(";"):
        m = re.fullmatch(r"(\w+)\((.*)\)", part)
        if not m:
            raise ValueError(f"not a syzq program: {text!r}")
        calls.append((m.group(1), m.group(2).split(",") if m.group(2) else []))
    return calls


def split_mode(text):
    """(prefix, calls): 'collide:' or '', and the calls' text."""
    text = text.strip()
    return (COLLIDE, text[len(COLLIDE):]) if text.startswith(COLLIDE) else ("", text)


def format_prog(calls, mode=""):
    return mode + ";".join(f"{n}({','.join(a)})" for n, a in calls)


def drop_call(calls, j):
    """The program without call j: what referred to it gets -1, later
    references move down by one."""
    out = []
    for i, (name, args) in enumerate(calls):
        if i == j:
            continue
        new = []
        for a in args:
            if a[0] in "rs" and int(a[1:]) == j:
                a = "-1"
            elif a[0] in "rs" and int(a[1:]) > j:
                a = f"{a[0]}{int(a[1:]) - 1}"
            new.append(a)
        out.append((name, new))
    return out


def ddmin(items, test):
    """Zeller's ddmin: a 1-minimal sublist of items for which test() holds
    (test(items) is taken to hold)."""
    n = 2
    while len(items) >= 2:
        chunk = max(1, len(items) // n)
        subsets = [items[i:i + chunk] for i in range(0, len(items), chunk)]
        reduced = False
        for i, s in enumerate(subsets):
            if test(s):
                items, n, reduced = s, 2, True
                break
            rest = [x for k, x in enumerate(subsets) if k != i for x in x]
            if n > 2 and test(rest):
                items, n, reduced = rest, max(n - 1, 2), True
                break
        if not reduced:
            if n >= len(items):
                break
            n = min(len(items), 2 * n)
    return items


# ------------------------------------------------------------------ C reproducers
C_HEAD = """/*
 * {name}: a reproducer syzq found and tools/fuzz.py reduced (docs/fuzzing.md).
 *
 *   {title}
 *
 * The program, in syzq's text: {text}
 * Run as syzq runs it: uid 1000, in /tmp/sq0, descriptors 0-2 closed, in a
 * child of its own; the kernel's console shows the report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <quiescent.h>
#include <qs_fs.h>
#include <qs_net.h>
#include <qs_route.h>
#include <sys/sem.h>
#include <sys/module.h>
#include <sys/trace.h>

static char buf[{n}][4096];

static void program(void)
{{
	long r[{n}], s[{n}];

	(void)r;
	(void)s;
{body}}}

int main(void)
{{
	int st;

	mkdir("/tmp/sq0", 0777);
	if (chdir("/tmp/sq0") || setuid(1000))
		return 1;
	pid_t pid = fork();
	if (pid == 0) {{
		close(0);
		close(1);
		close(2);
		program();
		_exit(0);
	}}
	waitpid(pid, &st, 0);
	printf("{name}: the program ran (status %#x)\\n", st);
	return 0;
}}
"""

NAMES = ["", "/a", "/b", "/a/c", "/b/d", "/a/c/e", "/f"]
OTHER_NAMES = ["a", "b/d", ".", "/", "/bin/true", "/etc/motd", "/bin", ""]
SEEDED = {"PATH", "TIMESPEC", "SEMOPS", "SOCKADDR", "ROUTE", "MODIMG", "CPUMASK"}


def c_arg(kind, tok, i, nr_name):
    """One argument as C, materialized as syzq's materialize() does."""
    if tok[0] == "r":
        return f"r[{tok[1:]}]"
    if tok[0] == "s":
        return f"s[{tok[1:]}]"
    v = int(tok)
    b = f"buf[{i}]"
    if kind == "BUF":
        return {1: "0L", 2: "0xffffffff80100000L", 3: "0x1000L", 4: f"(long){b} + 4095"}.get(
            v, f"(long){b}")
    if kind == "PATH":
        k = v % (2 ** 32) % (len(NAMES) + len(OTHER_NAMES))
        p = "/tmp/sq0" + NAMES[k] if k < len(NAMES) else OTHER_NAMES[k - len(NAMES)]
        return f'(long)"{p}"'
    if kind == "PID" and 0 < v < 1000000:
        return "0x7fffffffL"    # a literal never names a live process
    if kind == "SEMKEY":
        return hex(0x5a7a0000 + (v & 3))
    if kind == "MODE" and nr_name == "mkdir":
        return oct(v | 0o700).replace("0o", "0")
    if kind in SEEDED or kind == "SEMARG" and v == 1 << 40:
        return None         # needs syzq's builder: see c_program()
    return f"{v}L"


def c_program(text, title, name):
    """The program as a C file for user/bin, or None where an argument is a
    structure only syzq builds (the reducer tries those as 0 first)."""
    descs, calls, body = parse_descs(), parse_prog(text), ""
    for i, (call, args) in enumerate(calls):
        kinds = descs[call]
        cargs = [c_arg(k, t, i, call) for k, t in zip(kinds, args)]
        if None in cargs:
            return None
        body += f"\tmemset(buf[{i}], 'a' + {i} % 26, sizeof(buf[{i}]));\n"
        if call == "fork":
            body += (f"\tr[{i}] = s[{i}] = fork();\n"
                     f"\tif (r[{i}] == 0) {{\n\t\tusleep(5000);\n\t\t_exit(0);\n\t}}\n")
            continue
        pad = ", ".join(cargs + ["0"] * (6 - len(cargs)))
        body += f"\tr[{i}] = s[{i}] = __syscall6(SYS_{call}, {pad});\n"
        if call == "pipe2" and cargs and cargs[0] == f"(long)buf[{i}]":
            body += (f"\tif (r[{i}] == 0) {{\n\t\tr[{i}] = ((int *)buf[{i}])[0];\n"
                     f"\t\ts[{i}] = ((int *)buf[{i}])[1];\n\t}}\n")
    return C_HEAD.format(name=name, title=title.replace("*/", "* /"), text=text.replace("*/", "* /"),
                         n=len(calls), body=body)


def compile_user(c_path, variant):
    """Build a user program from outside user/bin against this variant's
    libc (the Makefile's user/extra rule); its path."""
    name = f"fuzz-{variant}"
    build(name, "defconfig", options_for(variant))
    d = REPO / "build" / name / "user" / "extra"
    d.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(c_path, d / Path(c_path).name)
    target = d / Path(c_path).stem
    p = run_make([f"build/{name}/user/extra/{target.name}"], build_dir=f"build/{name}")
    if p.returncode:
        raise RuntimeError(f"{c_path} does not compile:\n{p.stdout[-3000:]}")
    return target


# ------------------------------------------------------------------ the loop
@dataclass
class Crash:
    title: str
    dir: Path
    programs: list = field(default_factory=list)
    reproduced: bool = False
    repro: str = ""
    c_path: Path = None
    c_reproduces: bool = False
    boots: int = 0
    count: int = 1          # boots of this run that hit it
    nlast: int = 0          # programs at the end of .programs that ran last, one a worker


class Fuzzer:
    """Boots syzq until the time is spent, keeping the corpus and the
    crashes (a new title each) in build/fuzz/. say: where progress goes."""

    def __init__(self, cpus=2, variants=("prove",), args="", seed=1, work=WORK, say=print,
                 reduce=True, keep=48):
        self.cpus, self.variants, self.args, self.seed = cpus, list(variants), args, seed
        self.work, self.say, self.reduce, self.keep = Path(work), say, reduce, keep
        self.corpus_path = self.work / "corpus.txt"
        self.crashes, self.boots, self.last_progress = [], 0, ""
        self.work.mkdir(parents=True, exist_ok=True)
        self.corpus = self._load_corpus()

    def _load_corpus(self):
        if not self.corpus_path.exists():
            return []
        return list(dict.fromkeys(ln.strip() for ln in self.corpus_path.read_text().split("\n")
                                  if ln.strip()))

    def _add_corpus(self, prog):
        if prog in self._seen:
            return
        self._seen.add(prog)
        self.corpus.append(prog)
        with open(self.corpus_path, "a") as fh:
            fh.write(prog + "\n")

    def boot(self, variant, cmd, files, timeout, watch=None, tag="run"):
        """One fresh boot of variant running cmd in the shell; its BootResult."""
        image = fuzz_image(variant, files, tag)
        self.boots += 1
        cmdline = f"{self.args} -- {cmd}; poweroff".strip()
        log = self.work / "logs" / f"{tag}-{self.boots:04d}.log"
        return boot_image(image, boot="kernel", cpus=self.cpus, cmdline=cmdline, timeout=timeout,
                          log_path=log, watch=watch, stop=StopOn(grace=3.0))

    def run(self, seconds):
        """Fuzz for seconds in all, in boots that take turns over the variants."""
        end = time.monotonic() + seconds
        self._seen = set(self.corpus)
        turn = 0
        while time.monotonic() < end - 20:
            variant = self.variants[turn % len(self.variants)]
            turn += 1
            left = int(end - time.monotonic())
            # The guest's own clock runs the fuzzing: a warm-up of a tenth,
            # then the rest; the boot and the checks around it take ~20 s.
            secs = max(10, int((left - 20) / 1.1))
            self.fuzz_boot(variant, secs)
        return self

    def fuzz_boot(self, variant, secs):
        recent = deque(maxlen=self.keep)
        last = {}               # worker: the last program it started before the report
        files = {"etc/fuzz/corpus": ("\n".join(self.corpus) + "\n").encode()}
        held = {}

        def watch(line):
            bare = RE_PREFIX.sub("", line.rstrip("\r\n"))
            # What runs after the report did not cause it. syzq's own FAIL
            # (a collide that no order explains) is a report too, and the
            # guest runs on past it, for longer than the programs kept.
            if not held and (unexpected_lines(line) or RE_FAIL.match(bare)):
                held["at"] = line
            line = bare
            m = RE_RUN.match(line)
            if m and not held:
                recent.append(m.group(2))
                last[m.group(1)] = m.group(2)
            if m:
                return
            m = RE_NEW.match(line)
            if m:
                self._add_corpus(m.group(1))
            elif RE_PROGRESS.match(line):
                self.last_progress = line
                self.say(f"fuzz: [{variant}] {line[6:]}")

        cmd = f"syzq -d {secs} -p {self.cpus} -s {self.seed + self.boots} -l"
        r = self.boot(variant, cmd, files, timeout=int(secs * 1.1) + 150, watch=watch,
                      tag=f"fuzz-{variant}")
        title = crash_title(r)
        if title:
            # Each worker's last program at the end, where the reducer looks first.
            tail = [p for p in last.values()]
            progs = [p for p in recent if p not in tail] + tail
            self.found(title, variant, r, progs, len(tail))
        return r

    def found(self, title, variant, r, programs, nlast=0):
        d = self.work / "crashes" / slug(title)
        new = not d.exists()
        d.mkdir(parents=True, exist_ok=True)
        self.say(f"fuzz: CRASH [{variant}] {title}{'' if new else ' (seen before)'}")
        n = len(list(d.glob("log*.txt")))
        shutil.copyfile(r.log_path, d / f"log{n}.txt")
        seen = [c for c in self.crashes if c.title == title]
        if seen:
            seen[0].count += 1
            return seen[0]
        c = Crash(title=title, dir=d, programs=programs, nlast=nlast)
        (d / "programs.txt").write_text("\n".join(programs) + "\n")
        (d / "title").write_text(title + "\n")
        self.crashes.append(c)
        if new and self.reduce and programs:
            self.reduce_crash(c, variant)
        return c

    # -------------------------------------------------------------- coverage
    def coverage(self, variant="prove"):
        """The corpus's coverage: one boot replays it (`syzq -r -C`, each
        program once, KCOV on, every PC it reached printed once), and
        qs.kcov maps the PCs to the blocks and functions of kernel/fs,
        kernel/proc, kernel/ipc, kernel/net and kernel/module. Writes
        coverage.txt (the table, with the functions never reached) in the
        work folder; returns its per-area summary lines."""
        from qs import kcov
        if not has_kcov():
            raise RuntimeError("no CONFIG_KCOV in this tree: no coverage to report")
        files = {"etc/fuzz/corpus": ("\n".join(self.corpus) + "\n").encode()}
        r = self.boot(variant, "syzq -r /etc/fuzz/corpus -C", files,
                      timeout=120 + len(self.corpus), tag="coverage")
        text = Path(r.log_path).read_text(errors="replace")
        if "syzq: replay done" not in text:
            raise RuntimeError(f"the corpus's replay did not finish: {r.log_path}")
        pcs = kcov.pcs_from_text(text)
        cov = kcov.Coverage()
        cov.add(kcov.Image(boot_dir("coverage") / "quiescent.elf"), pcs)
        head = (f"# {len(self.corpus)} programs of {self.corpus_path.name}, replayed once "
                f"each on fuzz-{variant} (syzq -r -C): {len(pcs)} PCs; the kernel's own tests "
                "(*_test.c, *_bench.c, *_stress.c) left out: no system call reaches them\n")
        (self.work / "coverage.txt").write_text(
            head + kcov.table(cov, unreached=True, exclude_tests=True) + "\n")
        return kcov.summary(cov, exclude_tests=True)

    # -------------------------------------------------------------- reduction
    def reproduces(self, c, variant, programs):
        files = {"etc/fuzz/repro": ("\n".join(programs) + "\n").encode()}
        r = self.boot(variant, "syzq -r /etc/fuzz/repro", files,
                      timeout=90 + 2 * len(programs), tag="repro")
        c.boots += 1
        got = crash_title(r)
        self.say(f"fuzz: reduce: {len(programs)} programs, {sum(len(parse_prog(p)) for p in programs)}"
                 f" calls: {'crashes' if got == c.title else 'no crash' if not got else got}")
        return got == c.title

    def reduce_crash(self, c, variant):
        """Confirm, then ddmin: programs, calls, arguments; then the C file."""
        progs = c.programs
        if not self.reproduces(c, variant, progs):
            self.say("fuzz: reduce: the programs did not crash a fresh boot: not reproducible")
            (c.dir / "NOT-REPRODUCED").write_text("the saved programs did not crash a fresh boot\n")
            return c
        c.reproduced = True
        last = progs[-c.nlast:] if c.nlast else []
        if last and len(progs) > len(last) and self.reproduces(c, variant, last):
            progs = last         # most crashes are in what ran last
        progs = ddmin(progs, lambda s: self.reproduces(c, variant, s))
        if len(progs) == 1:
            mode, prog = split_mode(progs[0])[0], parse_prog(progs[0])
            prog = self._reduce_calls(c, variant, prog, mode)
            prog = self._reduce_args(c, variant, prog, mode)
            progs = [format_prog(prog, mode)]
        c.repro = "\n".join(progs)
        (c.dir / "repro.txt").write_text(c.repro + "\n")
        self.say(f"fuzz: reduced to: {c.repro}")
        if len(progs) == 1:
            self.write_c(c, variant)
        return c

    def _reduce_calls(self, c, variant, prog, mode=""):
        def keep_only(idx):
            p = prog
            for j in sorted(set(range(len(prog))) - set(idx), reverse=True):
                p = drop_call(p, j)
            return p
        idx = ddmin(list(range(len(prog))),
                    lambda s: self.reproduces(c, variant, [format_prog(keep_only(s), mode)]))
        return keep_only(idx)

    def _reduce_args(self, c, variant, prog, mode=""):
        """Each literal tried as 0, as many at once as still crash."""
        spots = [(i, k) for i, (_, a) in enumerate(prog) for k, t in enumerate(a)
                 if t[0] not in "rs" and t != "0"]

        def with_zero(s):
            p = [(n, list(a)) for n, a in prog]
            for i, k in s:
                p[i][1][k] = "0"
            return p
        chosen = []
        todo = [spots]
        while todo:
            part = todo.pop()
            if not part:
                continue
            if self.reproduces(c, variant, [format_prog(with_zero(chosen + part), mode)]):
                chosen += part
            elif len(part) > 1:
                todo += [part[:len(part) // 2], part[len(part) // 2:]]
        return with_zero(chosen)

    def write_c(self, c, variant):
        name = "repro_" + re.sub(r"[^a-z0-9]+", "_", slug(c.title).lower())[:40].strip("_")
        if split_mode(c.repro)[0]:
            self.say("fuzz: a collide program needs two processes and syzq's check of their "
                     f"results: reproduce it with syzq -r {c.dir / 'repro.txt'} (no C file)")
            return
        src = c_program(c.repro, c.title, name)
        if src is None:
            self.say("fuzz: the reduced program keeps a structure only syzq builds: no C file")
            return
        c.c_path = c.dir / f"{name}.c"
        c.c_path.write_text(src)
        elf = compile_user(c.c_path, variant)
        files = {"bin/" + name: elf.read_bytes()}
        r = self.boot(variant, name, files, timeout=90, tag="repro-c")
        c.boots += 1
        c.c_reproduces = crash_title(r) == c.title
        self.say(f"fuzz: {c.c_path}: "
                 f"{'reproduces' if c.c_reproduces else 'does NOT reproduce'} the crash")


def crash_title(r):
    """The title of the crash a boot shows, or '' for a clean run."""
    bad = unexpected_lines(r.log)
    if bad:
        return title_of(bad[0][1])
    for line in r.log.split("\n"):
        m = RE_FAIL.match(RE_PREFIX.sub("", line.strip()))
        if m:
            return "syzq: " + m.group(1)
    if r.status == "timeout":
        return "hang: the boot ran past its timeout"
    if r.status not in ("pass", "poweroff"):
        return f"boot ended: {r.status}"
    return ""
