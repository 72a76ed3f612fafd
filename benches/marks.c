/* The marks around each measured loop (scripts/bench.sh builds this file as marks.so and
 * names it in ABI_BENCH_MARKS): the icount binary (through libloading) and the Python
 * bench scripts (through ctypes) call abi_bench_mark_start before a loop, on which
 * callgrind zeroes its counts, and abi_bench_mark_stop after it, on which callgrind writes
 * the counts since then to a file of their own (FILE.1, FILE.2, ...). Client requests,
 * not function names given to --zero-before/--dump-before: callgrind does not name the
 * functions of a library this small loaded by dlopen, so those options never fire. */
#include <valgrind/callgrind.h>

void abi_bench_mark_start(void) { CALLGRIND_ZERO_STATS; }
void abi_bench_mark_stop(void) { CALLGRIND_DUMP_STATS; }
