"""A copy of the tree, kept in step: tools/grade.py's and tools/mutants.py's
scratch trees (build/grade/labN-*/src, build/mutants/src) are built from
it, so it must hold what the tree holds and nothing else.

sync_tree(dst) copies the tracked and untracked-but-not-ignored files
that changed (only those, so dst's builds stay incremental) and removes
the ones the tree no longer has: the Makefile builds every kernel/**.c it
finds, so a source file renamed or deleted here but left in dst would
still be compiled there. What was copied last time is listed in
dst/.synced; a dst without that list (an older copy, or a half-made one)
is rebuilt from nothing.

copy_lock(dst) keeps a copy to one grading at a time (tools/grade.py
holds it from the sync to the end of the grading); seed_build() starts
a copy's build folder from the tree's without copying a make under way.
"""
import fcntl
import os
import shutil
import subprocess
from contextlib import contextmanager

from qs import REPO
from qs.build import build_lock

MANIFEST = ".synced"


def tree_files(repo=REPO):
    """The tree's files: tracked and untracked-but-not-ignored, relative."""
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=repo,
                         capture_output=True, text=True, check=True).stdout.split("\n")
    return [f for f in out if f and (repo / f).is_file()]


def sync_tree(dst, repo=REPO):
    """Make dst a copy of the tree (see the module's text)."""
    files = tree_files(repo)
    manifest = dst / MANIFEST
    if dst.exists() and not manifest.exists():
        shutil.rmtree(dst)
    if manifest.exists():
        for f in set(manifest.read_text().split("\n")) - set(files):
            if f and (dst / f).is_file():
                (dst / f).unlink()
    for f in files:
        src, out = repo / f, dst / f
        if out.exists() and out.stat().st_size == src.stat().st_size and \
           out.read_bytes() == src.read_bytes():
            continue
        out.parent.mkdir(parents=True, exist_ok=True)
        replaced = out.exists()
        shutil.copy2(src, out)
        if replaced:
            # The copy's version was built (a grading's --with file, a
            # planted bug): the tree's older mtime would leave make the
            # object of what it replaces. A file new here keeps the
            # tree's, so the builds seeded into a fresh copy stay current.
            os.utime(out, None)
    manifest.write_text("\n".join(files))


@contextmanager
def copy_lock(dst):
    """dst to this process alone while it is held: two gradings in one copy
    would remove each other's half-made copy (sync_tree() rebuilds one
    without its list), build in each other's files and boot each other's
    kernels. The lock file lies beside dst, which a rebuild removes."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    with open(dst.parent / f"{dst.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def seed_build(src, out):
    """Start the copy's build out from the tree's build src (its .d files
    name sources by relative path, and the copy keeps their mtimes): only
    the files a grading puts in place are compiled again there.

    src is copied under its build lock (qs.build): a make under way there
    (another make test worker's) would otherwise leave the copy what the
    compiler had written so far, an object without its .d file. And it is
    copied aside, then renamed into place, so that out never exists half
    copied: one that exists is taken as seeded, never copied again."""
    if out.exists() or not src.is_dir():
        return
    with build_lock(src.name, src.parent.parent):
        if not src.is_dir():
            return
        part = out.with_name(out.name + ".seeding")
        if part.exists():
            shutil.rmtree(part)                     # a seeding that was killed
        shutil.copytree(src, part, symlinks=True,
                        ignore=shutil.ignore_patterns("logs", "results"))
        part.rename(out)
