"""Eight Python threads calling interop-lib's `count_call` through the Python door, 2,000
times each: every result right and new (a fresh string, one reference), the argument's
reference count unchanged, and the library counting exactly 16,000 calls. Run with the
package folder on PYTHONPATH by tests/python/test_door.py, and under AddressSanitizer by
scripts/test-gil.sh; prints "16000 [] True".
"""

import sys
import threading

import interop_lib as p

assert type(p.count_call).__module__ == "abi", "the door serves count_call"
before = p.calls_counted()
text = "abc" * 5
refs = sys.getrefcount(text)
bad = []


def work(k):
    for i in range(2000):
        r = p.count_call(text, k % 3)
        if r != text * (k % 3) or (k % 3 == 2 and sys.getrefcount(r) != 2):
            bad.append((k, i, r))


threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(p.calls_counted() - before, bad[:3], sys.getrefcount(text) == refs)
