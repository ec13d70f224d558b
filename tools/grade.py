#!/usr/bin/env python3
"""grade.py: make grade LAB=n: grade a lab (labs/labN-*/grade.toml). The
code is tools/qs/grade.py, whose docstring (--help prints it) says what a
grade.toml and a catalogue of mistakes hold."""
import sys

from qs import grade

if __name__ == "__main__":
    sys.exit(grade.main())
# Imported (tests/test_grade.py, tests/test_answer_mistakes.py), this
# name is the grader's own module, not a copy of its names: a test's
# monkeypatch of grade.build, grade._built or grade.load must reach the
# code that calls them.
sys.modules[__name__] = grade
