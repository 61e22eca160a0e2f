/*
 * v2_test: the C ABI on zTensor format v2 files (tests/fixtures/v2):
 * zt_open (mapped and positional) and zt_open_mem read them; the component
 * info carries v2's fields (encoding id, shard, digest over decoded bytes);
 * zt_component_ptr is zero-copy for raw parts and refuses encoded ones;
 * parts in shard files are read from them; a missing shard fails the read
 * of its part, not the open.
 *
 *     v2_test FIXTURES_V2_DIR
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

static char dir[2048];

static const char *path(const char *rel) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", dir, rel);
    return buf;
}

static bool text_is(const char *p, size_t n, const char *want) {
    return p && n == strlen(want) && memcmp(p, want, n) == 0;
}

/* A raw f32 part: zero-copy, and the read gives the same bytes. */
static void raw_part(zt_file *f) {
    zt_file_info fi;
    CHECK_STATUS(zt_file_get_info(f, &fi), ZT_OK);
    CHECK(fi.version_major == 2);
    zt_object o;
    CHECK_STATUS(zt_find(f, "dtype.f32", ZT_NUL_TERMINATED, &o), ZT_OK);
    zt_component_info ci;
    CHECK_STATUS(zt_component(f, &o, "data", 4, &ci), ZT_OK);
    CHECK(ci.dtype == ZT_DTYPE_F32 && ci.encoding == ZT_ENCODING_RAW);
    CHECK(text_is(ci.encoding_id, ci.encoding_id_len, "raw"));
    CHECK(ci.digest_over_decoded && ci.digest_len == 5 + 16 && memcmp(ci.digest, "xxh3:", 5) == 0);
    CHECK(ci.shard == NULL && ci.shard_len == 0);
    CHECK(ci.offset % 4096 == 0 && ci.has_decoded_length && ci.decoded_length == ci.length);
    uint8_t buf[4096];
    size_t n = 0;
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, buf, sizeof buf, &n), ZT_OK);
    CHECK(n == ci.length);
    const uint8_t *p = NULL;
    size_t len = 0;
    if (fi.mode == ZT_MODE_POSITIONAL) {
        CHECK_STATUS(zt_component_ptr(f, &o, "data", 4, &p, &len), ZT_ERR_NOT_ZERO_COPY);
    } else {
        CHECK_STATUS(zt_component_ptr(f, &o, "data", 4, &p, &len), ZT_OK);
        CHECK(p && len == n && memcmp(p, buf, n) == 0);
    }
    CHECK_STATUS(zt_verify(f, 0), ZT_OK);
}

static void types_file(void) {
    for (int positional = 0; positional < 2; positional++) {
        zt_file *f = NULL;
        CHECK_STATUS(zt_open(path("valid/types_canonical.zt"), positional ? ZT_OPEN_POSITIONAL : 0, &f), ZT_OK);
        if (f)
            raw_part(f);
        zt_close(f);
    }
    size_t n = 0;
    uint8_t *bytes = read_file(path("valid/types_canonical.zt"), &n);
    CHECK(bytes && n > 0);
    zt_file *f = NULL;
    CHECK_STATUS(zt_open_mem(bytes, n, &f), ZT_OK);
    if (f)
        raw_part(f);
    zt_close(f);
    free(bytes);
}

/* zt.zstd-seekable/1: decoded by zt_component_read, never zero-copy. */
static void seekable_file(void) {
    zt_file *f = NULL;
    CHECK_STATUS(zt_open(path("valid/zstd_seekable.zt"), 0, &f), ZT_OK);
    if (!f)
        return;
    zt_object o;
    CHECK_STATUS(zt_find(f, "big", ZT_NUL_TERMINATED, &o), ZT_OK);
    zt_component_info ci;
    CHECK_STATUS(zt_component(f, &o, "data", 4, &ci), ZT_OK);
    CHECK(ci.encoding == ZT_ENCODING_ZSTD_SEEKABLE);
    CHECK(text_is(ci.encoding_id, ci.encoding_id_len, "zt.zstd-seekable/1"));
    CHECK(ci.has_decoded_length && ci.decoded_length == 640u * 1024u * 4u && ci.length < ci.decoded_length);
    const uint8_t *p = NULL;
    size_t len = 0;
    CHECK_STATUS(zt_component_ptr(f, &o, "data", 4, &p, &len), ZT_ERR_NOT_ZERO_COPY);
    size_t need = 0;
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, NULL, 0, &need), ZT_ERR_BUFFER_TOO_SMALL);
    CHECK(need == ci.decoded_length);
    uint8_t *buf = malloc(need);
    size_t n = 0;
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, buf, need, &n), ZT_OK);
    CHECK(n == need);
    free(buf);
    CHECK_STATUS(zt_verify(f, 0), ZT_OK);
    zt_close(f);
}

/* Parts in shard files beside the root; a missing shard fails its part's read only. */
static void sharded_files(void) {
    zt_file *f = NULL;
    CHECK_STATUS(zt_open(path("sharded/model.zt"), 0, &f), ZT_OK);
    if (f) {
        zt_object o;
        CHECK_STATUS(zt_find(f, "a", ZT_NUL_TERMINATED, &o), ZT_OK);
        zt_component_info ci;
        CHECK_STATUS(zt_component(f, &o, "data", 4, &ci), ZT_OK);
        CHECK(text_is(ci.shard, ci.shard_len, "00001-of-00002"));
        float v[4] = {0};
        size_t n = 0;
        CHECK_STATUS(zt_component_read(f, &o, "data", 4, v, sizeof v, &n), ZT_OK);
        CHECK(n == sizeof v);
        CHECK_STATUS(zt_verify(f, 0), ZT_OK);
        zt_close(f);
    }
    f = NULL;
    CHECK_STATUS(zt_open(path("sharded/missing.zt"), 0, &f), ZT_OK);
    if (f) {
        zt_object o;
        uint8_t b[64];
        size_t n = 0;
        CHECK_STATUS(zt_find(f, "d", ZT_NUL_TERMINATED, &o), ZT_OK);
        zt_status s = zt_component_read(f, &o, "data", 4, b, sizeof b, &n);
        CHECK(s != ZT_OK && strstr(zt_last_error(), "shard") != NULL);
        CHECK_STATUS(zt_find(f, "local", ZT_NUL_TERMINATED, &o), ZT_OK);
        CHECK_STATUS(zt_component_read(f, &o, "data", 4, b, sizeof b, &n), ZT_OK);
        zt_close(f);
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: v2_test FIXTURES_V2_DIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    types_file();
    seekable_file();
    sharded_files();
    printf("v2_test: %d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
