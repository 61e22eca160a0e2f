/*
 * check.h: the counting CHECK macros of the C test programs (api_test,
 * audit_test, ...) and their small helpers. Include once per program, after
 * <ztensor.h> and <stdio.h>.
 */
#ifndef ZT_EXAMPLES_CHECK_H
#define ZT_EXAMPLES_CHECK_H

static int checks, failures;

#define CHECK(cond)                                                                                 \
    do {                                                                                            \
        checks++;                                                                                   \
        if (!(cond)) {                                                                              \
            failures++;                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
                    zt_last_error());                                                               \
        }                                                                                           \
    } while (0)

#define CHECK_STATUS(call, expected)                                                                  \
    do {                                                                                              \
        zt_status s_ = (call);                                                                        \
        checks++;                                                                                     \
        if (s_ != (expected)) {                                                                       \
            failures++;                                                                               \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %s (last error: %s)\n", __FILE__, \
                    __LINE__, #call, (int)s_, zt_status_str(s_), #expected, zt_last_error());        \
        }                                                                                             \
    } while (0)

/* The whole file at `path`, in a malloc'd buffer of *n bytes (at least 1
 * allocated); NULL with *n = 0 when it cannot be opened or read. Needs
 * <stdint.h> and <stdlib.h>. */
static inline uint8_t *read_file(const char *path, size_t *n) {
    *n = 0;
    FILE *in = fopen(path, "rb");
    if (!in)
        return NULL;
    fseek(in, 0, SEEK_END);
    long len = ftell(in);
    fseek(in, 0, SEEK_SET);
    uint8_t *p = len >= 0 ? malloc(len > 0 ? (size_t)len : 1) : NULL;
    if (p && fread(p, 1, (size_t)len, in) != (size_t)len) {
        free(p);
        p = NULL;
    }
    fclose(in);
    if (p)
        *n = (size_t)len;
    return p;
}

/* A v1.2 writer (for readers of the 1.x generation): zt_writer_create
 * writes format v2. For the tests of v1.2 behaviour (per-object zstd and
 * digests, quantized_group, objects in any order). */
static inline zt_status create_v1_2_digest(const char *path, uint32_t digest, zt_writer **w) {
    zt_writer_options o;
    zt_status s = zt_writer_options_init(&o);
    if (s != ZT_OK)
        return s;
    o.format_version = ZT_FORMAT_VERSION_1_2;
    o.digest = digest;
    return zt_writer_create_with_options(path, &o, w);
}

static inline zt_status create_v1_2(const char *path, zt_writer **w) {
    return create_v1_2_digest(path, ZT_WRITER_DIGEST_DEFAULT, w);
}

/* A v1.2 writer whose objects carry no digest unless they ask for one
 * (v1.2's default is crc32c): for tests about data rules or digest-less parts. */
static inline zt_status create_v1_2_plain(const char *path, zt_writer **w) {
    return create_v1_2_digest(path, ZT_WRITER_DIGEST_NONE, w);
}

#endif
