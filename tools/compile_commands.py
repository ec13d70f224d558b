#!/usr/bin/env python3
"""Write compile_commands.json for one configuration: how each C file of it
is compiled, in the JSON compilation database format that clangd and other
language servers read, so that an editor finds include/, kernel/ and the
generated configuration of the build directory, and sees the CONFIG_
symbols that configuration sets.

`make compile_commands.json` runs it with the Makefile's own flags and file
lists in the environment (the flags as make has them, so the database says
what the build does):

  KERNEL_CFLAGS, KERNEL_SRCS   the kernel's C files of this configuration
  MODULE_SRCS                  modules/, compiled with the kernel's flags
                               and -DMODULE -DMODULE_NAME="<name>"
  USER_CFLAGS, USER_SRCS       user/lib and user/bin
  OBJ_DIR                      the build directory (O=), for each -o

A flag @FILE (the configuration's -D options, autoconf.rsp) is replaced by
the options in FILE: not every language server reads response files, and
their values are escaped as gcc reads them, which shlex undoes.
"""
import argparse
import json
import os
import shlex
import sys
from pathlib import Path


def expand(flags, directory):
    """The flags as one list, each @FILE replaced by the words in FILE."""
    out = []
    for flag in shlex.split(flags):
        if flag.startswith("@"):
            path = Path(directory, flag[1:])
            out += shlex.split(path.read_text())
        else:
            out.append(flag)
    return out


def module_name(src):
    """The module a source belongs to: modules/<name>.c or modules/<name>/*.c
    (as the Makefile's MODULE_NAME)."""
    return Path(src).parts[1].removesuffix(".c")


def entries(env, cc, directory):
    obj_dir = env.get("OBJ_DIR", "build")
    kernel = expand(env.get("KERNEL_CFLAGS", ""), directory)
    user = expand(env.get("USER_CFLAGS", ""), directory)
    groups = [(src, kernel) for src in env.get("KERNEL_SRCS", "").split()]
    groups += [(src, kernel + ["-DMODULE", '-DMODULE_NAME="%s"' % module_name(src)])
               for src in env.get("MODULE_SRCS", "").split()]
    groups += [(src, user) for src in env.get("USER_SRCS", "").split()]
    out = []
    for src, flags in groups:
        obj = str(Path(obj_dir, src).with_suffix(".o"))
        out.append({"directory": str(directory), "file": str(Path(directory, src)),
                    "arguments": [cc] + flags + ["-c", src, "-o", obj], "output": obj})
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cc", default="gcc", help="the compiler (without ccache)")
    ap.add_argument("--directory", default=os.getcwd(), help="the tree's root")
    ap.add_argument("--out", default="compile_commands.json")
    args = ap.parse_args(argv)
    db = entries(os.environ, args.cc, Path(args.directory).resolve())
    if not db:
        sys.exit("compile_commands.py: no source files given (run it through make)")
    text = json.dumps(db, indent=1) + "\n"
    out = Path(args.out)
    # Rewritten only when it changes, so a language server does not index
    # the whole tree again for nothing.
    if not out.exists() or out.read_text() != text:
        out.write_text(text)
    print(f"  {len(db)} files", file=sys.stderr)


if __name__ == "__main__":
    main()
