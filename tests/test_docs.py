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

Each check can fail: test_checks_catch_planted_names feeds the extractors
a page with one bad name of each kind. No QEMU, no build.
"""
import re
import shlex
from pathlib import Path

import pytest

from qs import REPO

DOCS = [REPO / "README.md"] + sorted((REPO / "docs").glob("*.md")) \
    + sorted((REPO / "docs" / "rcu").glob("*.md")) + sorted((REPO / "labs").rglob("*.md"))
TOP_DIRS = ("boot", "kernel", "include", "user", "tools", "tests", "configs", "docs", "modules",
            "labs", "shared")
TOP_FILES = ("Makefile", "Kconfig", "README.md")
# Paths the docs may name before the branch that adds them is merged (the
# layout in DESIGN.md): drop an entry once its path is in the tree.
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
