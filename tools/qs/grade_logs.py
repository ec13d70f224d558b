"""A grading's logs where the student can open them.

tools/grade.py grades some things in a scratch copy of the tree
(grade_copy(): --with, --mistake, --reference with files, under
build/grade/labN-<label>/src): the grader runs inside the copy, so a
check's console log and the symbolized log next to it (qs.symbolize;
qs.scenario's "symbolized log:" reason names it) lie in the copy's own
build folder, the reason names the .sym relative to the copy, and both
go when the copy is rebuilt or removed. The person reading the report
works in the tree the grading was started in (QS_GRADE_ROOT, which
grade_copy() passes down).

keep() copies the two files into that tree, build/grade/logs/<the copy's
name>/<check>.log and .log.sym (outside every copy's src/, so no sync or
rebuild of one touches them; the next grading of that check replaces
them), and names them from there. A grading in the tree itself copies
nothing: its logs are already the student's.
"""
import os
import re
import shutil
from pathlib import Path

from qs import REPO

SYM = "symbolized log: "


def started_in():
    """The tree the grading was started in."""
    return Path(os.environ.get("QS_GRADE_ROOT", str(REPO)))


def keep_dir(start, repo=REPO):
    """Where a copy's logs are kept in the tree start."""
    copy = repo.parent.name if repo.name == "src" else repo.name
    return start / "build" / "grade" / "logs" / copy


def keep(check, log, reasons, repo=REPO, start=None):
    """(log, reasons) to show for one check: log (a path, or None) named
    relative to the tree the grading was started in, and the reasons with
    their "symbolized log:" line naming a file there."""
    start = Path(start) if start else started_in()
    if log is None:
        return None, reasons
    if start.resolve() == Path(repo).resolve():
        return os.path.relpath(log, start), reasons
    dest = keep_dir(start, Path(repo))
    dest.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^\w.-]", "_", check)
    kept = dest / f"{stem}.log"
    shutil.copyfile(log, kept)
    out = []
    for w in reasons:
        if w.startswith(SYM):
            sym = Path(repo) / w[len(SYM):]      # relative to the copy (or absolute)
            if sym.is_file():
                shutil.copyfile(sym, dest / f"{stem}.log.sym")
                w = SYM + os.path.relpath(dest / f"{stem}.log.sym", start)
        out.append(w)
    return os.path.relpath(kept, start), out
