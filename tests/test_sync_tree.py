"""qs.sync_tree: the scratch copies make grade and make mutants build from
hold the tree's files and nothing else (grade.py once had its own copy that
kept files the tree had dropped, and the Makefile's wildcards built them)."""
import subprocess
from pathlib import Path

from qs.sync_tree import MANIFEST, seed_build, sync_tree

TOOLS = Path(__file__).resolve().parent.parent / "tools"


def git_tree(root):
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".gitignore").write_text("build/\n")
    (root / "kernel").mkdir()
    (root / "kernel" / "a.c").write_text("int a;\n")
    (root / "kernel" / "old.c").write_text("int old;\n")
    (root / "build").mkdir()
    (root / "build" / "x.o").write_text("object\n")
    subprocess.run(["git", "add", "."], cwd=root, check=True)
    return root


def test_copies_changes_and_drops_what_the_tree_dropped(tmp_path):
    repo, dst = git_tree(tmp_path / "repo"), tmp_path / "copy"
    sync_tree(dst, repo)
    assert (dst / "kernel" / "old.c").read_text() == "int old;\n"
    assert not (dst / "build").exists(), "an ignored file was copied"
    (repo / "kernel" / "old.c").unlink()                # git rm, or a rename
    (repo / "kernel" / "a.c").write_text("int a2;\n")
    (repo / "kernel" / "new.c").write_text("int new;\n")  # untracked, not ignored
    sync_tree(dst, repo)
    assert not (dst / "kernel" / "old.c").exists(), "a file the tree dropped stayed in the copy"
    assert (dst / "kernel" / "a.c").read_text() == "int a2;\n"
    assert (dst / "kernel" / "new.c").read_text() == "int new;\n"


def test_a_copy_without_its_list_is_made_again(tmp_path):
    repo, dst = git_tree(tmp_path / "repo"), tmp_path / "copy"
    (dst / "kernel").mkdir(parents=True)
    (dst / "kernel" / "stale.c").write_text("int stale;\n")   # an older copy, no .synced
    sync_tree(dst, repo)
    assert not (dst / "kernel" / "stale.c").exists()
    assert (dst / MANIFEST).exists()


def test_grade_and_mutants_share_the_one_copy():
    # The grader's code is tools/qs/grade.py; tools/grade.py is its command line.
    for tool in ("qs/grade.py", "mutants.py"):
        text = (TOOLS / tool).read_text()
        assert "from qs.sync_tree import sync_tree" in text, tool
        assert "def sync_tree" not in text and "def sync_scratch" not in text, \
            f"tools/{tool} has its own copy of sync_tree again"


def test_a_file_changed_in_the_copy_is_put_back_newer_than_its_object(tmp_path):
    """A scratch copy's file that a grading replaced (grade.py --with, a
    lab's planted bug) and the next sync puts back must be newer than the
    object built from the replacement, or make keeps that object: the
    next grading in the copy then runs the earlier one's code. A file new
    to the copy keeps the tree's mtime (the builds seeded into a fresh
    copy stay newer than their sources)."""
    import os
    import time
    repo, dst = git_tree(tmp_path / "repo"), tmp_path / "copy"
    now = time.time()
    os.utime(repo / "kernel" / "a.c", (now - 1000, now - 1000))    # the tree's, long ago
    sync_tree(dst, repo)
    assert (dst / "kernel" / "a.c").stat().st_mtime == now - 1000
    (dst / "kernel" / "a.c").write_text("int planted;\n")
    os.utime(dst / "kernel" / "a.c", (now - 500, now - 500))       # planted
    obj = dst / "build" / "a.o"
    obj.parent.mkdir()
    obj.write_text("built from the planted a.c\n")
    os.utime(obj, (now - 400, now - 400))                           # built from it
    sync_tree(dst, repo)
    assert (dst / "kernel" / "a.c").read_text() == "int a;\n"
    assert (dst / "kernel" / "a.c").stat().st_mtime > obj.stat().st_mtime, \
        "the restored source is older than the planted source's object: make would not rebuild it"


def test_a_build_being_made_is_not_seeded_half_made(tmp_path):
    """grade.py seeds a scratch copy's builds from the tree's (seed_build).
    Under make test another worker may be making that very build (qs.build,
    holding its lock): a copy taken then has what the compiler had written
    so far, an object without its .d file (once: KCSAN's hashlookup.o, and
    the copy failed to link). The seeding must wait for that make."""
    import threading
    from qs.build import build_lock
    repo, out = tmp_path / "repo", tmp_path / "copy" / "build" / "test-x"
    src = repo / "build" / "test-x"
    (src / "kernel").mkdir(parents=True)
    with build_lock("test-x", repo):                    # a make in src, under way
        (src / "kernel" / "hashlookup.o").write_text("object\n")
        seeding = threading.Thread(target=seed_build, args=(src, out))
        seeding.start()
        seeding.join(1.0)                               # time enough to copy, were it to
        (src / "kernel" / "hashlookup.d").write_text("hashlookup.o: hashlookup.c\n")
    seeding.join(30)
    assert not seeding.is_alive(), "the seeding never ended"
    assert (out / "kernel" / "hashlookup.o").exists()
    assert (out / "kernel" / "hashlookup.d").exists(), \
        "seeded while its make ran: an object without its .d file"
