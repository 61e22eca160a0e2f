/* Checks the memory routines this firmware links (memcpy, memset, memcmp,
 * strlen and the Arm EABI's __aeabi_mem*: libztensor.a's small ones, see
 * ffi/src/mem.rs) against plain loops: every alignment of source and
 * destination, lengths 0..40, guard bytes around each destination. */
#include <stddef.h>
#include <stdint.h>

#include "memcheck.h"

void __aeabi_memcpy(void *, const void *, size_t);
void __aeabi_memcpy4(void *, const void *, size_t);
void __aeabi_memset(void *, size_t, int);
void __aeabi_memclr(void *, size_t);
void __aeabi_memclr4(void *, size_t);
void *memcpy(void *, const void *, size_t);
void *memset(void *, int, size_t);
int memcmp(const void *, const void *, size_t);
size_t strlen(const char *);

/* Called through volatile pointers: the compiler may not replace them. */
static void *(*volatile do_memcpy)(void *, const void *, size_t) = memcpy;
static void (*volatile do_aeabi_memcpy)(void *, const void *, size_t) = __aeabi_memcpy;
static void (*volatile do_aeabi_memcpy4)(void *, const void *, size_t) = __aeabi_memcpy4;
static void *(*volatile do_memset)(void *, int, size_t) = memset;
static void (*volatile do_aeabi_memset)(void *, size_t, int) = __aeabi_memset;
static void (*volatile do_aeabi_memclr)(void *, size_t) = __aeabi_memclr;
static void (*volatile do_aeabi_memclr4)(void *, size_t) = __aeabi_memclr4;
static int (*volatile do_memcmp)(const void *, const void *, size_t) = memcmp;
static size_t (*volatile do_strlen)(const char *) = strlen;

#define N 48
static uint8_t src[N] __attribute__((aligned(8)));
static uint8_t dst[N] __attribute__((aligned(8)));
static uint8_t want[N];

static void fill(uint8_t *p, uint8_t seed) {
    for (size_t i = 0; i < N; i++) p[i] = (uint8_t)(seed + 37 * i);
}

static int differs(void) {
    for (size_t i = 0; i < N; i++)
        if (dst[i] != want[i]) return 1;
    return 0;
}

int mem_check(void) {
    int bad = 0;
    fill(src, 1);
    for (size_t so = 0; so < 4; so++)
        for (size_t d = 0; d < 4; d++)
            for (size_t n = 0; n + d + 4 <= N && n + so <= N && n <= 40; n++) {
                for (int which = 0; which < 3; which++) {
                    if (which == 2 && ((so | d | n) & 3)) continue; /* __aeabi_memcpy4: aligned only */
                    fill(dst, 200);
                    fill(want, 200);
                    for (size_t i = 0; i < n; i++) want[d + i] = src[so + i];
                    if (which == 0) {
                        if (do_memcpy(dst + d, src + so, n) != dst + d) bad++;
                    } else if (which == 1) {
                        do_aeabi_memcpy(dst + d, src + so, n);
                    } else {
                        do_aeabi_memcpy4(dst + d, src + so, n);
                    }
                    bad += differs();
                }
                for (int which = 0; which < 4; which++) {
                    if (which == 3 && ((d | n) & 3)) continue; /* __aeabi_memclr4: aligned only */
                    int c = which == 0 ? 0x3A4 : which == 1 ? 0xFE : 0; /* memset takes the low byte */
                    fill(dst, 9);
                    fill(want, 9);
                    for (size_t i = 0; i < n; i++) want[d + i] = (uint8_t)c;
                    if (which == 0) {
                        if (do_memset(dst + d, c, n) != dst + d) bad++;
                    } else if (which == 1) {
                        do_aeabi_memset(dst + d, n, c);
                    } else if (which == 2) {
                        do_aeabi_memclr(dst + d, n);
                    } else {
                        do_aeabi_memclr4(dst + d, n);
                    }
                    bad += differs();
                }
            }
    /* memcmp: the sign of the first differing bytes (as unsigned), or 0. */
    for (size_t n = 0; n < 20; n++) {
        fill(dst, 1);
        if (do_memcmp(src, dst, n) != 0) bad++;
        for (size_t i = 0; i < n; i++) {
            dst[i] = (uint8_t)(src[i] + 1);
            if (do_memcmp(src, dst, n) >= 0) bad++;
            if (do_memcmp(dst, src, n) <= 0) bad++;
            dst[i] = (uint8_t)(src[i] ^ 0x80);
            int r = do_memcmp(src, dst, n);
            if ((src[i] < dst[i]) != (r < 0) || r == 0) bad++;
            dst[i] = src[i];
            if (i + 1 < n) {
                dst[n - 1] = (uint8_t)(src[n - 1] - 1);
                if (do_memcmp(src, dst, i + 1) != 0) bad++;
                dst[n - 1] = src[n - 1];
            }
        }
    }
    /* strlen */
    for (size_t n = 0; n < 20; n++) {
        for (size_t i = 0; i < N; i++) dst[i] = (uint8_t)('a' + i % 26);
        dst[n] = 0;
        if (do_strlen((const char *)dst) != n) bad++;
    }
    return bad;
}
