"""make torture-bisect, end to end: in a throwaway clone of the tree, a
short history where one commit plants a real RCU bug (a tests/mutants
file applied as a commit) among harmless ones, one of which cannot be
judged (it does not build; or the scenario is not there, as in commits
from before it was written); `make torture-bisect` must name the planted
commit.

The commit that cannot be judged sits where git bisect looks first (the
middle of six), so the runner's exit codes are exercised: it must be
"skip" (125). Were it "bad" (1), bisect would name that commit (before
the fix, a missing scenario exited 1 and was named); were a failed run
"skip", it would name no single commit; were the harmless commits judged
bad (a run that cannot pass), it would name the first of them.

Each case builds the tree in a fresh clone (ccache makes that quick only
when warm; minutes when cold) and boots two or three 3 s torture runs,
so `full`: make test-full runs it, make test does not; alone,
`python3 -m pytest -q --full tests/test_torture_bisect.py`.
"""
import os
import re
import subprocess

import pytest

from qs import REPO
import mutants

pytestmark = [pytest.mark.qemu, pytest.mark.build, pytest.mark.full]

# Tree RCU's callbacks a grace period early: rcutorture's 3 s run on
# -smp 2 catches it in its first run (tools/mutants.py tree-cbs-early).
MUTANT = "tree-cbs-early"
SCEN = "torture-tree-smp2"
DURATION = "3s"

GIT_ID = ["-c", "user.name=torture-bisect test", "-c", "user.email=test@quiescent.invalid"]


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo)] + GIT_ID + list(args), check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout


def overlay_working_tree(dest):
    """Make dest's files those of this working tree (tracked, as they are
    now, and new ones git does not ignore), so uncommitted edits to the
    runner are what is tested."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=REPO, check=True, stdout=subprocess.PIPE).stdout
    for rel in sorted(set(out.decode().split("\0")) - {""}):
        src, dst = REPO / rel, dest / rel
        if src.is_symlink() or not src.is_file():
            if dst.is_file() and not src.exists():
                dst.unlink()            # deleted in the working tree
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(src.read_bytes())
        dst.chmod(src.stat().st_mode & 0o777)


def commit(repo, subject, path, edit):
    f = repo / path
    f.write_text(edit(f.read_text()))
    git(repo, "commit", "-q", "-a", "-m", subject)
    return git(repo, "rev-parse", "HEAD").strip()


NOBUILD = "\n#error torture-bisect test: this commit does not build\n"
SCEN_FILE, WITH, WITHOUT = "tests/scenarios/torture.toml", "cpus = [1, 2, 4, 8]", "cpus = [1, 4, 8]"


def untestable(kind, m):
    """(subject, path, edit, undo) of the commit that cannot be judged:
    kernel/rcu source that does not compile, or a tree without SCEN's case
    (as before the scenario was written)."""
    if kind == "nobuild":
        return ("a commit that does not build", m["file"],
                lambda s: s + NOBUILD, lambda s: s.replace(NOBUILD, ""))
    return ("a commit without the scenario", SCEN_FILE,
            lambda s: s.replace(WITH, WITHOUT, 1), lambda s: s.replace(WITHOUT, WITH, 1))


@pytest.mark.parametrize("kind", ["nobuild", "noscenario"])
def test_bisect_names_the_planted_commit(tmp_path, kind):
    m = mutants.load(REPO / "tests" / "mutants" / f"{MUTANT}.toml")
    repo = tmp_path / "q"
    subprocess.run(["git", "clone", "-q", "--shared", str(REPO), str(repo)], check=True)
    overlay_working_tree(repo)
    git(repo, "add", "-A")
    if git(repo, "status", "--porcelain").strip():
        git(repo, "commit", "-q", "-m", "the working tree under test")
    good = git(repo, "rev-parse", "HEAD").strip()

    note = "docs/rcu/torture.md"
    subject, broken, edit, undo = untestable(kind, m)
    c = {}
    c["note1"] = commit(repo, "docs: a harmless note", note, lambda s: s + "\n<!-- one -->\n")
    c["note2"] = commit(repo, "docs: another harmless note", note, lambda s: s + "<!-- two -->\n")
    c["untestable"] = commit(repo, subject, broken, edit)
    assert (repo / broken).read_text() != (REPO / broken).read_text()
    c["fixed"] = commit(repo, "undone again", broken, undo)
    assert (repo / broken).read_text() == (REPO / broken).read_text()
    c["planted"] = commit(repo, f"plant {MUTANT}", m["file"],
                          lambda s: s.replace(m["find"], m["replace"], 1))
    c["note3"] = commit(repo, "docs: a harmless note after the bug", note,
                        lambda s: s + "<!-- three -->\n")
    assert (repo / m["file"]).read_text().count(m["replace"]) == 1

    env = dict(os.environ)
    env.pop("MAKEFLAGS", None)
    env.pop("MAKELEVEL", None)
    p = subprocess.run(["make", "-C", str(repo), "--no-print-directory", "torture-bisect",
                        f"GOOD={good}", f"BAD={c['note3']}", f"SCEN={SCEN}",
                        f"DURATION={DURATION}"],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=1500)
    out = p.stdout
    tail = out[-6000:]
    named = re.findall(r"^([0-9a-f]{40}) is the first bad commit", out, re.M)
    names = {v: k for k, v in c.items()}
    assert named, f"git bisect named no first bad commit (rc={p.returncode}):\n{tail}"
    assert named[-1] == c["planted"], \
        f"bisect named {names.get(named[-1], named[-1])}, not the planted bug:\n{tail}"
    assert p.returncode == 0, f"make torture-bisect exited {p.returncode}:\n{tail}"
    # The commit that cannot be judged was tried and skipped, so its exit
    # code was exercised, not just the judged runs'.
    assert re.search(rf"^git bisect skip {c['untestable']}", out, re.M), \
        f"the commit that cannot be judged was never tried (or not skipped):\n{tail}"
    # The bisect ended with the clone back where it was.
    assert git(repo, "rev-parse", "HEAD").strip() == c["note3"]
