"""A generated Markdown table kept between `<!-- NAME:begin -->` and `<!-- NAME:end -->` in a
file: read the rows it shows, or replace it. Used by scripts/bench.sh and
scripts/bench-iree.sh for their tables in benches/README.md."""

import pathlib
import sys


def _split(path, name):
    text = pathlib.Path(path).read_text()
    begin, end = f"<!-- {name}:begin -->", f"<!-- {name}:end -->"
    if begin not in text or end not in text:
        sys.exit(f"{path} has no {begin} ... {end} section")
    head, rest = text.split(begin, 1)
    shown, tail = rest.split(end, 1)
    return head + begin, shown, end + tail


def rows(lines, cells):
    """The data rows of table `lines` with `cells` columns, by their first cell."""
    out = {}
    for line in lines:
        row = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(row) == cells and not set(row[0]) <= set("-") and row[0] != "case":
            out[row[0]] = row
    return out


def shown(path, name, cells):
    """The rows the section `name` of `path` shows now."""
    return rows(_split(path, name)[1].strip().splitlines(), cells)


def rewrite(path, name, table):
    """Replaces the section's table with `table` (its lines)."""
    head, _, tail = _split(path, name)
    pathlib.Path(path).write_text(f"{head}\n" + "\n".join(table) + f"\n{tail}")
