"""Checks that a library built for macOS or Windows carries the same records as its Linux
build: the export, class and IREE records tools read without running it, each in its
format's section (abi-shared/src/lib.rs names them). Exits 1 naming what differs.

    python3 same_records.py OBJCOPY LINUX_SO OTHER_LIB

OBJCOPY is an llvm-objcopy (the Rust toolchain's rust-objcopy reads ELF, Mach-O and PE).
Records are compared as sets: linkers order sections' pieces differently.
"""

import pathlib
import re
import subprocess
import sys
import tempfile

SHARED = pathlib.Path(__file__).resolve().parents[2] / "abi-shared" / "src" / "lib.rs"


def section_names():
    """{kind: {format: name}} from abi-shared's constants."""
    text = SHARED.read_text()
    names = {}
    for kind, const in (("exports", "EXPORT"), ("classes", "CLASS"), ("iree", "IREE")):
        names[kind] = {}
        for fmt, suffix in (("elf", ""), ("macho", "_MACHO"), ("pe", "_PE")):
            m = re.search(rf'pub const {const}_RECORDS_SECTION{suffix}: &str = "([^"]+)";', text)
            assert m, f"{const}_RECORDS_SECTION{suffix} not in {SHARED}"
            names[kind][fmt] = m.group(1)
    return names


def file_format(path):
    head = pathlib.Path(path).read_bytes()[:4]
    if head == b"\x7fELF":
        return "elf"
    if head in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe"):
        return "macho"
    if head[:2] == b"MZ":
        return "pe"
    sys.exit(f"{path}: neither ELF, Mach-O nor PE")


def section(objcopy, path, name):
    """The bytes of section `name` of `path`; None when it has none."""
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "section"
        run = subprocess.run(
            [*objcopy.split(), "--dump-section", f"{name}={out}", path, str(pathlib.Path(tmp) / "copy")],
            capture_output=True,
            text=True,
        )
        return out.read_bytes() if run.returncode == 0 and out.exists() else None


def export_records(data):
    """Sorted (name, global, body) of `name NUL global NUL u32-length body` records, NULs
    padding between them."""
    records, i = [], 0
    while i < len(data):
        if data[i] == 0:
            i += 1
            continue
        name_end = data.index(0, i)
        global_end = data.index(0, name_end + 1)
        length = int.from_bytes(data[global_end + 1 : global_end + 5], "little")
        body = data[global_end + 5 : global_end + 5 + length]
        records.append((data[i:name_end], data[name_end + 1 : global_end], body))
        i = global_end + 5 + length
    return sorted(records)


def text_records(data):
    """Sorted NUL-terminated records."""
    return sorted(r for r in data.split(b"\0") if r)


def main():
    objcopy, linux, other = sys.argv[1:4]
    names = section_names()
    fmt = file_format(other)
    failed = False
    for kind, parse in (("exports", export_records), ("classes", text_records), ("iree", text_records)):
        want = section(objcopy, linux, names[kind]["elf"])
        got = section(objcopy, other, names[kind][fmt])
        if want is None:
            if got is not None:
                print(f"{other}: {names[kind][fmt]} present, the Linux library has no {kind} records")
                failed = True
            continue
        if got is None:
            print(f"{other}: no section {names[kind][fmt]} ({kind} records; the Linux library has them)")
            failed = True
            continue
        want, got = parse(want), parse(got)
        if want != got:
            short = lambda r: (r[0] if isinstance(r, tuple) else r[:60]).decode(errors="replace")
            missing = [short(r) for r in want if r not in got]
            extra = [short(r) for r in got if r not in want]
            print(f"{other}: {kind} records differ from the Linux library's: missing {missing}, extra {extra}")
            failed = True
        else:
            print(f"{other}: {len(got)} {kind} record(s) in {names[kind][fmt]}, as on Linux")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
