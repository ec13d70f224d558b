#!/usr/bin/env python3
"""Make deliberately broken modules from a good one, for the loader's tests.

    mkbadmod.py --list                       the kinds, one per line
    mkbadmod.py --out-dir DIR hello.ko       DIR/<kind>.ko for each kind,
                                             and DIR/manifest

Each kind breaks one thing the loader (kernel/module/) must check before
it trusts the file, and the manifest says what insmod must then report:
one line per kind, "<kind> <errno name> <words the error must contain>".
user/bin/modtest.c loads each from /lib/modules/bad/ and checks the error,
the message and that nothing leaked. No dependency beyond Python.
"""
import argparse
import os
import struct
import sys

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
SHDR = struct.Struct("<IIQQQQIIQQ")
SYM = struct.Struct("<IBBHQQ")
RELA = struct.Struct("<QQq")
SHT_SYMTAB, SHT_STRTAB, SHT_RELA = 2, 3, 4
SHF_WRITE = 0x1
SHN_COMMON = 0xfff2
R_X86_64_PC32, R_X86_64_PLT32, R_X86_64_32 = 2, 4, 10


class Elf:
    def __init__(self, data):
        self.data = bytearray(data)
        h = EHDR.unpack_from(self.data, 0)
        self.shoff, self.shnum, self.shstrndx = h[6], h[12], h[13]
        self.sections = [list(SHDR.unpack_from(self.data, self.shoff + i * SHDR.size))
                         for i in range(self.shnum)]
        names = self.sections[self.shstrndx]
        self.secnames = bytes(self.data[names[4]:names[4] + names[5]])
        self.symtab = next(i for i, s in enumerate(self.sections) if s[1] == SHT_SYMTAB)
        st = self.sections[self.symtab]
        self.strtab_off = self.sections[st[6]][4]
        self.nsyms = st[5] // SYM.size

    def name(self, i):
        off = self.sections[i][0]
        return self.secnames[off:self.secnames.index(b"\0", off)].decode()

    def put_section(self, i):
        SHDR.pack_into(self.data, self.shoff + i * SHDR.size, *self.sections[i])

    def sym(self, k):
        return list(SYM.unpack_from(self.data, self.sections[self.symtab][4] + k * SYM.size))

    def put_sym(self, k, s):
        SYM.pack_into(self.data, self.sections[self.symtab][4] + k * SYM.size, *s)

    def sym_name(self, k):
        off = self.strtab_off + self.sym(k)[0]
        return bytes(self.data[off:self.data.index(b"\0", off)]).decode()

    def relas(self):
        """(offset in file, r_offset, r_info, addend, section index) of every RELA entry."""
        for i, s in enumerate(self.sections):
            if s[1] != SHT_RELA:
                continue
            for j in range(s[5] // RELA.size):
                off = s[4] + j * RELA.size
                yield (off, *RELA.unpack_from(self.data, off), i)


def by_name(e, name):
    return next(i for i in range(e.shnum) if e.name(i) == name)


def undefined_reloc(e, types):
    """A relocation of one of `types` against an undefined symbol (a kernel export)."""
    for off, r_off, info, add, i in e.relas():
        k = info >> 32
        if (info & 0xffffffff) in types and e.sym(k)[3] == 0 and e.sym(k)[0]:
            return off, r_off, info, add, k
    sys.exit("mkbadmod: no relocation against a kernel symbol to break")


def truncated(e):
    return bytes(e.data[:len(e.data) // 2])


def wrong_machine(e):
    struct.pack_into("<H", e.data, 18, 3)            # EM_386
    return e.data


def bad_offset(e):
    i = by_name(e, ".text")
    e.sections[i][4] = 0x7ffffff0                   # sh_offset far past the end
    e.put_section(i)
    return e.data


def bad_symbol_index(e):
    off, r_off, info, add, k = undefined_reloc(e, (R_X86_64_PC32, R_X86_64_PLT32))
    RELA.pack_into(e.data, off, r_off, (0x7ffff << 32) | (info & 0xffffffff), add)
    return e.data


def bad_string(e):
    k = next(k for k in range(1, e.nsyms) if e.sym(k)[0])
    s = e.sym(k)
    s[0] = 0x7fffff00                               # st_name past the string table
    e.put_sym(k, s)
    return e.data


def symbol0(e, name_off=0, shndx=0):
    """Symbol 0 (the null symbol) made not null, and a relocation naming it."""
    s = e.sym(0)
    s[0] = name_off or s[0]
    s[3] = shndx or s[3]
    e.put_sym(0, s)
    off, r_off, info, add, k = undefined_reloc(e, (R_X86_64_PC32, R_X86_64_PLT32))
    RELA.pack_into(e.data, off, r_off, R_X86_64_32, -1)     # symbol 0, S + A = -1
    return e.data


def symbol0_bad_string(e):
    return symbol0(e, name_off=0xfffffff0)          # st_name past the string table


def symbol0_bad_section(e):
    return symbol0(e, shndx=0x7ff0)                 # st_shndx past the last section


def bad_reloc_type(e):
    off, r_off, info, add, k = undefined_reloc(e, (R_X86_64_PC32, R_X86_64_PLT32))
    RELA.pack_into(e.data, off, r_off, (k << 32) | 200, add)
    return e.data


def unresolved(e):
    off, r_off, info, add, k = undefined_reloc(e, (R_X86_64_PC32, R_X86_64_PLT32))
    name_off = e.strtab_off + e.sym(k)[0]
    e.data[name_off] ^= 0x20                         # printk -> Printk: exported by no one
    return e.data


def overflow(e):
    off, r_off, info, add, k = undefined_reloc(e, (R_X86_64_PC32, R_X86_64_PLT32))
    RELA.pack_into(e.data, off, r_off, (k << 32) | R_X86_64_32, 0)
    return e.data


def common(e):
    k = next(k for k in range(1, e.nsyms)
             if (e.sym(k)[1] & 0xf) == 1 and e.sym(k)[3] not in (0, 0xfff1))   # a defined object
    s = e.sym(k)
    s[3] = SHN_COMMON
    e.put_sym(k, s)
    return e.data


def write_exec(e):
    i = by_name(e, ".text")
    e.sections[i][2] |= SHF_WRITE
    e.put_section(i)
    return e.data


def wrong_config(e):
    i = by_name(e, ".modinfo")
    start = e.sections[i][4]
    blob = bytes(e.data[start:start + e.sections[i][5]])
    at = blob.index(b"vermagic=quiescent-") + len(b"vermagic=quiescent-")
    e.data[start + at] = ord("x") if e.data[start + at] != ord("x") else ord("y")
    return e.data


def modinfo_strings(e):
    """The index of .modinfo and its strings, without their NULs."""
    i = by_name(e, ".modinfo")
    start, size = e.sections[i][4], e.sections[i][5]
    return i, bytes(e.data[start:start + size]).split(b"\0")[:-1]


def new_modinfo(e, i, blob, after=b""):
    """.modinfo moved to the end of the file and made `blob`; `after` follows
    it in the file but lies outside the section."""
    e.sections[i][4] = len(e.data)
    e.sections[i][5] = len(blob)
    e.put_section(i)
    e.data += blob + after
    return e.data


def long_name(e):
    # A well-formed name= string (NUL-terminated, legal characters) that is
    # longer than struct module's name field: it must be refused, not cut.
    i, strings = modinfo_strings(e)
    strings = [b"name=" + b"a" * 40 if s.startswith(b"name=") else s for s in strings]
    return new_modinfo(e, i, b"\0".join(strings) + b"\0")


def unterminated_name(e):
    # name= last in .modinfo and its NUL missing: the section ends inside
    # the name. The file goes on with more letters and a NUL, so a loader
    # that read the name with strlen() would find "hellooverrun" there.
    # The section keeps at least its old size: the __modinfo symbols point
    # into it, and one past its end would be refused before .modinfo is read.
    i, strings = modinfo_strings(e)
    head = b"".join(s + b"\0" for s in strings if not s.startswith(b"name="))
    tail = b"name=hello"
    short = e.sections[i][5] - len(head) - len(tail)
    if short > 0:
        head += b"pad=" + b"p" * max(0, short - 5) + b"\0"
    return new_modinfo(e, i, head + tail, after=b"overrun\0")


# kind: (maker, errno name, words the loader's message must contain)
KINDS = {
    "truncated": (truncated, "ENOEXEC", "outside the"),
    "wrong-machine": (wrong_machine, "ENOEXEC", "machine 3"),
    "bad-offset": (bad_offset, "ENOEXEC", "lie outside the"),
    "bad-symbol-index": (bad_symbol_index, "ENOEXEC", "out of range"),
    "bad-string": (bad_string, "ENOEXEC", "name offset"),
    "symbol0-bad-string": (symbol0_bad_string, "ENOEXEC", "symbol 0 is not the null symbol"),
    "symbol0-bad-section": (symbol0_bad_section, "ENOEXEC", "symbol 0 is not the null symbol"),
    "bad-reloc-type": (bad_reloc_type, "ENOEXEC", "unknown type 200"),
    "unresolved": (unresolved, "ENOENT", "unresolved symbol"),
    "overflow": (overflow, "ENOEXEC", "R_X86_64_32 against"),
    "common": (common, "ENOEXEC", "is COMMON"),
    "write-exec": (write_exec, "ENOEXEC", "writable and executable"),
    "wrong-config": (wrong_config, "ENOEXEC", "kernel configuration"),
    "long-name": (long_name, "ENAMETOOLONG", "is 40 characters, longer than"),
    "unterminated-name": (unterminated_name, "ENOEXEC", "not a list of NUL-terminated"),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--out-dir")
    ap.add_argument("good", nargs="?")
    a = ap.parse_args()
    if a.list:
        print("\n".join(KINDS))
        return
    if not a.out_dir or not a.good:
        ap.error("--out-dir DIR and a good module are needed")
    os.makedirs(a.out_dir, exist_ok=True)
    good = open(a.good, "rb").read()
    manifest = []
    for kind, (make, err, words) in KINDS.items():
        with open(os.path.join(a.out_dir, kind + ".ko"), "wb") as fh:
            fh.write(bytes(make(Elf(good))))
        manifest.append(f"{kind} {err} {words}")
    with open(os.path.join(a.out_dir, "manifest"), "w") as fh:
        fh.write("\n".join(manifest) + "\n")


if __name__ == "__main__":
    main()
