#!/usr/bin/env python3
"""Convert scenario files of the old 'key = value' form (.scn) to TOML.

  tools/scn2toml.py DIR/NAME.scn [...]     writes NAME.toml beside each, removes NAME.scn
  tools/scn2toml.py --stdout x.scn                  prints the TOML instead

The result is one case, exactly what the .scn said (qs/scenario.py
documents the format); several such files that differ only in their CPU
count or configuration read better merged by hand into one file with
cpus = [...] or config = [...] (docs/testing.md).

Old form: '# description' first, then config, option (repeatable), boot,
cpus, cmdline, timeout, expect, online (yes/no), groups (space-separated),
log/trace/peer_log (repeatable), input ('trigger => text', \\xNN escapes),
net, peer_cmdline.
"""
import argparse
import re
import sys
from pathlib import Path

ORDER = ("description", "config", "option", "boot", "cpus", "net", "cmdline", "peer_cmdline",
         "timeout", "expect", "online", "groups", "input", "log", "trace", "peer_log")


def parse_scn(path):
    doc, description = {}, None
    for n, raw in enumerate(Path(path).read_text().split("\n"), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if description is None:
                description = line.lstrip("# ")
            continue
        if "=" not in line:
            raise ValueError(f"{path}:{n}: expected 'key = value', got {raw!r}")
        k, v = (s.strip() for s in line.split("=", 1))
        if k in ("option", "log", "trace", "peer_log"):
            doc.setdefault(k, []).append(v)
        elif k == "groups":
            doc[k] = v.split()
        elif k in ("cpus", "timeout"):
            doc[k] = int(v)
        elif k == "online":
            doc[k] = v.lower() in ("yes", "y", "1", "true")
        elif k in ("config", "boot", "cmdline", "expect", "net", "peer_cmdline"):
            doc[k] = v
        elif k == "input":
            if "=>" not in v:
                raise ValueError(f"{path}:{n}: input is 'console trigger => text to type'")
            trig, text = (s.strip() for s in v.split("=>", 1))
            doc[k] = [{"after": re.escape(trig), "send": text.encode().decode("unicode_escape")}]
        else:
            raise ValueError(f"{path}:{n}: unknown key {k!r}")
    if description:
        doc["description"] = description
    return doc


def toml_string(s):
    """A literal string where one will do (regexes read best without
    doubled backslashes), else a basic string with escapes."""
    if "'" not in s and "\n" not in s and all(c >= " " for c in s):
        return f"'{s}'"
    out = []
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif c < " " or c == "\x7f":
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return toml_string(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    items = [toml_value(x) for x in v]
    one = "[" + ", ".join(items) + "]"
    if len(one) < 80 and len(items) < 4:
        return one
    return "[\n" + "".join(f"    {i},\n" for i in items) + "]"


def to_toml(doc):
    lines = []
    for k in ORDER:
        if k in doc:
            lines.append(f"{k} = {toml_value(doc[k])}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--stdout", action="store_true")
    a = ap.parse_args(argv)
    for f in map(Path, a.files):
        text = to_toml(parse_scn(f))
        if a.stdout:
            sys.stdout.write(f"# {f.with_suffix('.toml').name}\n{text}")
        else:
            f.with_suffix(".toml").write_text(text)
            f.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
