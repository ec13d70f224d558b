"""A lab's grader as its grade.toml says it (the format: qs/grade.py's
docstring, which tools/grade.py --help prints): the labs that have one,
a lab's checks loaded and checked, the checks --only selects, and a
check's boot as a scenario case (qs.scenario)."""
import fnmatch
import re
import tomllib

from qs import REPO
from qs.scenario import Scenario, default_label

LABS = REPO / "labs"
BOOT_KEYS = {"config": str, "option": list, "cpus": int, "cmdline": str, "timeout": int,
             "expect": str, "groups": list, "log": list, "shell": list, "expect_console": list,
             "timeline": str}
CHECK_KEYS = {"name", "points", "description", "requires", "answers", "host", "show",
              "measure"} | set(BOOT_KEYS)

# A lab's [[hint]] said under a failed check: printed even past the first
# reasons, which a failing test suite can fill (Lab 7's unit tests).
HINT = "hint: "

class GradeError(Exception):
    pass


def lab_dirs():
    """{n: folder} for every labs/labN-*/ with a grade.toml."""
    out = {}
    for d in sorted(LABS.glob("lab[0-9]*-*")):
        m = re.match(r"lab(\d+)-", d.name)
        if m and (d / "grade.toml").exists():
            out[int(m.group(1))] = d
    return out


def list_labs():
    lines = []
    for n, d in lab_dirs().items():
        spec = tomllib.loads((d / "grade.toml").read_text())
        pts = sum(c.get("points", 0) for c in spec.get("check", []))
        lines.append(f"  LAB={n}  {spec.get('title', d.name)} ({pts} points; {d.relative_to(REPO)})")
    return "\n".join(lines)


def load(n):
    dirs = lab_dirs()
    if n not in dirs:
        raise GradeError(f"no lab {n} with a grader; the labs:\n{list_labs()}")
    d = dirs[n]
    spec = tomllib.loads((d / "grade.toml").read_text())
    names = set()
    for c in spec.get("check", []):
        where = f"{d.name}/grade.toml check {c.get('name', '?')}"
        unknown = set(c) - CHECK_KEYS
        if unknown or "name" not in c:
            raise GradeError(f"{where}: unknown keys {sorted(unknown)} or no name")
        for r in c.get("requires", []):
            if r not in names:
                raise GradeError(f"{where}: requires {r}, which is not an earlier check")
        if not ("config" in c or "host" in c):
            raise GradeError(f"{where}: needs a boot (config = ...) or a host command")
        if "answers" in c and "config" not in c:
            raise GradeError(f"{where}: answers are compared with a boot's log: give config")
        names.add(c["name"])
    spec["dir"] = d
    return spec


def scenario_of(c, lab, config_map):
    config = config_map.get(c["config"], c["config"])
    return Scenario(name=f"grade-lab{lab}-{c['name']}", path=str(LABS), config=config,
                    label=default_label(config), options=list(c.get("option", [])),
                    cpus=c.get("cpus", 4), cmdline=c.get("cmdline", ""),
                    timeout=c.get("timeout", 120), expect=c.get("expect", "pass"),
                    groups=list(c.get("groups", [])), log=list(c.get("log", [])),
                    shell=list(c.get("shell", [])), description=c.get("description", ""),
                    expect_console=list(c.get("expect_console", [])),
                    timeline=c.get("timeline", ""))


def selected(checks, only):
    if not only:
        return checks
    globs = [g for g in only.split(",") if g]
    want = {c["name"] for c in checks if any(fnmatch.fnmatch(c["name"], g) for g in globs)}
    if not want:
        raise GradeError(f"--only {only} matches no check; the checks: "
                         + ", ".join(c["name"] for c in checks))
    for c in reversed(checks):           # what they require runs too (requires name earlier checks)
        if c["name"] in want:
            want |= set(c.get("requires", []))
    return [c for c in checks if c["name"] in want]
