"""Eight Python threads calling interop-lib through the Python door, 2,000 times each,
alternating between `count_call`, which keeps the GIL (a string and a number: the default
rule), and `count_call_released`, the same body with `gil = "release"`, which releases it
around the call: so both of the door's paths run, and on the release path threads are
inside the library at once (`calls_met` counts calls that found another there; each waits
up to 100 microseconds for one). Every result right and new (a fresh string, one
reference), the argument's reference count unchanged, and the library counting exactly
16,000 calls (one drop of a value each call makes). Run with the package folder on
PYTHONPATH by tests/python/test_door.py, and under AddressSanitizer by
scripts/test-gil.sh; prints "16000 [] True".
"""

import sys
import threading

import interop_lib as p

for name in ("count_call", "count_call_released"):
    assert type(getattr(p, name)).__module__ == "abi", f"the door serves {name}"
# The door asks the export's `abi.gil` (the default rule where it says nothing), as the
# tvm_ffi route's function does.
gil = {name: p._lib.get_function_metadata(name).get("abi.gil") for name in ("count_call", "count_call_released")}
assert gil == {"count_call": None, "count_call_released": "release"}, gil
assert not p._native_count_call.release_gil and p._native_count_call_released.release_gil
before, met = p.calls_counted(), p.calls_met()
text = "abc" * 5
refs = sys.getrefcount(text)
bad = []


def work(k):
    calls = (p.count_call, p.count_call_released)
    for i in range(2000):
        r = calls[(k + i) % 2](text, k % 3)
        if r != text * (k % 3) or (k % 3 == 2 and sys.getrefcount(r) != 2):
            bad.append((k, i, r))


threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert p.calls_met() > met, "no two threads were inside count_call_released at once"
print(p.calls_counted() - before, bad[:3], sys.getrefcount(text) == refs)
