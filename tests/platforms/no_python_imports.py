"""Fails if a built library imports a CPython symbol (`Py*`, `_Py*`) or links a Python
library (issue 51): the Python door reaches the interpreter only through the table of
addresses the package hands it, so the same file loads in a process with no Python at
all (Rust links with `-z now`, Mach-O binds at load, Windows import tables bind at load).

ELF: `nm -D --undefined-only`; PE: the import table as `x86_64-w64-mingw32-objdump -p`
prints it; Mach-O: the undefined external symbols of the symbol table, read here.

usage: no_python_imports.py LIBRARY...
"""

import re
import struct
import subprocess
import sys

PYTHON_SYMBOL = re.compile(r"^_?_?Py[A-Z_]")
PYTHON_LIBRARY = re.compile(r"python[0-9.]*", re.IGNORECASE)


def elf_imports(path):
    out = subprocess.run(["nm", "-D", "--undefined-only", path], capture_output=True, text=True, check=True).stdout
    names = [line.split()[-1].split("@")[0] for line in out.splitlines() if line.strip()]
    needed = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    return names, re.findall(r"\(NEEDED\)\s+Shared library: \[(.*?)\]", needed)


def pe_imports(path):
    out = subprocess.run(["x86_64-w64-mingw32-objdump", "-p", path], capture_output=True, text=True, check=True).stdout
    dlls = re.findall(r"DLL Name: (\S+)", out)
    # Each imported function: a line of hint and name under its DLL's table.
    names = re.findall(r"^\s+[0-9a-f]+\s+[0-9]+\s+([A-Za-z_][A-Za-z0-9_@]*)$", out, re.MULTILINE)
    return names, dlls


def macho_imports(path):
    data = open(path, "rb").read()
    magic, _, _, _, ncmds, _, _ = struct.unpack_from("<7I", data, 0)
    assert magic == 0xFEEDFACF, f"{path}: not a 64-bit little-endian Mach-O"
    at, names, dylibs = 32, [], []
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<2I", data, at)
        if cmd == 0x2:  # LC_SYMTAB
            symoff, nsyms, stroff, _ = struct.unpack_from("<4I", data, at + 8)
            for i in range(nsyms):
                strx, n_type, _, _, _ = struct.unpack_from("<IBBHQ", data, symoff + 16 * i)
                if n_type & 0x0E == 0 and n_type & 0x01:  # N_UNDF, N_EXT
                    end = data.index(b"\0", stroff + strx)
                    names.append(data[stroff + strx : end].decode())
        elif cmd in (0xC, 0x18 | 0x80000000, 0x1F | 0x80000000):  # LC_LOAD_DYLIB, weak, reexport
            name_at = struct.unpack_from("<I", data, at + 8)[0]
            dylibs.append(data[at + name_at : data.index(b"\0", at + name_at)].decode())
        at += size
    return names, dylibs


def imports(path):
    head = open(path, "rb").read(4)
    if head == b"\x7fELF":
        return elf_imports(path)
    if head[:2] == b"MZ":
        return pe_imports(path)
    return macho_imports(path)


def main():
    failed = False
    for path in sys.argv[1:]:
        names, libraries = imports(path)
        python = sorted({n for n in names if PYTHON_SYMBOL.match(n)})
        linked = [lib for lib in libraries if PYTHON_LIBRARY.search(lib)]
        if python or linked:
            print(f"FAIL: {path} imports {python[:5]} and links {linked}", file=sys.stderr)
            failed = True
        elif not names:
            print(f"FAIL: {path}: no imports read (the reader is broken)", file=sys.stderr)
            failed = True
        else:
            print(f"{path}: {len(names)} imports, none from Python")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
