"""What the documentation shows is what happens: every `>>>` example in README.md and
examples/README.md runs against the example libraries (doctest, `...` matches any text),
and the quickstart's printed output in examples/README.md is compared with a real run."""

import doctest
import pathlib
import re
import subprocess
import textwrap

import pytest
from conftest import ROOT, target_dir

DOCS = ["README.md", "examples/README.md"]
QUICKSTART = "cargo run -p abi-examples --bin quickstart"


def pycon_blocks(text):
    """The ```pycon blocks of a markdown text, dedented (README nests some in lists)."""
    return [textwrap.dedent(m.group(1)) for m in re.finditer(r"^[ \t]*```pycon\n(.*?)^[ \t]*```", text, re.M | re.S)]


@pytest.mark.parametrize("doc", DOCS)
def test_python_examples_print_what_the_doc_shows(doc, tmp_path, monkeypatch):
    blocks = pycon_blocks((ROOT / doc).read_text())
    assert blocks, f"{doc} has no >>> examples"
    # The examples load "target/debug/lib*.so", relative to the repository root; cargo may
    # put its outputs elsewhere (CARGO_TARGET_DIR), so run them where `target` is cargo's.
    (tmp_path / "target").symlink_to(target_dir())
    monkeypatch.chdir(tmp_path)
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    names = {}  # one namespace per file: later blocks use what earlier ones defined
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, names, f"{doc} block {i + 1}", doc, 0)
        assert test.examples, f"{doc} block {i + 1} has no >>> lines"
        runner.run(test, clear_globs=False)
        names = test.globs  # the parser copies the namespace it is given
    failed, attempted = runner.summarize(verbose=False)
    assert attempted > 0 and failed == 0, f"{failed} of {attempted} examples in {doc} differ (diff above)"


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


def test_the_readmes_tvm_program_is_the_tested_one():
    """The README's Apache TVM snippet is code tests/tvm/test_tvm_programs.py runs."""
    text = (ROOT / "README.md").read_text()
    m = re.search(r"### Called from Apache TVM programs.*?```python\n(.*?)```", text, re.S)
    assert m, "README.md shows no Apache TVM program"
    tested = (ROOT / "tests/tvm/test_tvm_programs.py").read_text()
    for line in filter(str.strip, m.group(1).splitlines()):
        assert line.strip() in tested, f"README line not in the tested program: {line.strip()}"
