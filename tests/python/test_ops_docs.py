"""The torch and JAX session of docs/guide/ops.md (the ```pycon frameworks block) prints
what the chapter shows, run after the chapter's other sessions in one namespace, as a
reader would type them. Runs in .venv-frameworks (scripts/test.sh's framework step);
skipped where torch or JAX is absent. tests/python/test_docs.py runs the other sessions in
the main venv."""

import doctest

from conftest import ROOT, framework, target_dir
from test_docs import fenced_blocks

framework("torch")
framework("jax")
framework("jax_tvm_ffi")

CHAPTER = "docs/guide/ops.md"


def test_the_framework_session_prints_what_the_chapter_shows(tmp_path, monkeypatch):
    text = (ROOT / CHAPTER).read_text()
    sessions = sorted(fenced_blocks(text, "pycon") + fenced_blocks(text, "pycon frameworks"))
    assert any(block in (b for _, b in fenced_blocks(text, "pycon frameworks")) for _, block in sessions)
    # The sessions load "target/debug/lib*.so", relative to the repository root.
    (tmp_path / "target").symlink_to(target_dir())
    monkeypatch.chdir(tmp_path)
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    names = {}
    for line, block in sessions:
        test = parser.get_doctest(block, names, f"{CHAPTER} line {line}", CHAPTER, line)
        runner.run(test, clear_globs=False)
        names = test.globs
    failed, attempted = runner.summarize(verbose=False)
    assert attempted > 0 and failed == 0, f"{failed} of {attempted} examples in {CHAPTER} differ (diff above)"
