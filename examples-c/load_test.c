/*
 * load_test: zt_load (issue #33) on whole models. For each file given, on
 * a mapped, a positional and an in-memory handle: every component of every
 * object is loaded with 2 threads, and each request's status and bytes are
 * zt_component_read's; zt_load's own status is the first failed request's.
 * Then, in a copy of CORRUPT whose part "raw" has a byte flipped, that
 * request fails (ZT_ERR_DIGEST_MISMATCH) and the others load.
 *
 *     load_test CORRUPT MODEL...
 *
 * Prints one line per failed check and a summary; exits 0 when all pass.
 */
#include <ztensor.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Every component of every object of `f`: requests into fresh buffers,
 * with zt_component_read's status and bytes for each beside them. */
typedef struct {
    size_t n;
    zt_load_request *reqs;
    zt_status *want_status;
    uint8_t **want;
} all_parts;

static all_parts parts_of(zt_file *f) {
    all_parts a = {0, NULL, NULL, NULL};
    size_t objects = zt_object_count(f), cap = 0;
    for (size_t i = 0; i < objects; i++) {
        zt_object o;
        zt_object_info oi;
        CHECK_STATUS(zt_object_at(f, i, &o), ZT_OK);
        CHECK_STATUS(zt_object_get_info(f, &o, &oi), ZT_OK);
        for (size_t j = 0; j < oi.component_count; j++) {
            zt_component_info ci;
            CHECK_STATUS(zt_component_at(f, &o, j, &ci), ZT_OK);
            if (a.n == cap) {
                cap = cap ? 2 * cap : 16;
                a.reqs = realloc(a.reqs, cap * sizeof *a.reqs);
                a.want_status = realloc(a.want_status, cap * sizeof *a.want_status);
                a.want = realloc(a.want, cap * sizeof *a.want);
            }
            size_t need = 0, got = 0;
            zt_component_read(f, &o, ci.role, ci.role_len, NULL, 0, &need);
            uint8_t *want = malloc(need ? need : 1);
            a.want_status[a.n] = zt_component_read(f, &o, ci.role, ci.role_len, want, need, &got);
            a.want[a.n] = want;
            zt_load_request r = {o, ci.role, ci.role_len, malloc(need ? need : 1), need, ZT_ERR_PANIC};
            a.reqs[a.n++] = r;
        }
    }
    return a;
}

static void free_parts(all_parts *a) {
    for (size_t i = 0; i < a->n; i++) {
        free(a->want[i]);
        free(a->reqs[i].dst);
    }
    free(a->reqs);
    free(a->want_status);
    free(a->want);
}

/* Load every part of `f` on `threads` threads and compare with zt_component_read. */
static void load_all(zt_file *f, const char *what, unsigned threads) {
    all_parts a = parts_of(f);
    zt_status s = zt_load(f, a.reqs, a.n, threads, 0);
    zt_status first = ZT_OK;
    for (size_t i = 0; i < a.n; i++) {
        if (first == ZT_OK)
            first = a.want_status[i];
        CHECK(a.reqs[i].status == a.want_status[i]);
        if (a.reqs[i].status == ZT_OK && a.want_status[i] == ZT_OK)
            CHECK(memcmp(a.reqs[i].dst, a.want[i], a.reqs[i].dst_len) == 0);
        if (a.reqs[i].status != a.want_status[i])
            fprintf(stderr, "%s: part %zu: zt_load %d, zt_component_read %d\n", what, i, (int)a.reqs[i].status,
                    (int)a.want_status[i]);
    }
    CHECK(s == first);
    free_parts(&a);
}

static void every_part(const char *path) {
    zt_file *f;
    CHECK_STATUS(zt_open(path, 0, &f), ZT_OK);
    load_all(f, path, 2);
    load_all(f, path, 1);
    zt_close(f);
    CHECK_STATUS(zt_open(path, ZT_OPEN_POSITIONAL, &f), ZT_OK);
    load_all(f, path, 2);
    zt_close(f);
    size_t len = 0;
    uint8_t *bytes = read_file(path, &len);
    CHECK(bytes && len > 0);
    CHECK_STATUS(zt_open_mem(bytes, len, &f), ZT_OK);
    load_all(f, path, 2);
    zt_close(f);
    free(bytes);
}

static void corrupt_part(const char *path) {
    size_t len = 0;
    uint8_t *bytes = read_file(path, &len);
    zt_file *f;
    CHECK_STATUS(zt_open_mem(bytes, len, &f), ZT_OK);
    zt_object o;
    zt_component_info ci;
    CHECK_STATUS(zt_find(f, "raw", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component(f, &o, "data", ZT_NUL_TERMINATED, &ci), ZT_OK);
    CHECK(ci.digest_len > 0 && ci.length > 0);
    zt_close(f);
    bytes[ci.offset + ci.length / 2] ^= 1;
    CHECK_STATUS(zt_open_mem(bytes, len, &f), ZT_OK);
    all_parts a = parts_of(f);
    CHECK_STATUS(zt_load(f, a.reqs, a.n, 2, 0), ZT_ERR_DIGEST_MISMATCH);
    CHECK(strstr(zt_last_error(), "\"raw\"") != NULL);
    size_t failed = 0;
    for (size_t i = 0; i < a.n; i++) {
        if (a.reqs[i].object.index == o.index) {
            CHECK(a.reqs[i].status == ZT_ERR_DIGEST_MISMATCH);
            failed++;
        } else {
            CHECK(a.reqs[i].status == ZT_OK);
            CHECK(memcmp(a.reqs[i].dst, a.want[i], a.reqs[i].dst_len) == 0);
        }
    }
    CHECK(failed == 1 && a.n > 1);
    /* Without verification, it loads. */
    CHECK_STATUS(zt_load(f, a.reqs, a.n, 2, ZT_LOAD_NO_VERIFY), ZT_OK);
    free_parts(&a);
    zt_close(f);
    free(bytes);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: load_test CORRUPT MODEL...\n");
        return 2;
    }
    corrupt_part(argv[1]);
    for (int i = 2; i < argc; i++)
        every_part(argv[i]);
    printf("load_test: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
