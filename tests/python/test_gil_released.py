"""Python threads calling one library at once with the GIL released (tvm_ffi releases it
around every call): 8 threads for a few seconds (ABI_GIL_SECONDS, default 3) call the
objects library's functions and methods on objects they share and on their own, raise
and catch its errors, and check every result; at the end every counter made is dropped
exactly once and the shared one holds every thread's additions. scripts/test-gil.sh runs
it once more under AddressSanitizer."""

import gc
import os
import threading
import time

import pytest

from conftest import load

THREADS = 8
SECONDS = float(os.environ.get("ABI_GIL_SECONDS", "3"))


@pytest.fixture(scope="module")
def objects():
    return load("libabi_objects_lib.so")


def test_eight_threads_share_objects_with_the_gil_released(objects):
    gc.collect()
    dropped_before = objects.dropped()
    shared = objects.make_counter("shared")
    deadline = time.monotonic() + SECONDS
    start = threading.Barrier(THREADS)
    added = [0] * THREADS
    made = [0] * THREADS
    failures = []

    def work(t):
        try:
            start.wait()
            i = 0
            while time.monotonic() < deadline:
                # The shared object: a method and a function, each adding 1.
                assert shared.add(1) >= 1
                assert objects.bump(shared, 1) >= 1
                added[t] += 2
                # A thread's own object: fields, methods, an owned reference both ways.
                mine = objects.make_counter(f"t{t}-{i}")
                made[t] += 1
                assert mine.name == f"t{t}-{i}"
                assert mine.add(t) == t
                assert objects.counter_value(mine) == t
                assert tuple(objects.read_counter(mine)) == (t, 0)
                back = objects.keep(mine)
                assert back.value() == t
                assert objects.ref_count(mine) == 3  # mine, back, and the argument
                del back
                assert objects.ref_count(mine) == 2
                # An error raised in the library, caught in this thread.
                with pytest.raises(TypeError):
                    objects.counter_value(f"not a counter {t}")
                i += 1
        except BaseException as e:  # noqa: BLE001 - reported below, with the thread
            failures.append((t, repr(e)))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    assert all(n > 0 for n in made), made
    assert shared.value() == sum(added)
    assert objects.ref_count(shared) == 2
    del shared
    gc.collect()
    # Every counter made here (the shared one included) dropped exactly once.
    assert objects.dropped() - dropped_before == sum(made) + 1
