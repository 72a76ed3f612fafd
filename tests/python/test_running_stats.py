"""The running-stats example (examples/running-stats) against numpy: chunks pushed from
several threads into one shared object, and accumulators merged, give numpy's answers."""

import threading

import numpy as np
import pytest

from conftest import load


@pytest.fixture(scope="module")
def stats():
    return load("librunning_stats.so")


def test_chunks_from_threads_match_numpy(stats):
    rng = np.random.default_rng(7)
    data = rng.normal(3.0, 2.0, size=40_000)
    s = stats.describe("t", data[:0])
    chunks = np.array_split(data, 16)
    threads = [threading.Thread(target=lambda c=c: s.push(c)) for c in chunks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert s.count() == data.size
    assert s.mean() == pytest.approx(data.mean(), rel=1e-12)
    assert s.variance() == pytest.approx(data.var(ddof=1), rel=1e-9)
    assert (s.min(), s.max()) == (data.min(), data.max())


def test_merged_accumulators_equal_one_over_everything(stats):
    a = stats.describe("a", np.arange(10, dtype=np.int64))
    b = stats.describe("b", np.linspace(-1.0, 1.0, 7, dtype=np.float32))
    a.merge(b)
    both = np.concatenate([np.arange(10.0), np.linspace(-1.0, 1.0, 7, dtype=np.float32).astype(np.float64)])
    assert a.count() == both.size
    assert a.mean() == pytest.approx(both.mean(), rel=1e-12)
    assert a.std() == pytest.approx(both.std(ddof=1), rel=1e-12)
    a.reset()
    assert a.count() == 0
    assert a.summary() == "a: no values"


def test_unsupported_dtypes_and_too_few_values_are_errors(stats):
    s = stats.describe("s", np.array([1.0]))
    with pytest.raises(TypeError, match="float32/64 or int32/64 values, got uint8"):
        s.push(np.zeros(2, dtype=np.uint8))
    with pytest.raises(ValueError, match="needs at least two values, has 1"):
        s.variance()
