"""The documentation names only what exists. In README.md, docs/*.md,
docs/rcu/*.md and the labs' handouts (labs/**/*.md):

  - every repository path (kernel/rcu/rcu_ltimer.c, tools/gdb/rcu_<variant>.py,
    a relative link such as (net.md)) is in the tree; <name> and [opt]
    stand for any text, so the pattern must match at least one path (a
    path right after "Linux's" is Linux's, not ours);
  - every make target in code (`make gdb`, ```make O=x defconfig```) has a
    rule in the Makefile (a <name>_defconfig one, a file in configs/);
  - every kernel command-line option (in ARGS=, --args, cmdline = and the
    code spans of a paragraph that begins by naming command-line options) is
    registered with
    CMDLINE_PARAM or CMDLINE_ULONG in the sources.

And nothing in the tree names a path that leaves it: no page (every .md
file) and no comment (C, headers, linker scripts, NASM, Python comments
and docstrings, Makefiles, shell scripts, defconfigs; Kconfig and TOML
files whole) climbs above the repository with `../`, gives an absolute
path on a developer's machine, names the folders the papers and the
project brief lay in on the development machines or a paper's text file,
or cites an upper-case .md document that no file in the tree is named.
A clone is all a student has: the papers are cited through
docs/papers.md, the contracts are in docs/design.md (OUTSIDE below lists
each pattern).

Each check can fail: test_checks_catch_planted_names feeds the extractors
a page with one bad name of each kind, test_outside_paths_caught_in_each_language
a file of each kind with a path outside in a comment and one in code.
No QEMU, no build.
"""
import io
import re
import shlex
import subprocess
import tokenize
from pathlib import Path

import pytest

from qs import REPO



def tree_files():
    """The files of the tree as a clone has them: tracked and new ones, not
    what the build or git ignores (build/, caches)."""
    try:
        out = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, check=True).stdout
        files = [REPO / f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):     # an export without .git
        skip = {".git", "build", "__pycache__", ".pytest_cache"}
        files = [f for f in REPO.rglob("*") if not skip & set(f.relative_to(REPO).parts)]
    return sorted(f for f in files if f.is_file())


TREE = tree_files()
DOCS = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md")) \
    + sorted((REPO / "docs" / "rcu").glob("*.md")) + sorted((REPO / "labs").rglob("*.md"))
# The repository's own top-level folders, read from the tree so that the
# list cannot name a folder a clone does not have.
TOP_DIRS = tuple(sorted({f.relative_to(REPO).parts[0] for f in TREE
                         if len(f.relative_to(REPO).parts) > 1
                         and not f.relative_to(REPO).parts[0].startswith(".")}))
TOP_FILES = ("Makefile", "Kconfig", "README.md", "LICENSE")
# Paths the docs may name before the branch that adds them is merged (the
# layout in docs/design.md): drop an entry once its path is in the tree.
PLANNED = {}

RE_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
RE_SPAN = re.compile(r"`([^`\n]+)`")
RE_PATH = re.compile(r"(?<![\w/.$-])((?:%s)/[\w./<>\[\]*+-]*|(?:%s)\b)"
                     % ("|".join(TOP_DIRS), "|".join(re.escape(f) for f in TOP_FILES)))
RE_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
RE_OPTION = re.compile(r"^[a-z][\w.]*(?:=\S*)?$")


# ---------------------------------------------------------------- what the docs name
def code_of(text):
    """The code in a page: fenced blocks, then inline spans."""
    blocks = RE_FENCE.findall(text)
    rest = RE_FENCE.sub("", text)
    return blocks, RE_SPAN.findall(rest)


def paths_named(text, doc_dir):
    """(as written, glob relative to REPO) for each path a page names."""
    out = []
    for m in RE_PATH.finditer(text):
        p = m.group(1).rstrip(".,;:)")
        while p.endswith("]") and p.count("]") > p.count("["):
            p = p[:-1].rstrip(".,;:)")
        if re.search(r"Linux's\W*$", text[max(0, m.start() - 12):m.start()]):
            continue
        if p and p not in TOP_DIRS:
            out.append((p, p))
    for target in RE_LINK.findall(text):
        if "://" in target or target.startswith("mailto:"):
            continue
        rel = (doc_dir / target).resolve()
        if rel.is_relative_to(REPO):
            out.append((target, str(rel.relative_to(REPO))))
    return out


def commands(text):
    """Each shell command line in a page's code, as a list of words."""
    blocks, spans = code_of(text)
    lines = [line for b in blocks for line in b.split("\n")] + spans
    out = []
    for line in lines:
        line = re.sub(r"^\s*(\$|\(gdb\))\s+", "", line)
        lex = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lex.whitespace_split = True
        try:
            words = list(lex)
        except ValueError:                    # an unbalanced quote: words as they come
            words = line.split()
        cmd = []
        for w in words + [";"]:
            if w and set(w) <= set(";&|"):
                if cmd:
                    out.append(cmd)
                cmd = []
            else:
                cmd.append(w)
    return out


def make_targets(text):
    targets = []
    for words in commands(text):
        if words[0] != "make":
            continue
        for w in words[1:]:
            if "=" in w or w.startswith("-"):
                continue
            targets.append(w)
    return targets


def cmdlines(text):
    """Kernel command lines a page gives: ARGS=, --args, cmdline =."""
    out = []
    for words in commands(text):
        for i, w in enumerate(words):
            if w.startswith("ARGS="):
                out.append(w[5:])
            elif w == "--args" and i + 1 < len(words):
                out.append(words[i + 1])
    out += re.findall(r"^\s*cmdline\s*=\s*['\"]?([^'\"\n]*)", "\n".join(code_of(text)[0]), re.M)
    return out


def options_named(text):
    names = []
    for line in cmdlines(text):
        line = re.split(r"(?:^|\s)--(?:\s|$)", line)[0]
        names += [w.split("=")[0] for w in line.split()]
    prose = RE_FENCE.sub("", text)
    for para in re.split(r"\n\s*\n", prose):
        first = para.strip().split("\n")[0]
        if re.search(r"command[- ]line options?\b", first, re.I) and not first.startswith("|"):
            names += [s.split("=")[0] for s in RE_SPAN.findall(para) if RE_OPTION.match(s)]
    return [n for n in names if re.match(r"^[a-z][\w.]*$", n)]


# ---------------------------------------------------------------- what exists
def path_exists(pattern):
    if pattern.rstrip("/") in PLANNED:
        return True
    glob = re.sub(r"\*+", "*", re.sub(r"<[^>]*>|\[[^\]]*\]", "*", pattern)).rstrip("/")
    if "*" in glob:
        return any(REPO.glob(glob))
    return (REPO / glob).exists()


def makefile_targets():
    text = (REPO / "Makefile").read_text()
    names = set()
    for m in re.finditer(r"^([^\s:=#$()][^:=#]*?):(?![=:])", text, re.M):
        names.update(m.group(1).split())
    for m in re.finditer(r"^\.PHONY:(.*(?:\\\n.*)*)", text, re.M):
        names.update(m.group(1).replace("\\\n", " ").split())
    return {n for n in names if re.match(r"^[\w%][\w.%-]*$", n)}


def target_exists(target, names):
    if target.endswith("_defconfig"):
        if "<" in target:
            return "%_defconfig" in names
        return (REPO / "configs" / target).exists()
    return target in names


def registered_options():
    src = "\n".join(p.read_text(errors="replace") for d in ("kernel", "modules", "include")
                    for p in (REPO / d).rglob("*.[ch]"))
    names = set(re.findall(r"\bCMDLINE_(?:PARAM|ULONG|ULONG_TAGGED)\(\s*\"([^\"]+)\"", src))
    # Macros that register with a prefix: #define X(name, ...) CMDLINE_...("torture." name, ...)
    for macro, _, prefix in re.findall(r"#define\s+(\w+)\((\w+)\b[^)]*\)\s*(?:\\\n\s*)?"
                                       r"CMDLINE_\w+\(\s*\"([^\"]*)\"\s+\2\b", src):
        names.update(prefix + n for n in re.findall(r"\b%s\(\s*\"([^\"]+)\"" % macro, src))
    return names


# ---------------------------------------------------------------- the checks
def problems(text, doc_dir, targets, options):
    bad = []
    for written, pattern in paths_named(text, doc_dir):
        if not path_exists(pattern):
            bad.append(f"path {written}")
    for t in make_targets(text):
        if not target_exists(t, targets):
            bad.append(f"make target {t}")
    for o in options_named(text):
        if o not in options:
            bad.append(f"command-line option {o}")
    return bad


# ---------------------------------------------------------------- paths that leave the tree
# Each pattern is one way a reference leaves the repository; the reason is
# what the failure says.
RE_STOP = r"[^\s`'\"()\[\]<>,;]*"
OUTSIDE = [
    (re.compile(r"(?<![\w.~$-])/(?:work|home|Users)/" + RE_STOP),
     "an absolute path on a developer's machine"),
    (re.compile(r"(?<![\w/.$-])(?:shared|seeds)/" + RE_STOP),
     "the papers' or the brief's folder outside the repository (cite docs/papers.md)"),
    (re.compile(r"(?<![\w.-])\d{3}_(?:[0-9a-f]{16}|\*)\.txt\b"),
     "a seed file (cite the paper: docs/papers.md)"),
]
RE_UPDIR = re.compile(r"(?<![\w.$])(?:\.\./)+" + RE_STOP)
RE_DOC_NAME = re.compile(r"(?<![\w.-])[A-Z][A-Z0-9_-]*\.md\b")
TREE_NAMES = {f.name for f in TREE}


def outside_paths(text, where):
    """(what, why) for each reference in text that a clone cannot follow;
    where is the folder of the file text is from (for ../)."""
    bad = []
    for pattern, why in OUTSIDE:
        bad += [(m.group(0), why) for m in pattern.finditer(text)]
    for m in RE_UPDIR.finditer(text):
        path = re.split(r"[*<\[#]", m.group(0).rstrip(".:"))[0]
        target = (where / path).resolve()
        if not target.is_relative_to(REPO):
            bad.append((m.group(0), "a path above the repository"))
        elif not target.exists():
            bad.append((m.group(0), "a path not in the tree"))
    for m in RE_DOC_NAME.finditer(text):
        if m.group(0) not in TREE_NAMES:
            bad.append((m.group(0), "a document the tree does not hold (see docs/design.md)"))
    return bad


RE_C = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
RE_NASM = re.compile(r";[^\n]*|\"[^\"\n]*\"|'[^'\n]*'|`[^`\n]*`")
RE_HASH = re.compile(r"#[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'[^'\n]*'")


def comments_by(pattern, text, opener):
    """(offset, text) of each comment: the matches that begin with opener
    (the others are string literals, which are code)."""
    return [(m.start(), m.group(0)) for m in pattern.finditer(text) if m.group(0).startswith(opener)]


def python_comments(text):
    """Comments and docstrings (a string that is a statement of its own)."""
    out = []
    try:
        lines = [0]
        for line in io.StringIO(text).readlines():      # as tokenize counts lines
            lines.append(lines[-1] + len(line))
        prev = tokenize.NEWLINE
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            at = lines[tok.start[0] - 1] + tok.start[1]
            if tok.type == tokenize.COMMENT:
                out.append((at, tok.string))
            elif tok.type == tokenize.STRING and prev in (tokenize.NEWLINE, tokenize.INDENT,
                                                           tokenize.DEDENT, tokenize.NL):
                out.append((at, tok.string))
            if tok.type not in (tokenize.COMMENT, tokenize.NL):
                prev = tok.type
    except (tokenize.TokenError, SyntaxError):          # not Python after all: all of it
        return [(0, text)]
    return out


def prose_of(path, text):
    """(offset, text) of what a reader reads as prose in the file at path:
    a page whole, a source file's comments; None for what is neither."""
    name = path.name
    if name.endswith((".md", ".toml")) or name in ("Kconfig", "LICENSE"):
        return [(0, text)]
    if name.endswith((".c", ".h", ".ld")):
        return comments_by(RE_C, text, "/")
    if name.endswith((".asm", ".inc")):
        return comments_by(RE_NASM, text, ";")
    if name.endswith(".py"):
        return python_comments(text)
    if name in ("Makefile", ".gitignore", ".editorconfig") or name.endswith(
            (".mk", ".sh", ".ini", ".gdb", "defconfig")) or text.startswith("#!"):
        return comments_by(RE_HASH, text, "#")
    return None


def outside_in_file(path, text):
    """"line: what (why)" for each reference in the file that leaves the tree."""
    bad = []
    for at, chunk in prose_of(path, text) or []:
        for what, why in outside_paths(chunk, path.parent):
            line = text.count("\n", 0, at + chunk.find(what)) + 1
            bad.append(f"{line}: {what} ({why})")
    return bad


def test_no_path_leaves_the_repository():
    bad = []
    for f in TREE:
        try:
            text = f.read_text()
        except UnicodeDecodeError:                       # images
            continue
        bad += [f"{f.relative_to(REPO)}:{b}" for b in outside_in_file(f, text)]
    assert not bad, "references a clone cannot follow:\n  " + "\n  ".join(bad)


def test_prose_covers_the_tree():
    """Every text file is read by one of the extractors: a new kind of
    file is added to prose_of(), not silently skipped."""
    skipped = []
    for f in TREE:
        try:
            text = f.read_text()
        except UnicodeDecodeError:
            continue
        if prose_of(f, text) is None:
            skipped.append(str(f.relative_to(REPO)))
    # Generated or data files with no comment syntax of their own.
    allowed = {"docs/figures/report.html", "user/etc/motd"}
    allowed |= {str(f.relative_to(REPO)) for f in TREE if f.suffix == ".litmus"}
    assert set(skipped) <= allowed, sorted(set(skipped) - allowed)
    assert "shared" not in TOP_DIRS or (REPO / "shared").is_dir()
    assert {"boot", "kernel", "include", "tools", "tests", "docs", "labs"} <= set(TOP_DIRS)


@pytest.mark.parametrize("name, text, bad", [
    ("kernel/x.c", '/* see DESIGN.md */\nchar *s = "/work/shared/x"; // ../../../up\n',
     ["DESIGN.md", "../../../up"]),
    ("kernel/x.c", '/* docs/design.md, "Layout" */ char *p = "seeds/000_*.txt";\n', []),
    ("boot/x.asm", "mov eax, 1\t; /home/me/notes\ndb '/work/x', 0\n", ["/home/me/notes"]),
    ("tools/x.py", '"""Traffic stays here (DESIGN.md)."""\nP = "/work/shared"  # seeds/004\n',
     ["DESIGN.md", "seeds/004"]),
    ("tools/x.py", 'def f():\n    """A docstring naming 001_3ae9dcb3288f96ca.txt."""\n    return "../../x"\n',
     ["001_3ae9dcb3288f96ca.txt"]),
    ("Makefile", "# ../shared/DESIGN.md\nX := $(wildcard /work/*)\n", ["../shared/DESIGN.md", "DESIGN.md"]),
    ("tests/scenarios/x.toml", "description = 'from /work/shared/seeds'\n", ["/work/shared/seeds"]),
    ("docs/x.md", "See [the brief](../../shared/DESIGN.md) and `shared/seeds/`.\n",
     ["shared/seeds/", "../../shared/DESIGN.md", "DESIGN.md"]),
    ("docs/x.md", "See [the papers](papers.md), private/shared/total, `../kernel/rcu/`.\n", []),
])
def test_outside_paths_caught_in_each_language(name, text, bad):
    found = [b.split(": ", 1)[1].split(" (")[0] for b in outside_in_file(REPO / name, text)]
    assert found == bad, found


@pytest.fixture(scope="module")
def known():
    return makefile_targets(), registered_options()


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(REPO)) for d in DOCS])
def test_doc_names_only_what_exists(doc, known):
    bad = problems(doc.read_text(), doc.parent, *known)
    assert not bad, f"{doc.relative_to(REPO)} names what does not exist:\n  " + "\n  ".join(bad)


def test_extractors_find_real_names(known):
    """The extractors see something: the checks are not vacuous."""
    targets, options = known
    assert {"run", "test", "gdb", "console", "menuconfig"} <= targets
    assert {"ktest", "poweroff", "acpi", "rcu_stall_timeout", "torture.duration"} <= options
    readme = (REPO / "README.md").read_text()
    assert len(paths_named(readme, REPO)) > 20
    assert {"run", "test", "gdb", "console"} <= set(make_targets(readme))
    assert {"ktest", "poweroff", "acpi"} <= set(options_named(readme))


def test_checks_catch_planted_names(known):
    page = """
See `kernel/rcu/no_such_file.c` and [the page](no-such-page.md); the
variants are in `kernel/rcu/<variant>.c` and tools/gdb/rcu_<nothing>.pyx.

```sh
make run ARGS="ktest=smp_* no_such_option=1 -- ps; poweroff"
make no-such-target
```

Kernel command-line options: `frobnicate=1` does nothing.
"""
    bad = problems(page, REPO / "docs", *known)
    assert bad == ["path kernel/rcu/no_such_file.c", "path tools/gdb/rcu_<nothing>.pyx",
                   "path no-such-page.md", "make target no-such-target",
                   "command-line option no_such_option", "command-line option frobnicate"], bad


USER_LAYER = ("fs", "net", "ipc", "module", "proc")
KTEST_ROOMS = ("kernel/test/", "kernel/bench/", "kernel/labs/", "kernel/rcu/torture/") + \
    tuple(f"kernel/{d}/" for d in USER_LAYER)
KTEST_NAME = re.compile(r"^KTEST(?:_MANUAL)?\(([a-z0-9]+)_", re.M)


def ktest_groups(path):
    return set(KTEST_NAME.findall((REPO / path).read_text()))


def test_each_ktest_lives_where_testing_md_says():
    """docs/testing.md, "Writing an in-kernel test": core tests in
    kernel/test, an RCU user's beside it, a private header's beside its
    file (only kernel/rcu/rcu_tree_report_test.c, Lab 7's, today)."""
    files = subprocess.run(["git", "ls-files", "kernel/*.c"], cwd=REPO, stdout=subprocess.PIPE,
                           text=True, check=True).stdout.split()
    with_ktests = [f for f in files if ktest_groups(f)]
    beside_private = {"kernel/rcu/rcu_tree_report_test.c"}
    stray = [f for f in with_ktests if not f.startswith(KTEST_ROOMS) and f not in beside_private]
    assert not stray, f"KTESTs outside the rooms docs/testing.md names: {stray}"
    user_groups = set(USER_LAYER)
    for f in with_ktests:
        if f.startswith(tuple(f"kernel/{d}/" for d in USER_LAYER)):
            user_groups |= ktest_groups(f) - {"bench"}
    misplaced = {f: sorted(ktest_groups(f) & user_groups) for f in with_ktests
                 if f.startswith("kernel/test/") and ktest_groups(f) & user_groups}
    assert not misplaced, f"tests of an RCU user in kernel/test/, which go beside the user: {misplaced}"
