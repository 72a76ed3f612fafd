"""Keeps a generated section of a README: the lines between `<!-- NAME:start -->` and
`<!-- NAME:end -->`. With WRITE=1 it replaces them with the text of NEW; otherwise it checks
that the section's table rows name the cases CASES lists (one per line, the first column),
in order, and exits 1 naming the difference.

usage: readme_section.py README NAME NEW CASES WRITE
"""

import pathlib
import sys


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    readme, name, new, cases, write = sys.argv[1:]
    path = pathlib.Path(readme)
    text = path.read_text()
    start, end = f"<!-- {name}:start -->\n", f"<!-- {name}:end -->"
    if start not in text or end not in text:
        sys.exit(f"FAIL: {readme} has no section {start.strip()} ... {end}")
    head, rest = text.split(start, 1)
    section, tail = rest.split(end, 1)
    if write == "1":
        path.write_text(head + start + pathlib.Path(new).read_text() + end + tail)
        print(f"{readme}: section {name} rewritten")
        return
    rows = [line.split("|")[1].strip() for line in section.splitlines() if line.startswith("| ") and not line.startswith("| call")]
    wanted = pathlib.Path(cases).read_text().splitlines()
    if rows != wanted:
        sys.exit(f"FAIL: {readme} section {name} lists {rows}, the script times {wanted}: rerun with --write-readme")
    print(f"ok: {readme} section {name} lists the {len(rows)} calls timed")


if __name__ == "__main__":
    main()
