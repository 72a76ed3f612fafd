"""What the documentation shows is what happens. Every `>>>` example of the README, the
guide (docs/guide/*.md) and examples/README.md runs against the example libraries (doctest,
`...` matches any text); a Rust block marked `<!-- from: PATH -->` is the code of PATH, line
for line; every file and anchor the documentation links or names exists; the quickstart's
printed output in examples/README.md is compared with a real run. (The guide's Rust
snippets are compiled by abi-derive-tests, and the command outputs it shows by
abi-cli/tests/cli.rs and tests/iree.)"""

import doctest
import re
import subprocess
import textwrap

import pytest
from conftest import DOC_FILES, ROOT, target_dir

QUICKSTART = "cargo run -p abi-examples --bin quickstart"
# Top-level folders whose paths the documentation names as files of this repository.
REPO_DIRS = ("abi-cli", "abi-core", "abi-derive-tests", "abi-macros", "abi-shared", "benches", "docs", "examples",
             "fixtures", "scripts", "tests")


def fenced_blocks(text, lang):
    """The ```LANG blocks of a markdown text, dedented (some sit in list items), with the
    line of their opening fence."""
    return [
        (text.count("\n", 0, m.start()) + 1, textwrap.dedent(m.group(1)))
        for m in re.finditer(rf"^[ \t]*```{lang}\n(.*?)^[ \t]*```", text, re.M | re.S)
    ]


def test_the_guide_has_the_chapters_the_readme_lists():
    readme = (ROOT / "README.md").read_text()
    linked = re.findall(r"\]\(docs/guide/([a-z-]+\.md)\)", readme)
    chapters = sorted(p.name for p in (ROOT / "docs/guide").glob("*.md") if p.name != "README.md")
    assert sorted(set(linked)) == chapters, "README.md's chapter table and docs/guide/ disagree"
    index = (ROOT / "docs/guide/README.md").read_text()
    assert sorted(set(re.findall(r"\]\(([a-z-]+\.md)\)", index))) == chapters, "docs/guide/README.md misses a chapter"
    assert len(readme.splitlines()) <= 250, "the README is what a newcomer reads in five minutes: move detail to the guide"


@pytest.mark.parametrize("doc", [d for d in DOC_FILES if fenced_blocks((ROOT / d).read_text(), "pycon")])
def test_python_examples_print_what_the_doc_shows(doc, tmp_path, monkeypatch):
    blocks = fenced_blocks((ROOT / doc).read_text(), "pycon")
    # The examples load "target/debug/lib*.so", relative to the repository root; cargo may
    # put its outputs elsewhere (CARGO_TARGET_DIR), so run them where `target` is cargo's.
    (tmp_path / "target").symlink_to(target_dir())
    monkeypatch.chdir(tmp_path)
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    names = {}  # one namespace per file: later blocks use what earlier ones defined
    for line, block in blocks:
        test = parser.get_doctest(block, names, f"{doc} line {line}", doc, line)
        assert test.examples, f"{doc} line {line} has no >>> lines"
        runner.run(test, clear_globs=False)
        names = test.globs  # the parser copies the namespace it is given
    failed, attempted = runner.summarize(verbose=False)
    assert attempted > 0 and failed == 0, f"{failed} of {attempted} examples in {doc} differ (diff above)"


def test_the_python_example_files_are_all_run():
    with_examples = {d for d in DOC_FILES if fenced_blocks((ROOT / d).read_text(), "pycon")}
    assert {"README.md", "docs/guide/exporting.md", "docs/guide/tensors.md", "examples/README.md"} <= with_examples


@pytest.mark.parametrize("doc", DOC_FILES)
def test_code_marked_as_from_a_file_is_that_files_code(doc):
    """A block after `<!-- from: PATH -->` shows PATH's lines, in PATH's order (its `use`
    lines import only what the block needs, so they are not compared)."""
    text = (ROOT / doc).read_text()
    for m in re.finditer(r"<!-- from: (\S+) -->\n\s*```\w+\n(.*?)^\s*```", text, re.S | re.M):
        source = (ROOT / m.group(1)).read_text().splitlines()
        at = 0
        for line in (l for l in m.group(2).splitlines() if l.strip() and not l.startswith("use ")):
            found = next((i for i in range(at, len(source)) if source[i].strip() == line.strip()), None)
            assert found is not None, f"{doc}: line {line.strip()!r} is not in {m.group(1)} (after line {at})"
            at = found + 1


def github_anchor(heading):
    """The anchor GitHub gives a markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize("doc", [*DOC_FILES, "docs/ARCHITECTURE.md", "CHANGELOG.md"])
def test_every_file_and_anchor_the_docs_name_exists(doc):
    path = ROOT / doc
    text = path.read_text()
    prose = re.sub(r"^[ \t]*```.*?^[ \t]*```", "", text, flags=re.M | re.S)  # not inside code blocks
    missing = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"[a-z]+:", target):
            continue  # an external address
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            missing.append(target)
        elif anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.*)$", linked.read_text(), re.M)
            if anchor not in {github_anchor(h) for h in headings}:
                missing.append(target)
    for named in re.findall(r"`((?:%s)/[A-Za-z0-9_./-]*[A-Za-z0-9_/])`" % "|".join(REPO_DIRS), prose):
        if not (ROOT / named).exists():
            missing.append(named)
    assert not missing, f"{doc} names files or anchors that do not exist: {missing}"


def test_quickstart_prints_what_examples_readme_shows():
    text = (ROOT / "examples/README.md").read_text()
    m = re.search(rf"<!-- output of: {re.escape(QUICKSTART)} -->\n```text\n(.*?)```", text, re.S)
    assert m, "examples/README.md shows no quickstart output"
    run = subprocess.run(QUICKSTART.split() + ["--quiet"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == m.group(1)


def test_every_path_the_architecture_map_names_exists():
    text = (ROOT / "docs/ARCHITECTURE.md").read_text()
    # Backquoted repository paths: a crate folder, a file, or a folder (trailing slash);
    # `scalars.rs`-style names in a list continue the folder named just before them.
    paths = re.findall(r"`((?:abi-[a-z]+|tests|scripts|docs)/[A-Za-z0-9_./-]+)`", text)
    assert len(paths) >= 30, paths
    missing = [p for p in paths if not (ROOT / p).exists()]
    assert not missing, f"docs/ARCHITECTURE.md names paths that do not exist: {missing}"
    siblings = re.findall(r"\(`(abi-[a-z]+/src/[a-z_/]+/)[a-z_]+\.rs`,((?:\s+`[a-z_]+\.rs`,?)+)", text)
    assert siblings, "the list of conversion files was not found"
    for folder, names in siblings:
        for name in re.findall(r"`([a-z_]+\.rs)`", names):
            assert (ROOT / folder / name).exists(), f"{folder}{name}"
    for crate in re.findall(r"^\| `(abi-[a-z-]+)` \|", text, re.M):
        assert (ROOT / crate / "Cargo.toml").exists(), crate


def test_the_guides_tvm_program_is_the_tested_one():
    """The Apache TVM snippet of docs/guide/frameworks.md is code tests/tvm/test_tvm_programs.py runs."""
    text = (ROOT / "docs/guide/frameworks.md").read_text()
    m = re.search(r"## Apache TVM programs.*?```python\n(.*?)```", text, re.S)
    assert m, "docs/guide/frameworks.md shows no Apache TVM program"
    tested = (ROOT / "tests/tvm/test_tvm_programs.py").read_text()
    for line in filter(str.strip, m.group(1).splitlines()):
        assert line.strip() in tested, f"guide line not in the tested program: {line.strip()}"


def test_compile_errors_the_documentation_shows_are_the_compile_fail_suites():
    """Every `error: ...` line of a ```text block is a line some compile-fail case of
    abi-derive-tests prints (its .stderr file), so the messages shown are the real ones."""
    printed = {line.rstrip() for p in (ROOT / "abi-derive-tests/tests/ui").rglob("*.stderr")
               for line in p.read_text().splitlines()}
    shown = [(doc, line.strip()) for doc in DOC_FILES for _, block in fenced_blocks((ROOT / doc).read_text(), "text")
             for line in block.splitlines() if re.match(r"error(\[E\d+\])?: ", line.strip())]
    assert len(shown) >= 10, shown
    assert [(doc, line) for doc, line in shown if line not in printed] == []


def test_the_door_budgets_the_guide_states_are_the_checked_ones():
    """The table of docs/guide/python.md gives, per call, the budget `scripts/bench.sh --check`
    holds the door to (benches/python/peer.py's BUDGETS)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("peer", ROOT / "benches/python/peer.py")
    peer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peer)
    text = (ROOT / "docs/guide/python.md").read_text()
    rows = re.findall(r"^\| `(\w+)\(.*?\| ([\d.]+) \|$", text, re.M)
    assert len(rows) == 6, rows
    for call, budget in rows:
        assert peer.BUDGETS[f"py_peer_{call}"] == f"ratio<={budget}", (call, budget)


def test_the_guides_door_cost_tables_are_the_checked_ones_of_benches_readme():
    """docs/guide/python.md's `door-costs` and `door-torch` tables are what
    benches/python/guide_tables.py makes from benches/README.md's checked tables (its
    `py_peer_*` rows and torch timings), which `scripts/bench.sh --check` holds to a run."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("guide_tables", ROOT / "benches/python/guide_tables.py")
    guide_tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(guide_tables)
    assert guide_tables.stale() == [], "run python3 benches/python/guide_tables.py --write"
