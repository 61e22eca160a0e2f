/*
 * range_test: zt_component_read_range on zTensor v2 files: byte ranges of a
 * zt.zstd-seekable/1 part (three 1 MiB frames, tests/fixtures/v2/valid/
 * zstd_seekable.zt) and of a raw part, through zt_open (mapped and
 * positional) and zt_open_mem: inside a frame, across frames, at the ends,
 * empty, past the end (ZT_ERR_INVALID_ARGUMENT); and, in a copy whose
 * first frame's checksum is broken, ranges in the other frames still read
 * (only covering frames are decoded) while one in the first fails
 * (ZT_ERR_CORRUPT_DATA, as zt_component_read says for a corrupt frame).
 *
 *     range_test FIXTURES_V2_DIR
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

#define FRAME (1024u * 1024u)
#define SIZE (640u * 1024u * 4u) /* "big": u32 elements i % 251 */

/* Byte `i` of "big"'s decoded bytes. */
static uint8_t want_byte(uint64_t i) {
    uint32_t v = (uint32_t)((i / 4) % 251);
    return (uint8_t)(v >> (8 * (i % 4)));
}

/* Read `big` bytes start..start+len and compare; returns the status. */
static zt_status range(zt_file *f, uint64_t start, size_t len) {
    zt_object o;
    CHECK_STATUS(zt_find(f, "big", ZT_NUL_TERMINATED, &o), ZT_OK);
    uint8_t *b = malloc(len ? len : 1);
    zt_status s = zt_component_read_range(f, &o, "data", 4, start, len ? b : NULL, len);
    if (s == ZT_OK) {
        bool same = true;
        for (size_t i = 0; i < len; i++)
            same = same && b[i] == want_byte(start + i);
        CHECK(same);
    }
    free(b);
    return s;
}

static void ranges(zt_file *f) {
    CHECK_STATUS(range(f, 100, 4000), ZT_OK);                /* inside frame 0 */
    CHECK_STATUS(range(f, FRAME + 12345, 64), ZT_OK);        /* inside frame 1 */
    CHECK_STATUS(range(f, FRAME - 8, 16), ZT_OK);            /* across frames 0 and 1 */
    CHECK_STATUS(range(f, FRAME - 1, FRAME + 2), ZT_OK);     /* across all three */
    CHECK_STATUS(range(f, 0, 8), ZT_OK);                     /* at the start */
    CHECK_STATUS(range(f, SIZE - 8, 8), ZT_OK);              /* at the end */
    CHECK_STATUS(range(f, SIZE, 0), ZT_OK);                  /* empty */
    CHECK_STATUS(range(f, SIZE - 4, 8), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "past the") != NULL);
    CHECK_STATUS(range(f, UINT64_MAX, 1), ZT_ERR_INVALID_ARGUMENT);
    /* A raw part's range is its bytes. */
    zt_object o;
    CHECK_STATUS(zt_find(f, "small", ZT_NUL_TERMINATED, &o), ZT_OK);
    char hello[10];
    CHECK_STATUS(zt_component_read_range(f, &o, "data", 4, 11, hello, 10), ZT_OK);
    CHECK(memcmp(hello, "hello zstd", 10) == 0);
    CHECK_STATUS(zt_find(f, "raw", ZT_NUL_TERMINATED, &o), ZT_OK);
    float all[8], two[2];
    size_t n = 0;
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, all, sizeof all, &n), ZT_OK);
    CHECK_STATUS(zt_component_read_range(f, &o, "data", 4, 12, two, sizeof two), ZT_OK);
    CHECK(memcmp(two, all + 3, sizeof two) == 0);
    CHECK_STATUS(zt_component_read_range(f, &o, "data", 4, 0, NULL, 4), ZT_ERR_INVALID_ARGUMENT);
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Break the checksum (last byte) of "big"'s first frame in a copy of the file. */
static void corrupt_first_frame(zt_file *f, uint8_t *bytes) {
    zt_object o;
    zt_component_info ci;
    CHECK_STATUS(zt_find(f, "big", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component(f, &o, "data", 4, &ci), ZT_OK);
    const uint8_t *end = bytes + ci.offset + ci.length;
    uint32_t frames = le32(end - 9);
    size_t stride = (end[-5] & 0x80) ? 12 : 8;
    CHECK(frames == 3);
    const uint8_t *entries = end - 9 - frames * stride;
    bytes[ci.offset + le32(entries) - 1] ^= 0xff;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: range_test FIXTURES_V2_DIR\n");
        return 2;
    }
    char p[4096];
    snprintf(p, sizeof p, "%s/valid/zstd_seekable.zt", argv[1]);
    for (uint32_t flags = 0; flags <= ZT_OPEN_POSITIONAL; flags++) {
        zt_file *f = NULL;
        CHECK_STATUS(zt_open(p, flags, &f), ZT_OK);
        if (f) {
            ranges(f);
            zt_close(f);
        }
    }
    size_t n = 0;
    uint8_t *bytes = read_file(p, &n);
    CHECK(bytes && n > 0);
    zt_file *f = NULL;
    CHECK_STATUS(zt_open_mem(bytes, n, &f), ZT_OK);
    if (f) {
        ranges(f);
        corrupt_first_frame(f, bytes);
        zt_close(f);
        f = NULL;
        CHECK_STATUS(zt_open_mem(bytes, n, &f), ZT_OK);
    }
    if (f) {
        CHECK_STATUS(range(f, FRAME + 5, 100), ZT_OK);           /* frame 1 only */
        CHECK_STATUS(range(f, 2 * FRAME, SIZE - 2 * FRAME), ZT_OK); /* frame 2 only */
        CHECK_STATUS(range(f, 10, 10), ZT_ERR_CORRUPT_DATA); /* frame 0 */
        CHECK(strstr(zt_last_error(), "frame checksum") != NULL);
        CHECK_STATUS(range(f, FRAME - 1, 2), ZT_ERR_CORRUPT_DATA); /* frames 0 and 1 */
        size_t all = 0;
        zt_object o;
        CHECK_STATUS(zt_find(f, "big", ZT_NUL_TERMINATED, &o), ZT_OK);
        uint8_t *whole = malloc(SIZE);
        CHECK_STATUS(zt_component_read(f, &o, "data", 4, whole, SIZE, &all), ZT_ERR_CORRUPT_DATA);
        free(whole);
        zt_close(f);
    }
    free(bytes);
    printf("range_test: %d checks, %d failed\n", checks, failures);
    return failures == 0 ? 0 : 1;
}
