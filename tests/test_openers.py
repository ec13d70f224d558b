"""Every RCU variant's file (kernel/rcu/rcu_<stem>.c, one per entry of
kernel/rcu/Kconfig's choice, as tools/qs/variants.py reads it) opens with
a short comment: what the file is, which paper and figure it follows, and
where its doc is. The reasoning lives once, in the doc or beside the line
it explains, not in an essay at the top that the doc repeats.

So the file's first comment block is at most MAX_LINES lines and names the
variant's doc page, which exists: docs/rcu/<name>.md, or for the variants
in DOC_ELSEWHERE the page listed there. test_check_catches_planted_openers
feeds check() an opener of each wrong kind. No QEMU, no build.
"""
import re

from qs import REPO, variants

MAX_LINES = 25
# Variants whose doc is not docs/rcu/<name>.md: Lab 4's skeleton is
# documented by the lab's handout, which its opener is part of.
DOC_ELSEWHERE = {"student": "labs/lab4-rcu-implementation/README.md"}

# The first comment block: the file starts with it (blank lines aside).
RE_OPENER = re.compile(r"\A\s*(/\*.*?\*/)", re.S)


def doc_page(variant):
    return DOC_ELSEWHERE.get(variant.name, f"docs/rcu/{variant.name}.md")


def opener(text):
    """The file's opening comment, or None when the file does not begin
    with one."""
    m = RE_OPENER.match(text)
    return m.group(1) if m else None


def names(comment, path):
    """Whether comment names path whole (not docs/rcu/poll.md inside
    docs/rcu/poll.md.old, nor split across two lines)."""
    return re.search(r"(?<![\w/.-])%s(?![\w/-]|\.\w)" % re.escape(path), comment) is not None


def check(source, text, doc, repo=REPO):
    """What is wrong with the opener of source (its text), whose doc page
    is doc; [] when nothing."""
    comment = opener(text)
    if comment is None:
        return [f"{source}: does not begin with a comment"]
    problems = []
    lines = comment.count("\n") + 1
    if lines > MAX_LINES:
        problems.append(f"{source}: opening comment is {lines} lines, at most {MAX_LINES}: "
                        f"move its reasoning into {doc} or beside the line it explains")
    if not names(comment, doc):
        problems.append(f"{source}: opening comment does not name its doc, {doc}")
    if not (repo / doc).is_file():
        problems.append(f"{source}: its doc {doc} is not in the tree")
    return problems


def test_every_variant_opener_is_short_and_names_its_doc():
    found = variants.read()
    assert len(found) >= 10, [v.name for v in found]
    problems = []
    for v in found:
        problems += check(v.source, (REPO / v.source).read_text(), doc_page(v))
    assert problems == []


def test_doc_elsewhere_names_only_variants():
    assert set(DOC_ELSEWHERE) <= set(variants.names())


def test_check_catches_planted_openers(tmp_path):
    (tmp_path / "docs" / "rcu").mkdir(parents=True)
    (tmp_path / "docs" / "rcu" / "x.md").write_text("# x\n")
    good = "/*\n * x: a variant (seed 000 section 5.1). The doc is docs/rcu/x.md.\n */\n#include <x.h>\n"
    assert check("x.c", good, "docs/rcu/x.md", tmp_path) == []
    assert check("x.c", "\n" + good, "docs/rcu/x.md", tmp_path) == []

    long = "/*\n * docs/rcu/x.md\n" + " * why\n" * (MAX_LINES - 2) + " */\n"
    assert opener(long).count("\n") + 1 == MAX_LINES + 1
    assert any("26 lines, at most 25" in p for p in check("x.c", long, "docs/rcu/x.md", tmp_path))
    at_limit = "/*\n * docs/rcu/x.md\n" + " * why\n" * (MAX_LINES - 3) + " */\n"
    assert check("x.c", at_limit, "docs/rcu/x.md", tmp_path) == []

    code_first = "#include <x.h>\n" + good
    assert check("x.c", code_first, "docs/rcu/x.md", tmp_path) == ["x.c: does not begin with a comment"]

    # The doc named only after the opener, by another page's name, as a
    # longer path, or split across lines does not count.
    later = "/*\n * x: a variant.\n */\n/* docs/rcu/x.md */\n"
    other = "/*\n * x: a variant; see docs/rcu/x-percpu.md.\n */\n"
    longer = "/*\n * x: a variant; see docs/rcu/x.md.old.\n */\n"
    split = "/*\n * x: a variant; see docs/rcu/\n * x.md.\n */\n"
    for text in (later, other, longer, split):
        assert check("x.c", text, "docs/rcu/x.md", tmp_path) == \
            ["x.c: opening comment does not name its doc, docs/rcu/x.md"], text

    missing = good.replace("x.md", "y.md")
    assert check("x.c", missing, "docs/rcu/y.md", tmp_path) == \
        ["x.c: its doc docs/rcu/y.md is not in the tree"]
