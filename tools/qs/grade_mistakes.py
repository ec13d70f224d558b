"""A lab's catalogue of wrong solutions (labs/instructor/labN/mistakes.toml,
what tools/grade.py --mistake grades): its entries checked, each one's
text made from its reference, and written out as the student's file it
stands in for."""
import os
import tomllib

from qs import REPO
from qs.grade_labs import LABS, GradeError


def mistakes_of(n):
    """{name: entry} of Lab n's catalogue of wrong solutions
    (labs/instructor/labN/mistakes.toml), in its order; {} without one."""
    path = LABS / "instructor" / f"lab{n}" / "mistakes.toml"
    if not path.exists():
        return {}
    out = {}
    for m in tomllib.loads(path.read_text()).get("mistake", []):
        where = f"{path.relative_to(REPO)} mistake {m.get('name', '?')}"
        if not m.get("name") or not m.get("file") or not m.get("check"):
            raise GradeError(f"{where}: needs name, file and check")
        if ("source" in m) == ("base" in m):
            raise GradeError(f"{where}: give source (a whole file) or base and replace")
        out[m["name"]] = m
    return out


def mistake_text(m):
    """The text of a catalogue mistake: its source file, or its base (the
    reference) with each [find, replace] applied once; a find that is not
    in the base (the reference moved under it) is an error, not a silent
    copy of the reference."""
    if "source" in m:
        return (REPO / m["source"]).read_text()
    text = (REPO / m["base"]).read_text()
    for find, repl in m.get("replace", []):
        if text.count(find) != 1:
            raise GradeError(f"mistake {m['name']}: {find!r} is in {m['base']} "
                             f"{text.count(find)} times, not once")
        text = text.replace(find, repl)
    return text


def mistake_line(m):
    """The line number, in the mistake's text, of the student's line its
    failed check must name (m["line"]: text on that line), or None."""
    if not m.get("line"):
        return None
    for n, line in enumerate(mistake_text(m).split("\n"), 1):
        if m["line"] in line:
            return n
    raise GradeError(f"mistake {m['name']}: no line holds {m['line']!r}")


def mistake_file(n, name):
    """A catalogue mistake written out (build/grade/mistakes/labN/NAME/),
    as --with's SRC."""
    ms = mistakes_of(n)
    if name not in ms:
        raise GradeError(f"lab {n} has no mistake {name!r}; its catalogue: "
                         + (", ".join(ms) or "none"))
    m = ms[name]
    out = REPO / "build" / "grade" / "mistakes" / f"lab{n}" / name / os.path.basename(m["file"])
    out.parent.mkdir(parents=True, exist_ok=True)
    text = mistake_text(m)
    if not out.exists() or out.read_text() != text:
        out.write_text(text)
    return m["file"], out
