/*
 * bench_find: time zt_open + zt_find of every object of a many-object file.
 *
 *     bench_find [--objects N] [--iters K] [--regenerate] FILE
 *
 * Writes FILE first when it does not exist (or with --regenerate): a v1.2
 * file of N dense f32[4] objects named "layers.<i>.weight", assembled by
 * hand here (header, 64-aligned blobs, CBOR manifest, footer). Then, K
 * times: open the file (mmap), look every object up by name in a fixed
 * shuffled order, close it. Prints one line:
 *
 *     RESULT lang=c clock=cpu objects=N iters=K min_ns=... median_ns=... open_min_ns=...
 *            find_min_ns=... per_find_ns=...
 *
 * (min_ns and median_ns: open + every find + close; open_min_ns: zt_open
 * alone; find_min_ns: the lookups alone; each the best of K. Times are the
 * thread's CPU time, or wall-clock time with ZT_BENCH_WALL=1.)
 *
 * ffi/examples/bench_find.rs does the same work through the Rust API;
 * scripts/bench-ffi.sh runs both and prints the ratio.
 */
#define _POSIX_C_SOURCE 200809L
#include <ztensor.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- a tiny CBOR writer --------------------------------------------- */

typedef struct {
    uint8_t *p;
    size_t len, cap;
} buf;

static void put(buf *b, const void *data, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n) cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            fprintf(stderr, "bench_find: out of memory\n");
            exit(1);
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

static void cb_head(buf *b, int major, uint64_t n) {
    uint8_t h[9];
    size_t k;
    if (n < 24) {
        h[0] = (uint8_t)(major << 5 | n);
        k = 1;
    } else if (n <= 0xff) {
        h[0] = (uint8_t)(major << 5 | 24);
        h[1] = (uint8_t)n;
        k = 2;
    } else if (n <= 0xffff) {
        h[0] = (uint8_t)(major << 5 | 25);
        h[1] = (uint8_t)(n >> 8);
        h[2] = (uint8_t)n;
        k = 3;
    } else if (n <= 0xffffffffu) {
        h[0] = (uint8_t)(major << 5 | 26);
        for (int i = 0; i < 4; i++) h[1 + i] = (uint8_t)(n >> (24 - 8 * i));
        k = 5;
    } else {
        h[0] = (uint8_t)(major << 5 | 27);
        for (int i = 0; i < 8; i++) h[1 + i] = (uint8_t)(n >> (56 - 8 * i));
        k = 9;
    }
    put(b, h, k);
}

static void cb_text(buf *b, const char *s) {
    size_t n = strlen(s);
    cb_head(b, 3, n);
    put(b, s, n);
}

static void le64(uint8_t *out, uint64_t v) {
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (8 * i));
}

static void object_name(char *out, size_t cap, size_t i) { snprintf(out, cap, "layers.%zu.weight", i); }

/* Write a v1.2 file of `n` dense f32[4] objects. */
static int generate(const char *path, size_t n) {
    buf file = {0}, m = {0};
    static const uint8_t zeros[64];
    put(&file, "ZTEN1000", 8);
    put(&file, zeros, 56);
    cb_head(&m, 5, 2);
    cb_text(&m, "version");
    cb_text(&m, "1.2.0");
    cb_text(&m, "objects");
    cb_head(&m, 5, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t off = file.len;
        float v[4] = {(float)i, 1.0f, 2.0f, 3.0f};
        put(&file, v, 16);
        if (i + 1 < n)
            put(&file, zeros, 48);
        char name[64];
        object_name(name, sizeof name, i);
        cb_text(&m, name);
        cb_head(&m, 5, 3);
        cb_text(&m, "shape");
        cb_head(&m, 4, 1);
        cb_head(&m, 0, 4);
        cb_text(&m, "format");
        cb_text(&m, "dense");
        cb_text(&m, "components");
        cb_head(&m, 5, 1);
        cb_text(&m, "data");
        cb_head(&m, 5, 3);
        cb_text(&m, "dtype");
        cb_text(&m, "f32");
        cb_text(&m, "offset");
        cb_head(&m, 0, off);
        cb_text(&m, "length");
        cb_head(&m, 0, 16);
    }
    put(&file, m.p, m.len);
    uint8_t size[8];
    le64(size, m.len);
    put(&file, size, 8);
    put(&file, "ZTEN1000", 8);

    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "wb");
    int ok = out && fwrite(file.p, 1, file.len, out) == file.len;
    if (out && fclose(out) != 0)
        ok = 0;
    if (ok && rename(tmp, path) != 0)
        ok = 0;
    if (!ok)
        perror(path);
    free(file.p);
    free(m.p);
    return ok ? 0 : -1;
}

/* ---- timing ----------------------------------------------------------- */

/* CPU time of this thread: on a shared machine, wall-clock time mostly
 * measures the neighbours. ZT_BENCH_WALL=1 measures wall-clock time. */
static clockid_t bench_clock = CLOCK_THREAD_CPUTIME_ID;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(bench_clock, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    size_t n = 100000, iters = 10;
    int regenerate = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--objects") == 0 && i + 1 < argc)
            n = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc)
            iters = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--regenerate") == 0)
            regenerate = 1;
        else if (!path)
            path = argv[i];
        else
            path = NULL, i = argc;
    }
    if (getenv("ZT_BENCH_WALL") && strcmp(getenv("ZT_BENCH_WALL"), "1") == 0)
        bench_clock = CLOCK_MONOTONIC;
    if (!path || n == 0 || iters == 0) {
        fprintf(stderr, "usage: bench_find [--objects N] [--iters K] [--regenerate] FILE\n");
        return 2;
    }

    /* Regenerate when asked, when absent, or when it holds another count. */
    zt_file *f = NULL;
    if (!regenerate && access(path, F_OK) == 0) {
        if (zt_open(path, 0, &f) != ZT_OK || zt_object_count(f) != n)
            regenerate = 1;
        zt_close(f);
    } else {
        regenerate = 1;
    }
    if (regenerate && generate(path, n) != 0)
        return 1;

    /* Names, and a fixed shuffled order (same as the Rust bench). */
    char **names = malloc(n * sizeof *names);
    size_t *lens = malloc(n * sizeof *lens);
    uint64_t *times = malloc(iters * sizeof *times);
    if (!names || !lens || !times) {
        fprintf(stderr, "bench_find: out of memory\n");
        return 1;
    }
    size_t stride = n % 7919 == 0 ? 1 : 7919;
    for (size_t j = 0; j < n; j++) {
        size_t i = (j * stride + 13) % n;
        char name[64];
        object_name(name, sizeof name, i);
        lens[j] = strlen(name);
        names[j] = malloc(lens[j] + 1);
        if (!names[j]) {
            fprintf(stderr, "bench_find: out of memory\n");
            return 1;
        }
        memcpy(names[j], name, lens[j] + 1);
    }

    uint64_t *open_times = malloc(iters * sizeof *open_times), *find_times = malloc(iters * sizeof *find_times);
    if (!open_times || !find_times) {
        fprintf(stderr, "bench_find: out of memory\n");
        return 1;
    }
    uint64_t check = 0;
    int status = 0;
    for (size_t k = 0; k < iters && status == 0; k++) {
        uint64_t t0 = now_ns();
        zt_status s = zt_open(path, 0, &f);
        if (s != ZT_OK) {
            fprintf(stderr, "bench_find: %s: %s\n", path, zt_last_error());
            status = 1;
            break;
        }
        uint64_t t1 = now_ns();
        for (size_t j = 0; j < n; j++) {
            zt_object o;
            if (zt_find(f, names[j], lens[j], &o) != ZT_OK) {
                fprintf(stderr, "bench_find: %s: %s\n", names[j], zt_last_error());
                status = 1;
                break;
            }
            check += o.index;
        }
        uint64_t t2 = now_ns();
        zt_close(f);
        times[k] = now_ns() - t0;
        open_times[k] = t1 - t0;
        find_times[k] = t2 - t1;
    }
    if (status == 0) {
        qsort(times, iters, sizeof *times, cmp_u64);
        qsort(open_times, iters, sizeof *open_times, cmp_u64);
        qsort(find_times, iters, sizeof *find_times, cmp_u64);
        uint64_t expect = (uint64_t)iters * ((uint64_t)n * (n - 1) / 2);
        if (check != expect) {
            fprintf(stderr, "bench_find: wrong objects found\n");
            status = 1;
        } else {
            printf("RESULT lang=c clock=%s objects=%zu iters=%zu min_ns=%" PRIu64 " median_ns=%" PRIu64 " open_min_ns=%" PRIu64
                   " find_min_ns=%" PRIu64 " per_find_ns=%.1f\n",
                   bench_clock == CLOCK_MONOTONIC ? "wall" : "cpu", n, iters, times[0], times[iters / 2], open_times[0], find_times[0],
                   (double)find_times[0] / (double)n);
        }
    }
    free(open_times);
    free(find_times);
    for (size_t j = 0; j < n; j++) free(names[j]);
    free(names);
    free(lens);
    free(times);
    return status;
}
