/* ARM semihosting over BKPT 0xAB (the M-profile trap). */
#include "semihost.h"

enum {
    SYS_WRITE0 = 0x04,
    SYS_EXIT = 0x18,
    SYS_EXIT_EXTENDED = 0x20,
    ADP_STOPPED_APPLICATION_EXIT = 0x20026,
    ADP_STOPPED_RUNTIME_ERROR_UNKNOWN = 0x20023,
};

static uint32_t sh_call(uint32_t op, const void *arg) {
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void sh_puts(const char *s) { sh_call(SYS_WRITE0, s); }

void sh_putn(const char *s, uint32_t n) {
    char buf[65];
    while (n > 0) {
        uint32_t k = n < 64 ? n : 64;
        for (uint32_t i = 0; i < k; i++) buf[i] = s[i] ? s[i] : '?';
        buf[k] = 0;
        sh_puts(buf);
        s += k;
        n -= k;
    }
}

void sh_putu(uint64_t v) {
    char buf[21];
    int i = 20;
    buf[i] = 0;
    do {
        /* 64-bit division without libgcc's __aeabi_uldivmod: by 10 via shifts. */
        uint64_t q = (v >> 1) + (v >> 2);
        q += q >> 4;
        q += q >> 8;
        q += q >> 16;
        q += q >> 32;
        q >>= 3;
        uint64_t r = v - q * 10;
        if (r > 9) {
            q++;
            r -= 10;
        }
        buf[--i] = (char)('0' + r);
        v = q;
    } while (v);
    sh_puts(buf + i);
}

void sh_puthex(uint32_t v) {
    char buf[11] = "0x";
    for (int i = 0; i < 8; i++) buf[2 + i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
    buf[10] = 0;
    sh_puts(buf);
}

void sh_exit(int status) {
    /* SYS_EXIT_EXTENDED carries the status on 32-bit targets (semihosting 2.0). */
    uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status};
    sh_call(SYS_EXIT_EXTENDED, block);
    /* Fallback for hosts without it: application exit (0) or runtime error (1). */
    sh_call(SYS_EXIT, (const void *)(uintptr_t)(status == 0 ? ADP_STOPPED_APPLICATION_EXIT
                                                            : ADP_STOPPED_RUNTIME_ERROR_UNKNOWN));
    for (;;) {
    }
}
