/* ProcessPrng for Wine 8 (Debian 12), which lacks it: Rust's std imports it from
   bcryptprimitives.dll to seed hash maps. Forwards to RtlGenRandom (advapi32's
   SystemFunction036). Only for running the Windows tests under wine (scripts/test-platforms.sh). */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    for (; len > 0x80000000u; data += 0x80000000u, len -= 0x80000000u)
        if (!SystemFunction036(data, 0x80000000u)) return FALSE;
    return SystemFunction036(data, (ULONG)len);
}
