"""Scenarios: tests/scenarios/*.toml, read with tomllib.

A file describes one scenario; lists in `config`, `cpus` or `boot` make it
a matrix, and each combination is one case: one boot, one pytest case
(tests/test_scenarios.py) with its own name, one summary line.

    # rcutorture on each variant at 1, 2, 4 and 8 CPUs
    description = "rcutorture on ${variant}, -smp ${cpus}: SUCCESS"
    name    = "torture-${config}-smp${cpus}"        # the default is shown below
    config  = ["rcu_ltimer_defconfig",
               { name = "rcu_krcud_defconfig", cmdline = "rcu_krcud.period_ms=2" }]
    cpus    = [1, 2, 4, 8]
    cmdline = "ktest=torture_rcu torture.duration=3"
    timeout = 180
    groups  = ["torture"]
    log     = ['rcu-torture: start: variant=${variant} cpus=${cpus} preemption=${preemption}']

Keys (all optional; the defaults in Scenario below):
    description   what the case shows (printed when it fails)
    name          the case's name; default: the file's stem, then -${config}
                  if config is a list, -smp${cpus} if cpus is, -${boot} if boot is
    config        configs/<config>, or a list; an entry may be a table
                  { name = "x_defconfig", option = [...], label = "x",
                    cmdline = "..." }
                  with options of its own, the label ${config} names it by
                  (default: the name without rcu_ and _defconfig, _ as -)
                  and kernel options added to this entry's cases' cmdline
                  (a boot parameter costs no build; an option, a build);
                  or { variants = "rcu_*_defconfig", except = ["tiny"] }:
                  that name with * each real variant's stem (qs.variants:
                  Kconfig's choice, less busted and student), in the
                  list's order, where configs/ has it, less the variants
                  except names. A name or table of the same config list
                  that the expansion also yields takes that place in it
                  (to give one variant a cmdline of its own)
    option        CONFIG_X=y lines added to every configuration (one string
                  or a list); cases with the same configuration and options
                  share one build (Scenario.build_name)
    cpus, boot    -smp N; kernel (QEMU -kernel) or iso (GRUB); or lists
    cmdline, timeout (seconds), expect (pass | fail | panic | poweroff)
    online        every CPU online and ticking on its own LAPIC timer
    groups        KTAP prefixes: each ran at least one test, all passed
    log           regexes that must appear in the console log (re.M), read
                  with every printk that interrupted a line moved out of it
                  (qs.log.user_view)
    trace         functions the panic's Call Trace must contain
    expect_console  regexes naming the WARNING, BUG, Call Trace, panic and
                  stall lines this case may print (searched in each line;
                  qs.judge). Every other such line fails the case, whatever
                  else passed: a console is judged whole. A pattern allows,
                  it does not require (say that in log)
    input         [{ after = "regex", send = "text" }, ...]: type text and
                  Enter once the console has printed regex ("\\u0014" is Ctrl-T)
    shell         ["ps", "rcu", ...]: type each command at the shell's prompt
    net           none | user (an e1000 on QEMU user networking, restrict=on) |
                  pair (two guests joined by a cable, qs.boot.boot_pair)
    peer_cmdline, peer_log    net = pair: the second guest's command line and log
    banner_cpus   the CPU count the banner must show where the kernel is meant
                  to find fewer than QEMU has (acpi=off: the MP table's)
    timeline      pass | fail: the verdict tools/timeline.py's checker must give on
                  the log's trace dump (trace.dump_at_end=1; docs/rcu/timeline.md)
    full          true: a case make test leaves to make test-full (a build
                  of its own that would push make test past its budget)

A case's timeout is an uninstrumented kernel's: a KASAN or KCSAN build
boots under CONFIG_SANITIZER_SLOWDOWN times it, read from the build's
.config (Kconfig, docs/kasan.md). A failed case's log is symbolized
beside it (<log>.sym, qs.symbolize), and so are the lines it shows.

${cpus}, ${config} and ${boot} may appear in name, description, cmdline and
the regexes; ${variant}, ${preemption} and ${hz}, which the build decides
(qs.build.facts), in description and the regexes. In a regex they stand
for their literal text.

Besides its own checks, every case checks that the boot banner names the
CPU count asked for (cpus, or banner_cpus) and the variant, preemption
model and HZ that were built, and that its console (each guest's, for
net = pair) has no WARNING, BUG, Call Trace, panic or stall line that
expect_console does not name.

A case with expect = "panic" need not name its panic, the Call Trace after
it and the other CPUs' "stopping: panic" lines (qs.judge.KIND_EXPECTED);
trace and log say which panic it must be.

    # the stall test provokes a stall warning and its NMI backtraces
    expect_console = ['INFO: \\S+ detected stalls on CPUs:', 'Call Trace:']
"""
import fnmatch
import itertools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from qs import REPO, replay, variants
from qs.boot import StopOn, boot, boot_pair, summary_line
from qs.build import build, facts, sanitizer_slowdown
from qs.judge import kind_expected
from qs.log import user_view
from qs.net import Nic
from qs.symbolize import symbolize, symbolize_file

SCENARIO_DIR = REPO / "tests" / "scenarios"
MATRIX_KEYS = ("config", "cpus", "boot")
LIST_KEYS = ("option", "groups", "log", "trace", "peer_log", "shell", "expect_console")
SCALAR_KEYS = {"description": str, "name": str, "cmdline": str, "timeout": int, "expect": str,
               "online": bool, "net": str, "peer_cmdline": str, "banner_cpus": int,
               "timeline": str, "full": bool}
TYPE_NAMES = {str: "a string", int: "a number", bool: "true or false"}
PRE_BUILD_VARS = ("cpus", "config", "boot")
RE_VAR = re.compile(r"\$\{(\w+)\}")


@dataclass
class Scenario:
    """One case of a scenario file."""
    name: str
    path: str = ""
    config: str = "defconfig"
    label: str = "defconfig"     # what ${config} stands for
    options: list = field(default_factory=list)
    cpus: int = 4
    boot: str = "kernel"
    cmdline: str = ""
    timeout: int = 60
    expect: str = "pass"
    online: bool = False
    groups: list = field(default_factory=list)
    log: list = field(default_factory=list)
    trace: list = field(default_factory=list)
    description: str = ""
    input: list = field(default_factory=list)     # [(regex, text)]
    shell: list = field(default_factory=list)
    net: str = "none"
    peer_cmdline: str = ""
    peer_log: list = field(default_factory=list)
    banner_cpus: int = None      # the CPUs the kernel finds, where not QEMU's all
    timeline: str = ""           # pass | fail: tools/timeline.py check's verdict
    full: bool = False           # only in make test-full (pytest --full)
    expect_console: list = field(default_factory=list)   # qs.judge: lines allowed

    def run_timeout(self, elf):
        """The timeout the case runs under, once built (elf): a sanitizer's
        instrumentation makes everything about CONFIG_SANITIZER_SLOWDOWN
        times slower (docs/kasan.md)."""
        return self.timeout * sanitizer_slowdown(Path(elf).parent)

    @property
    def build_name(self):
        """One build per configuration: scenarios with the same defconfig and
        options share it (options are spelled into the name)."""
        if not self.options:
            return f"test-{self.config}"
        opts = "+".join(o.replace("CONFIG_", "").replace("=", "-").replace(" ", "")
                        for o in sorted(self.options))
        return f"test-{self.config}+{opts}"

    def variables(self, built=None):
        v = dict(cpus=str(self.cpus), config=self.label, boot=self.boot)
        for k, val in (built or {}).items():
            if val is not None:
                v[k] = str(val)
        return v

    def regexes(self, which, built):
        """The log (or peer_log, trace) entries with their ${...} filled in."""
        v = self.variables(built)
        return [substitute(rx, v, regex=(which != "trace")) for rx in getattr(self, which)]


def substitute(text, variables, regex=False, where=""):
    def one(m):
        if m.group(1) not in variables:
            raise ValueError(f"{where}unknown or not yet known ${{{m.group(1)}}} in {text!r}")
        val = variables[m.group(1)]
        return re.escape(val) if regex else val
    return RE_VAR.sub(one, text)


def default_label(config):
    s = config.removesuffix("_defconfig")
    return (s.removeprefix("rcu_") if s != "rcu" else s).replace("_", "-")


def _as_list(v, key, where):
    if isinstance(v, (str, int)) and not isinstance(v, bool):
        return [v]
    if isinstance(v, list):
        return v
    raise ValueError(f"{where}: {key} must be a value or a list")


def add_kernel_args(cmdline, extra):
    """cmdline with the kernel options extra added before any " -- " (what
    follows it is init's)."""
    if not extra:
        return cmdline
    # "-- ..." alone (no kernel options before it) has no space to split at.
    head, sep, tail = ("", " -- ", cmdline[3:]) if cmdline.startswith("-- ") \
        else cmdline.partition(" -- ")
    return f"{head} {extra}".strip() + (sep + tail if sep else "")


def _config_entry(e, where):
    if isinstance(e, str):
        return (e, [], default_label(e), "")
    if isinstance(e, dict):
        unknown = set(e) - {"name", "option", "label", "cmdline"}
        if unknown or "name" not in e:
            raise ValueError(f"{where}: a config table has name, option, label, cmdline "
                             f"(got {sorted(e)})")
        if not isinstance(e.get("cmdline", ""), str):
            raise ValueError(f"{where}: a config table's cmdline must be a string")
        return (e["name"], [str(o) for o in _as_list(e.get("option", []), "option", where)],
                e.get("label", default_label(e["name"])), e.get("cmdline", ""))
    raise ValueError(f"{where}: config entries are names or tables")


def expand_variants(e, where=""):
    """The configurations a { variants = "rcu_*_defconfig", except = [...] }
    entry stands for (the module's text)."""
    unknown = set(e) - {"variants", "except"}
    pattern = e.get("variants")
    if unknown or not isinstance(pattern, str) or pattern.count("*") != 1:
        raise ValueError(f"{where}: a variants table is {{ variants = \"rcu_*_defconfig\", "
                         f"except = [names] }} (got {e})")
    skip = [str(n) for n in _as_list(e.get("except", []), "except", where)]
    known = variants.names()
    bad = [n for n in skip if n not in known]
    if bad:
        raise ValueError(f"{where}: except names no variant: {', '.join(bad)} "
                         f"(kernel/rcu/Kconfig has: {' '.join(known)})")
    out = [pattern.replace("*", v.stem) for v in variants.real() if v.name not in skip]
    out = [c for c in out if (REPO / "configs" / c).exists()]
    if not out:
        raise ValueError(f"{where}: {pattern} names no configuration in configs/")
    return out


def _config_entries(raw, where):
    parsed = [("variants", expand_variants(e, where)) if isinstance(e, dict) and "variants" in e
              else ("one", _config_entry(e, where)) for e in _as_list(raw, "config", where)]
    expanded = {c for kind, x in parsed if kind == "variants" for c in x}
    own = {x[0]: x for kind, x in parsed if kind == "one" and x[0] in expanded}
    out = []
    for kind, x in parsed:
        if kind == "variants":
            out += [own.get(c, (c, [], default_label(c), "")) for c in x]
        elif x[0] not in expanded:
            out.append(x)
    return out


def load_scenarios(path):
    """The cases of one scenario file."""
    path = Path(path)
    where = str(path.relative_to(REPO) if path.is_relative_to(REPO) else path)
    try:
        doc = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{where}: {e}") from None
    unknown = set(doc) - set(MATRIX_KEYS) - set(LIST_KEYS) - set(SCALAR_KEYS) - {"input"}
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
    base = {}
    for k, typ in SCALAR_KEYS.items():
        if k in doc:
            if not isinstance(doc[k], typ):
                raise ValueError(f"{where}: {k} must be {TYPE_NAMES[typ]}")
            base[k] = doc[k]
    for k in LIST_KEYS:
        if k in doc:
            vals = _as_list(doc[k], k, where)
            if k == "groups" and isinstance(doc[k], str):
                vals = doc[k].split()
            base["options" if k == "option" else k] = [str(x) for x in vals]
    steps = []
    for s in doc.get("input", []):
        if not isinstance(s, dict) or set(s) != {"after", "send"}:
            raise ValueError(f"{where}: input is a list of {{ after = regex, send = text }}")
        steps.append((s["after"], s["send"]))
    base["input"] = steps

    configs = _config_entries(doc.get("config", "defconfig"), where)
    cpus = _as_list(doc.get("cpus", 4), "cpus", where)
    boots = _as_list(doc.get("boot", "kernel"), "boot", where)
    if any(not isinstance(c, int) or c < 1 for c in cpus):
        raise ValueError(f"{where}: cpus must be positive integers")
    name_t = base.pop("name", None) or (path.stem + "".join(
        suffix for key, suffix in (("config", "-${config}"), ("cpus", "-smp${cpus}"),
                                   ("boot", "-${boot}"))
        if isinstance(doc.get(key), list)))

    cases = []
    for (config, own_opts, label, own_cmdline), n, bootk in itertools.product(configs, cpus, boots):
        sc = Scenario(name="", path=str(path), config=config, label=label, cpus=n, boot=bootk,
                      **{k: (list(v) if isinstance(v, list) else v) for k, v in base.items()})
        sc.options = list(base.get("options", [])) + own_opts
        sc.cmdline = add_kernel_args(sc.cmdline, own_cmdline)
        pre = sc.variables()
        here = f"{where}: "
        sc.name = substitute(name_t, pre, where=here)
        sc.cmdline = substitute(sc.cmdline, pre, where=here)
        sc.peer_cmdline = substitute(sc.peer_cmdline, pre, where=here)
        sc.description = RE_VAR.sub(lambda m: pre.get(m.group(1), m.group(0)), sc.description)
        _validate(sc, where)
        cases.append(sc)
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        raise ValueError(f"{where}: the name {name_t!r} gives several cases the same name")
    return cases


def _validate(sc, where):
    if sc.boot not in ("kernel", "iso"):
        raise ValueError(f"{where}: boot must be kernel or iso")
    if sc.expect not in ("pass", "fail", "panic", "poweroff"):
        raise ValueError(f"{where}: expect must be pass, fail, panic or poweroff")
    if sc.net not in ("none", "user", "pair"):
        raise ValueError(f"{where}: net must be none, user or pair")
    if sc.timeout <= 0:
        raise ValueError(f"{where}: timeout must be positive")
    if sc.timeline not in ("", "pass", "fail"):
        raise ValueError(f"{where}: timeline must be pass or fail")
    known = set(PRE_BUILD_VARS) | {"variant", "preemption", "hz"}
    for text in sc.log + sc.trace + sc.peer_log + sc.expect_console + [rx for rx, _ in sc.input]:
        for var in RE_VAR.findall(text):
            if var not in known:
                raise ValueError(f"{where}: unknown ${{{var}}} in {text!r}")
        try:
            re.compile(RE_VAR.sub("x", text))
        except re.error as e:
            raise ValueError(f"{where}: bad regex {text!r}: {e}") from None


def scenario_files(pattern="*"):
    """The scenario files."""
    return sorted(p for p in SCENARIO_DIR.glob("*.toml") if fnmatch.fnmatch(p.stem, pattern))


def scenarios(patterns=("*",)):
    """Every case whose name matches one of the patterns (globs), or every
    case of a file named directly; in file order. Case names are unique."""
    cases, seen = [], {}
    for f in scenario_files():
        for sc in load_scenarios(f):
            if sc.name in seen:
                raise ValueError(f"scenario {sc.name} is in both {seen[sc.name]} and {f.name}")
            seen[sc.name] = f.name
            cases.append(sc)
    out = []
    for pat in patterns:
        p = Path(pat)
        if p.suffix == ".toml" and p.exists():
            out += load_scenarios(p)
        else:
            out += [c for c in cases if fnmatch.fnmatch(c.name, pat) and c not in out]
    return out


def scenario_named(name):
    """The case called name, or None: its file's first (a file holds one
    case, or a variant expansion whose names carry the variant)."""
    direct = [c for f in scenario_files(name) for c in load_scenarios(f) if c.name == name]
    if direct:
        return direct[0]
    return next((c for c in scenarios((name,)) if c.name == name), None)


# ------------------------------------------------------------------ judging
def check_online(r):
    """Every CPU came online and took ticks on its own LAPIC timer."""
    why, c = [], r.console
    if c.banner is None:
        why.append("no boot banner ('config: HZ=...')")
    if c.online is None:
        why.append("no 'smp: all N CPUs online' line")
    elif c.online != r.cpus:
        why.append(f"{c.online} CPUs online, QEMU has {r.cpus}")
    if c.ticks is None:
        why.append("no 'ticks:' line")
    else:
        if sorted(c.ticks) != list(range(r.cpus)):
            why.append(f"ticks reported for CPUs {sorted(c.ticks)}, expected 0..{r.cpus - 1}")
        idle = [cpu for cpu, n in c.ticks.items() if n <= 0]
        if idle:
            why.append(f"CPUs without a tick: {idle}")
    return why


def check_groups(r, groups):
    why, k = [], r.console.ktap
    for g in groups:
        res = [t for t in k.results if t.name.startswith(g + "_")]
        if not res:
            why.append(f"no {g}_* test ran")
        for t in res:
            if not t.ok:
                why.append(f"not ok {t.name}: " + "; ".join(t.diagnostics[-4:]))
    return why


def check_timeline(log, expect):
    """The grace-period checker (qs.timeline) on the log's trace dump."""
    from qs import timeline
    try:
        ok, text = timeline.check(timeline.Trace(log))
    except ValueError as e:
        return [f"timeline: {e}"]
    verdict = {True: "pass", False: "fail", None: "inconclusive"}[ok]
    if verdict == expect:
        return []
    return [f"timeline: the checker says {verdict}, not {expect}: " + " / ".join(text.splitlines()[:3])]


def judge_scenario(sc, r, log_key="log"):
    """Every reason this run is not what the case expects ([] for none)."""
    ok, why = r.verdict(sc.expect)
    why = list(why)
    why += r.banner_problems(cpus=sc.banner_cpus)
    if sc.online:
        why += [w for w in check_online(r) if w not in why]
    why += check_groups(r, sc.groups)
    text = user_view(r.log)
    for rx in sc.regexes(log_key, r.built):
        if not re.search(rx, text, re.M):
            why.append(f"console log lacks /{rx}/")
    why += r.console_problems(sc.expect, sc.regexes("expect_console", r.built))
    if log_key == "log" and sc.timeline:
        why += check_timeline(r.log, sc.timeline)
    if log_key == "log":
        for fn in sc.regexes("trace", r.built):
            p = r.console.panic
            if p is None:
                why.append("no 'Kernel panic on CPU' in the log")
            elif fn not in p.trace:
                why.append(f"Call Trace lacks {fn} (has {', '.join(p.trace[:10]) or 'nothing'})")
    return why


def judged_line(sc, r, label=None):
    """(reasons, summary line) of run r judged as case sc: judge_scenario(),
    with the line saying FAIL when any reason does. Every tool that reports
    a run as a case (run_scenario, make replay) reports it through here, so
    that none prints PASS for a console the case would fail."""
    why = judge_scenario(sc, r)
    return why, _fail_line(summary_line(r, label or sc.name, sc.expect), why)


def _fail_line(line, why):
    if not why:
        return line
    line = "FAIL " + line[5:]
    if "| " not in line:
        line = line.replace("  log=", f"  | {why[0][:160]}  log=")
    return line


def stop_on(sc):
    """A StopOn for sc: the lines its console may print (expect_console and
    its kind's) are not fatal; any other WARNING, BUG, Call Trace, panic or
    stall line would fail the case anyway, so the run may end there."""
    built = facts(build(sc.build_name, sc.config, sc.options))
    return StopOn(tuple(sc.regexes("expect_console", built) + kind_expected(sc.expect)))


def run_scenario(sc, kvm="0", cache=True, echo=False, stop_early=False):
    """Boot one case and judge it: (BootResult, reasons, summary line).
    stop_early: end the boot at its first fatal console line (stop_on())
    rather than let a stalled kernel run out its timeout."""
    if sc.net == "pair":
        return run_pair_scenario(sc, kvm, echo)
    # Built first (boot() would, and caches it) for the .config the timeout is read from.
    elf = build(sc.build_name, sc.config, sc.options)
    r = boot(name=sc.build_name, defconfig=sc.config, options=sc.options, boot=sc.boot,
             cpus=sc.cpus, cmdline=sc.cmdline, timeout=sc.run_timeout(elf), kvm=kvm,
             label=sc.name, cache=cache, echo=echo, steps=sc.input, shell=sc.shell,
             nics=[Nic("user")] if sc.net == "user" else None,
             stop=stop_on(sc) if stop_early else None)
    why, line = judged_line(sc, r)
    if why:
        sym = symbolize_file(r.log_path, REPO / "build" / sc.build_name / "quiescent.elf")
        if sym:
            why.append(f"symbolized log: {sym.relative_to(REPO) if sym.is_relative_to(REPO) else sym}")
    why += replay.failure_lines(sc, r, why)
    return r, why, line


def failure_tail(sc, r, n=25):
    """The last console lines of a failed case, with file:line for its code
    addresses (qs.symbolize)."""
    return symbolize(r.tail(n), REPO / "build" / sc.build_name / "quiescent.elf")


def run_pair_scenario(sc, kvm="0", echo=False):
    """net = pair: both guests must end as expected; log applies to the first
    guest's console, peer_log to the second's."""
    a, b = boot_pair(name=sc.build_name, defconfig=sc.config, options=sc.options,
                     boot_kind=sc.boot, cpus=sc.cpus, cmdlines=(sc.cmdline, sc.peer_cmdline),
                     timeout=sc.timeout, kvm=kvm, label=sc.name, echo=echo)
    why = judge_scenario(sc, a)
    why += [f"second guest: {w}" for w in judge_scenario(sc, b, log_key="peer_log")]
    # (No replay line: a pair has a network peer, which the deterministic
    # mode refuses; a sweep is no use to it either.)
    line = summary_line(a, sc.name, sc.expect) + f"  peer={b.status}"
    return a, why, _fail_line(line, why)
