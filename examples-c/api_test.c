/*
 * api_test: the whole C API, from C.
 *
 *     api_test FIXTURES_DIR SAMPLES_DIR
 *
 * FIXTURES_DIR is tests/fixtures (files written by the reference
 * implementation), SAMPLES_DIR is examples-c/samples. Covers every entry
 * point: NULL arguments, out-of-range indices, small buffers, every
 * accessor, the three ways of opening, hostile files, and use from several
 * threads at once. Prints one line per failed check and a summary;
 * exits 0 when every check passes.
 */
#define _POSIX_C_SOURCE 200809L
#include <ztensor.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static char fixtures[2048], samples[2048];

static const char *fixture(const char *rel) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", fixtures, rel);
    return buf;
}

static const char *sample(const char *rel) {
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", samples, rel);
    return buf;
}

static zt_file *open_ok(const char *path, uint32_t flags) {
    zt_file *f = NULL;
    CHECK_STATUS(zt_open(path, flags, &f), ZT_OK);
    if (!f) {
        fprintf(stderr, "cannot continue without %s\n", path);
        exit(1);
    }
    return f;
}

static int str_eq(const char *p, size_t n, const char *want) {
    return p && n == strlen(want) && memcmp(p, want, n) == 0;
}

/* Read a whole file into 64-byte-aligned memory. */
static uint8_t *slurp(const char *path, size_t *len) {
    FILE *in = fopen(path, "rb");
    if (!in)
        return NULL;
    fseek(in, 0, SEEK_END);
    long n = ftell(in);
    fseek(in, 0, SEEK_SET);
    uint8_t *p = NULL;
    if (n >= 0 && posix_memalign((void **)&p, 64, (size_t)n + 1) == 0 && fread(p, 1, (size_t)n, in) == (size_t)n) {
        *len = (size_t)n;
    } else {
        free(p);
        p = NULL;
    }
    fclose(in);
    return p;
}

/* ---------------------------------------------------------------- tests */

static void test_library(void) {
    char want[64];
    snprintf(want, sizeof want, "%d.%d.%d", ZT_VERSION_MAJOR, ZT_VERSION_MINOR, ZT_VERSION_PATCH);
    CHECK(strcmp(zt_version(), want) == 0);
    CHECK(strcmp(zt_status_str(ZT_OK), "ok") == 0);
    for (int s = ZT_OK; s <= ZT_ERR_PANIC; s++) {
        CHECK(zt_status_str(s) != NULL);
        CHECK(strcmp(zt_status_str(s), "unknown status") != 0);
    }
    CHECK(strcmp(zt_status_str(-1), "unknown status") == 0);
    CHECK(strcmp(zt_status_str(ZT_ERR_PANIC + 1), "unknown status") == 0);
    CHECK(strcmp(zt_status_str(INT32_MIN), "unknown status") == 0);

    static const struct {
        uint32_t d;
        const char *name;
        size_t size;
    } dtypes[] = {{ZT_DTYPE_F64, "f64", 8}, {ZT_DTYPE_F32, "f32", 4}, {ZT_DTYPE_F16, "f16", 2},
                  {ZT_DTYPE_BF16, "bf16", 2}, {ZT_DTYPE_I64, "i64", 8}, {ZT_DTYPE_I32, "i32", 4},
                  {ZT_DTYPE_I16, "i16", 2}, {ZT_DTYPE_I8, "i8", 1}, {ZT_DTYPE_U64, "u64", 8},
                  {ZT_DTYPE_U32, "u32", 4}, {ZT_DTYPE_U16, "u16", 2}, {ZT_DTYPE_U8, "u8", 1},
                  {ZT_DTYPE_BOOL, "bool", 1}};
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
        CHECK(strcmp(zt_dtype_name(dtypes[i].d), dtypes[i].name) == 0);
        CHECK(zt_dtype_size(dtypes[i].d) == dtypes[i].size);
    }
    CHECK(zt_dtype_name(13) == NULL);
    CHECK(zt_dtype_name(UINT32_MAX) == NULL);
    CHECK(zt_dtype_size(13) == 0);
    CHECK(ZT_NUL_TERMINATED == SIZE_MAX);
}

/* Every entry point refuses NULL (and garbage) arguments without crashing. */
static void test_null_arguments(void) {
    zt_file *f = open_ok(fixture("v1.2/dense_all_dtypes.zt"), 0);
    zt_object o = {0};
    zt_object bogus = {(size_t)-1};
    zt_file_info fi;
    zt_object_info oi;
    zt_component_info ci;
    zt_attribute a;
    const char *p;
    const uint8_t *bp;
    size_t n;
    uint64_t dims[4];
    char buf[64];

    zt_file *out = (zt_file *)0x1;
    CHECK_STATUS(zt_open(NULL, 0, &out), ZT_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK(strstr(zt_last_error(), "path") != NULL);
    CHECK_STATUS(zt_open(fixture("v1.2/empty.zt"), 0, NULL), ZT_ERR_INVALID_ARGUMENT);
    out = (zt_file *)0x1;
    CHECK_STATUS(zt_open(fixture("v1.2/empty.zt"), 0x80, &out), ZT_ERR_INVALID_ARGUMENT);
    CHECK(out == NULL);
    CHECK(strstr(zt_last_error(), "flag") != NULL);
    CHECK_STATUS(zt_open_mem(NULL, 10, &out), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_open_mem((const uint8_t *)"x", 1, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_open_mem((const uint8_t *)"x", SIZE_MAX, &out), ZT_ERR_INVALID_ARGUMENT);
    zt_close(NULL);

    CHECK_STATUS(zt_file_get_info(NULL, &fi), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_file_get_info(f, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK(zt_object_count(NULL) == 0);

    CHECK_STATUS(zt_object_at(NULL, 0, &o), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_at(f, 0, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_at(f, 13, &o), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_at(f, SIZE_MAX, &o), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_at(f, 12, &o), ZT_OK);

    CHECK_STATUS(zt_find(NULL, "dense_f32", ZT_NUL_TERMINATED, &o), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_find(f, NULL, 3, &o), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_find(f, NULL, ZT_NUL_TERMINATED, &o), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_find(f, "dense_f32", ZT_NUL_TERMINATED, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_find(f, NULL, 0, &o), ZT_ERR_NOT_FOUND); /* the empty name: absent here */

    CHECK_STATUS(zt_object_name(NULL, &o, &p, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_name(f, NULL, &p, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_name(f, &o, NULL, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_name(f, &o, &p, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_name(f, &bogus, &p, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_format(NULL, &o, &p, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_format(f, NULL, &p, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_format(f, &o, NULL, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_format(f, &bogus, &p, &n), ZT_ERR_INVALID_ARGUMENT);

    memset(&oi, 0xab, sizeof oi);
    CHECK_STATUS(zt_object_get_info(f, &bogus, &oi), ZT_ERR_INVALID_ARGUMENT);
    CHECK(oi.name == NULL && oi.name_len == 0 && oi.ndim == 0); /* zeroed on failure */
    CHECK_STATUS(zt_object_get_info(NULL, &o, &oi), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_get_info(f, NULL, &oi), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_get_info(f, &o, NULL), ZT_ERR_INVALID_ARGUMENT);

    CHECK_STATUS(zt_object_shape(NULL, &o, dims, 4, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_shape(f, NULL, dims, 4, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_shape(f, &o, NULL, 4, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_object_shape(f, &o, dims, 4, NULL), ZT_OK); /* ndim is optional */

    CHECK_STATUS(zt_attribute_count(NULL, NULL, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_attribute_count(f, NULL, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_attribute_count(f, &bogus, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_attribute_at(NULL, NULL, 0, &a), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_attribute_at(f, NULL, 0, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_attribute_at(f, NULL, 0, &a), ZT_ERR_INVALID_ARGUMENT); /* no attributes */
    CHECK_STATUS(zt_attribute_find(NULL, NULL, "k", 1, &a), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_attribute_find(f, NULL, NULL, 1, &a), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_attribute_find(f, NULL, "k", 1, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_attribute_find(f, NULL, "k", 1, &a), ZT_ERR_NOT_FOUND);

    CHECK_STATUS(zt_component(NULL, &o, "data", 4, &ci), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component(f, NULL, "data", 4, &ci), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component(f, &o, NULL, 4, &ci), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component(f, &o, "data", 4, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component(f, &bogus, "data", 4, &ci), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_at(NULL, &o, 0, &ci), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_at(f, NULL, 0, &ci), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_at(f, &o, 0, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_at(f, &o, 1, &ci), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_at(f, &o, SIZE_MAX, &ci), ZT_ERR_INVALID_ARGUMENT);

    CHECK_STATUS(zt_component_ptr(NULL, &o, "data", 4, &bp, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_ptr(f, NULL, "data", 4, &bp, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_ptr(f, &o, NULL, 4, &bp, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_ptr(f, &o, "data", 4, NULL, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_ptr(f, &o, "data", 4, &bp, NULL), ZT_ERR_INVALID_ARGUMENT);

    CHECK_STATUS(zt_component_read(NULL, &o, "data", 4, buf, sizeof buf, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_read(f, NULL, "data", 4, buf, sizeof buf, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_read(f, &o, NULL, 4, buf, sizeof buf, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, NULL, sizeof buf, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, buf, sizeof buf, NULL), ZT_ERR_INVALID_ARGUMENT);

    CHECK_STATUS(zt_verify(NULL, 0), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_verify(f, 0x100), ZT_ERR_INVALID_ARGUMENT);
    zt_close(f);
}

/* One file, every accessor, checked against what the reference wrote. */
static void test_dense_all_dtypes(uint32_t flags) {
    zt_file *f = open_ok(fixture("v1.2/dense_all_dtypes.zt"), flags);
    zt_file_info fi;
    CHECK_STATUS(zt_file_get_info(f, &fi), ZT_OK);
    CHECK(fi.version_major == 1 && fi.version_minor == 2 && fi.version_patch == 0);
    CHECK(fi.mode == (flags & ZT_OPEN_POSITIONAL ? ZT_MODE_POSITIONAL : ZT_MODE_MMAP));
    CHECK(fi.object_count == 13 && zt_object_count(f) == 13);
    CHECK(fi.attribute_count == 0);
    CHECK(fi.file_length == 1967 && fi.manifest_offset == 902 && fi.manifest_length == 1049);

    /* Objects come in manifest order (sorted by name by the reference writer). */
    zt_object o;
    const char *p;
    size_t n;
    CHECK_STATUS(zt_object_at(f, 0, &o), ZT_OK);
    CHECK(o.index == 0);
    CHECK_STATUS(zt_object_name(f, &o, &p, &n), ZT_OK);
    CHECK(str_eq(p, n, "dense_bf16"));

    /* Lookup by name, NUL-terminated and with a length. */
    CHECK_STATUS(zt_find(f, "dense_f32", ZT_NUL_TERMINATED, &o), ZT_OK);
    zt_object o2;
    CHECK_STATUS(zt_find(f, "dense_f32xyz", 9, &o2), ZT_OK);
    CHECK(o2.index == o.index);
    CHECK_STATUS(zt_find(f, "dense_f3", ZT_NUL_TERMINATED, &o2), ZT_ERR_NOT_FOUND);
    CHECK(strstr(zt_last_error(), "dense_f3") != NULL);
    CHECK_STATUS(zt_find(f, "\xff\xfe", 2, &o2), ZT_ERR_NOT_FOUND); /* not UTF-8 */

    zt_object_info oi;
    CHECK_STATUS(zt_object_get_info(f, &o, &oi), ZT_OK);
    CHECK(str_eq(oi.name, oi.name_len, "dense_f32"));
    CHECK(str_eq(oi.format, oi.format_len, "dense"));
    CHECK(oi.format_kind == ZT_FORMAT_DENSE);
    CHECK(oi.ndim == 2 && oi.numel == 8 && oi.component_count == 1 && oi.attribute_count == 0);
    CHECK_STATUS(zt_object_format(f, &o, &p, &n), ZT_OK);
    CHECK(str_eq(p, n, "dense"));

    /* Shape: ask, too small, exact. */
    uint64_t dims[3] = {99, 99, 99};
    size_t ndim = 0;
    CHECK_STATUS(zt_object_shape(f, &o, NULL, 0, &ndim), ZT_ERR_BUFFER_TOO_SMALL);
    CHECK(ndim == 2);
    CHECK_STATUS(zt_object_shape(f, &o, dims, 1, &ndim), ZT_ERR_BUFFER_TOO_SMALL);
    CHECK(dims[0] == 99);
    CHECK_STATUS(zt_object_shape(f, &o, dims, 3, &ndim), ZT_OK);
    CHECK(ndim == 2 && dims[0] == 2 && dims[1] == 4 && dims[2] == 99);

    /* Component description. */
    zt_component_info ci;
    CHECK_STATUS(zt_component(f, &o, "data", ZT_NUL_TERMINATED, &ci), ZT_OK);
    CHECK(str_eq(ci.role, ci.role_len, "data"));
    CHECK(ci.dtype == ZT_DTYPE_F32 && ci.encoding == ZT_ENCODING_RAW);
    CHECK(ci.logical_type == NULL && ci.logical_type_len == 0);
    CHECK(ci.digest == NULL && ci.digest_len == 0);
    CHECK(ci.length == 32 && ci.has_decoded_length && ci.decoded_length == 32);
    CHECK(!ci.has_uncompressed_length && !ci.big_endian);
    CHECK(ci.offset % 64 == 0);
    zt_component_info ci2;
    CHECK_STATUS(zt_component_at(f, &o, 0, &ci2), ZT_OK);
    CHECK(ci2.offset == ci.offset && ci2.role == ci.role);
    memset(&ci2, 0xab, sizeof ci2);
    CHECK_STATUS(zt_component(f, &o, "values", ZT_NUL_TERMINATED, &ci2), ZT_ERR_NOT_FOUND);
    CHECK(ci2.role == NULL && ci2.length == 0); /* zeroed on failure */
    CHECK(strstr(zt_last_error(), "values") != NULL);
    CHECK_STATUS(zt_component(f, &o, "dat", 3, &ci2), ZT_ERR_NOT_FOUND);
    CHECK_STATUS(zt_component(f, &o, "data\0", 5, &ci2), ZT_ERR_NOT_FOUND);

    /* Decoded read: ask the size, too small, exact, larger. */
    uint8_t buf[64];
    size_t written = 12345;
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, NULL, 0, &written), ZT_ERR_BUFFER_TOO_SMALL);
    CHECK(written == 32);
    CHECK(strstr(zt_last_error(), "32") != NULL);
    written = 12345;
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, buf, 31, &written), ZT_ERR_BUFFER_TOO_SMALL);
    CHECK(written == 32);
    memset(buf, 0xee, sizeof buf);
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, buf, sizeof buf, &written), ZT_OK);
    CHECK(written == 32 && buf[32] == 0xee);

    /* Zero copy: 64-byte aligned and equal to the decoded read (mmap); refused in positional mode. */
    const uint8_t *ptr = (const uint8_t *)0x1;
    size_t len = 99;
    if (flags & ZT_OPEN_POSITIONAL) {
        CHECK_STATUS(zt_component_ptr(f, &o, "data", 4, &ptr, &len), ZT_ERR_NOT_ZERO_COPY);
        CHECK(ptr == NULL && len == 0);
        CHECK(strstr(zt_last_error(), "positional") != NULL);
    } else {
        CHECK_STATUS(zt_component_ptr(f, &o, "data", 4, &ptr, &len), ZT_OK);
        CHECK(len == 32 && ((uintptr_t)ptr % 64) == 0 && memcmp(ptr, buf, 32) == 0);
    }

    /* u8 data: arange(16) * 17. */
    CHECK_STATUS(zt_find(f, "dense_u8", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, buf, sizeof buf, &written), ZT_OK);
    int ok = written == 16;
    for (int i = 0; i < 16 && ok; i++) ok = buf[i] == (uint8_t)(i * 17);
    CHECK(ok);

    /* Every object: every dtype and size are consistent. */
    for (size_t i = 0; i < zt_object_count(f); i++) {
        CHECK_STATUS(zt_object_at(f, i, &o), ZT_OK);
        CHECK_STATUS(zt_object_get_info(f, &o, &oi), ZT_OK);
        CHECK_STATUS(zt_component_at(f, &o, 0, &ci), ZT_OK);
        CHECK(ci.decoded_length == oi.numel * zt_dtype_size(ci.dtype));
        zt_object back;
        CHECK_STATUS(zt_find(f, oi.name, oi.name_len, &back), ZT_OK);
        CHECK(back.index == i);
    }

    CHECK_STATUS(zt_verify(f, 0), ZT_OK);
    CHECK_STATUS(zt_verify(f, ZT_VERIFY_DIGESTS), ZT_OK);
    CHECK_STATUS(zt_verify(f, ZT_VERIFY_DATA), ZT_OK);
    zt_close(f);
}

/* zstd: decoded reads, no zero copy, digests, positional and mapped agree. */
static void test_zstd(void) {
    zt_file *m = open_ok(fixture("v1.2/zstd.zt"), 0);
    zt_file *p = open_ok(fixture("v1.2/zstd.zt"), ZT_OPEN_POSITIONAL);
    zt_object o;
    zt_component_info ci;
    CHECK_STATUS(zt_find(m, "ramp_i64_sha256", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component(m, &o, "data", 4, &ci), ZT_OK);
    CHECK(ci.encoding == ZT_ENCODING_ZSTD && ci.has_uncompressed_length && ci.uncompressed_length == 2048);
    CHECK(ci.decoded_length == 2048 && ci.length < 2048);
    CHECK(str_eq(ci.digest, ci.digest_len >= 7 ? 7 : 0, "sha256:"));

    const uint8_t *ptr;
    size_t len, written;
    CHECK_STATUS(zt_component_ptr(m, &o, "data", 4, &ptr, &len), ZT_ERR_NOT_ZERO_COPY);
    CHECK(strstr(zt_last_error(), "compressed") != NULL);

    int64_t ramp[256], ramp2[256];
    CHECK_STATUS(zt_component_read(m, &o, "data", 4, ramp, 2047, &written), ZT_ERR_BUFFER_TOO_SMALL);
    CHECK(written == 2048);
    CHECK_STATUS(zt_component_read(m, &o, "data", 4, ramp, sizeof ramp, &written), ZT_OK);
    int ok = written == 2048;
    for (int i = 0; i < 256 && ok; i++) ok = ramp[i] == i;
    CHECK(ok);
    /* The same object through the positional handle (same manifest index). */
    CHECK_STATUS(zt_component_read(p, &o, "data", 4, ramp2, sizeof ramp2, &written), ZT_OK);
    CHECK(written == 2048 && memcmp(ramp, ramp2, 2048) == 0);

    /* A zero-size zstd component. */
    CHECK_STATUS(zt_find(m, "zero_size_zstd", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component_read(m, &o, "data", 4, NULL, 0, &written), ZT_OK);
    CHECK(written == 0);

    /* Scalar: shape [] has ndim 0 and numel 1. */
    CHECK_STATUS(zt_find(m, "scalar_f64_zstd", ZT_NUL_TERMINATED, &o), ZT_OK);
    zt_object_info oi;
    CHECK_STATUS(zt_object_get_info(m, &o, &oi), ZT_OK);
    CHECK(oi.ndim == 0 && oi.numel == 1);
    size_t ndim = 9;
    CHECK_STATUS(zt_object_shape(m, &o, NULL, 0, &ndim), ZT_OK);
    CHECK(ndim == 0);

    /* Sparse CSR with zstd components. */
    CHECK_STATUS(zt_find(m, "csr_zstd_sha256", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_object_get_info(m, &o, &oi), ZT_OK);
    CHECK(oi.format_kind == ZT_FORMAT_SPARSE_CSR && oi.component_count == 3);
    CHECK_STATUS(zt_component(m, &o, "indptr", ZT_NUL_TERMINATED, &ci), ZT_OK);
    CHECK(ci.dtype == ZT_DTYPE_U64 && ci.decoded_length == 32);

    CHECK_STATUS(zt_verify(m, 0), ZT_OK);
    CHECK_STATUS(zt_verify(p, 0), ZT_OK);
    zt_close(m);
    zt_close(p);

    /* v1.1: zstd without uncompressed_length; dense data's size is implied by the shape. */
    m = open_ok(fixture("v1.1/zstd.zt"), 0);
    CHECK_STATUS(zt_find(m, "ramp_i64", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component(m, &o, "data", 4, &ci), ZT_OK);
    CHECK(!ci.has_uncompressed_length && ci.has_decoded_length && ci.decoded_length == 2048);
    CHECK_STATUS(zt_component_read(m, &o, "data", 4, ramp, sizeof ramp, &written), ZT_OK);
    CHECK(written == 2048 && ramp[255] == 255);
    zt_close(m);

    /* A zstd component whose size nothing declares: the size query decodes to find it. */
    m = open_ok(sample("good/v1.1_zstd_unknown_size.zt"), 0);
    CHECK_STATUS(zt_find(m, "csr", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component(m, &o, "indices", ZT_NUL_TERMINATED, &ci), ZT_OK);
    CHECK(!ci.has_decoded_length && ci.encoding == ZT_ENCODING_ZSTD);
    written = 0;
    CHECK_STATUS(zt_component_read(m, &o, "indices", 7, NULL, 0, &written), ZT_ERR_BUFFER_TOO_SMALL);
    CHECK(written == 16);
    uint64_t idx[4];
    CHECK_STATUS(zt_component_read(m, &o, "indices", 7, idx, 15, &written), ZT_ERR_BUFFER_TOO_SMALL);
    CHECK(written == 16);
    CHECK_STATUS(zt_component_read(m, &o, "indices", 7, idx, sizeof idx, &written), ZT_OK);
    CHECK(written == 16 && idx[0] == 0 && idx[1] == 3);
    CHECK_STATUS(zt_verify(m, 0), ZT_OK);
    zt_close(m);
}

static void test_types_and_digests(void) {
    zt_file *f = open_ok(fixture("v1.2/fp8_complex.zt"), 0);
    zt_object o;
    zt_component_info ci;
    CHECK_STATUS(zt_find(f, "complex64", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component(f, &o, "data", 4, &ci), ZT_OK);
    CHECK(ci.dtype == ZT_DTYPE_F32 && str_eq(ci.logical_type, ci.logical_type_len, "complex64"));
    CHECK(ci.decoded_length == 24);
    CHECK_STATUS(zt_find(f, "f8_e5m2", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component(f, &o, "data", 4, &ci), ZT_OK);
    CHECK(ci.dtype == ZT_DTYPE_U8 && str_eq(ci.logical_type, ci.logical_type_len, "f8_e5m2"));
    CHECK_STATUS(zt_verify(f, 0), ZT_OK);
    zt_close(f);

    f = open_ok(fixture("v1.2/checksums.zt"), 0);
    CHECK_STATUS(zt_find(f, "crc32c_i32", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component(f, &o, "data", 4, &ci), ZT_OK);
    CHECK(ci.digest_len > 9 && memcmp(ci.digest, "crc32c:0x", 9) == 0);
    CHECK_STATUS(zt_find(f, "none_u8", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component(f, &o, "data", 4, &ci), ZT_OK);
    CHECK(ci.digest == NULL);
    /* Zero-length component: a valid (empty) zero-copy view. */
    CHECK_STATUS(zt_find(f, "sha256_zero_size", ZT_NUL_TERMINATED, &o), ZT_OK);
    const uint8_t *ptr = NULL;
    size_t len = 99;
    CHECK_STATUS(zt_component_ptr(f, &o, "data", 4, &ptr, &len), ZT_OK);
    CHECK(len == 0 && ptr != NULL);
    CHECK_STATUS(zt_verify(f, 0), ZT_OK);
    zt_close(f);

    /* Quantized: format kind, components by role, attributes. */
    f = open_ok(fixture("v1.2/quantized.zt"), 0);
    CHECK_STATUS(zt_find(f, "q4_gptq", ZT_NUL_TERMINATED, &o), ZT_OK);
    zt_object_info oi;
    CHECK_STATUS(zt_object_get_info(f, &o, &oi), ZT_OK);
    CHECK(oi.format_kind == ZT_FORMAT_QUANTIZED_GROUP && oi.component_count == 3 && oi.attribute_count == 3);
    zt_attribute a;
    CHECK_STATUS(zt_attribute_find(f, &o, "group_size", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_UINT && a.has_int && a.int_value == 8 && a.uint_value == 8);
    CHECK_STATUS(zt_attribute_find(f, &o, "packing", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_TEXT && str_eq((const char *)a.data, a.data_len, "8_per_i32"));
    CHECK_STATUS(zt_component(f, &o, "packed_weight", ZT_NUL_TERMINATED, &ci), ZT_OK);
    CHECK(ci.dtype == ZT_DTYPE_I32 && ci.decoded_length == 64);
    zt_close(f);

    /* Unknown formats and logical types stay readable. */
    f = open_ok(fixture("v1.2/extensions.zt"), 0);
    for (size_t i = 0; i < zt_object_count(f); i++) {
        CHECK_STATUS(zt_object_at(f, i, &o), ZT_OK);
        CHECK_STATUS(zt_object_get_info(f, &o, &oi), ZT_OK);
        for (size_t k = 0; k < oi.component_count; k++) {
            CHECK_STATUS(zt_component_at(f, &o, k, &ci), ZT_OK);
            size_t need = 0;
            zt_status s = zt_component_read(f, &o, ci.role, ci.role_len, NULL, 0, &need);
            CHECK(s == ZT_OK || s == ZT_ERR_BUFFER_TOO_SMALL);
        }
    }
    zt_close(f);

    /* v0.1: legacy names normalized, version 0.1. */
    f = open_ok(fixture("v0.1/dense_all_dtypes.zt"), 0);
    zt_file_info fi;
    CHECK_STATUS(zt_file_get_info(f, &fi), ZT_OK);
    CHECK(fi.version_major == 0 && fi.version_minor == 1);
    CHECK_STATUS(zt_find(f, "dense_bf16", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component(f, &o, "data", 4, &ci), ZT_OK);
    CHECK(ci.dtype == ZT_DTYPE_BF16 && !ci.big_endian);
    CHECK_STATUS(zt_verify(f, 0), ZT_OK);
    zt_close(f);
}

static void test_attributes(void) {
    zt_file *f = open_ok(sample("good/attributes_all_kinds.zt"), 0);
    size_t n = 0;
    zt_attribute a;
    /* File-level attributes (obj = NULL). */
    CHECK_STATUS(zt_attribute_count(f, NULL, &n), ZT_OK);
    CHECK(n == 2);
    CHECK_STATUS(zt_attribute_at(f, NULL, 0, &a), ZT_OK);
    CHECK(str_eq(a.key, a.key_len, "framework") && a.kind == ZT_VALUE_TEXT);
    CHECK(str_eq((const char *)a.data, a.data_len, "c-examples"));
    CHECK(a.key_cbor_len == 10 && a.key_cbor[0] == 0x69);
    CHECK_STATUS(zt_attribute_at(f, NULL, 2, &a), ZT_ERR_INVALID_ARGUMENT);
    CHECK(a.key == NULL && a.cbor == NULL); /* zeroed on failure */
    zt_file_info fi;
    CHECK_STATUS(zt_file_get_info(f, &fi), ZT_OK);
    CHECK(fi.attribute_count == 2);

    zt_object o;
    CHECK_STATUS(zt_find(f, "w", 1, &o), ZT_OK);
    CHECK_STATUS(zt_attribute_count(f, &o, &n), ZT_OK);
    CHECK(n == 12);
    CHECK_STATUS(zt_attribute_find(f, &o, "uint", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_UINT && a.uint_value == 42 && a.has_int && a.int_value == 42 && a.float_value == 42.0);
    CHECK(a.cbor_len == 2 && a.cbor[0] == 0x18 && a.cbor[1] == 42);
    CHECK_STATUS(zt_attribute_find(f, &o, "neg", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_NEGINT && a.uint_value == 6 && a.has_int && a.int_value == -7);
    CHECK_STATUS(zt_attribute_find(f, &o, "big", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_UINT && a.uint_value == UINT64_MAX && !a.has_int);
    CHECK_STATUS(zt_attribute_find(f, &o, "float", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_FLOAT && a.float_value == 1.5 && !a.has_int);
    CHECK_STATUS(zt_attribute_find(f, &o, "bool", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_BOOL && a.bool_value);
    CHECK_STATUS(zt_attribute_find(f, &o, "null", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_NULL);
    CHECK_STATUS(zt_attribute_find(f, &o, "bytes", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_BYTES && a.data_len == 2 && a.data[0] == 1 && a.data[1] == 2);
    CHECK_STATUS(zt_attribute_find(f, &o, "array", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_ARRAY && a.count == 2 && a.cbor[0] == 0x82);
    CHECK_STATUS(zt_attribute_find(f, &o, "map", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_MAP && a.count == 1);
    CHECK_STATUS(zt_attribute_find(f, &o, "tagged", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_TAG && a.uint_value == 1 && a.cbor_len == 6);
    CHECK_STATUS(zt_attribute_find(f, &o, "chunked", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_TEXT && a.data == NULL && a.data_len == 0 && a.cbor_len == 7);
    CHECK_STATUS(zt_attribute_find(f, &o, "nope", ZT_NUL_TERMINATED, &a), ZT_ERR_NOT_FOUND);
    CHECK_STATUS(zt_attribute_find(f, &o, "text", 2, &a), ZT_ERR_NOT_FOUND);
    /* Iterate all of them. */
    for (size_t i = 0; i < n; i++) {
        CHECK_STATUS(zt_attribute_at(f, &o, i, &a), ZT_OK);
        CHECK(a.key != NULL && a.cbor != NULL && a.cbor_len > 0);
    }
    CHECK_STATUS(zt_verify(f, 0), ZT_OK);
    zt_close(f);

    /* The reference fixture. */
    f = open_ok(fixture("v1.2/attributes.zt"), 0);
    CHECK_STATUS(zt_find(f, "csr_with_attrs", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_attribute_find(f, &o, "origin", ZT_NUL_TERMINATED, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_TEXT && str_eq((const char *)a.data, a.data_len, "scipy"));
    CHECK_STATUS(zt_find(f, "dense_no_attrs", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_attribute_count(f, &o, &n), ZT_OK);
    CHECK(n == 0);
    zt_close(f);
}

static void test_names(void) {
    /* Unicode names, long names: every name is found again. */
    const char *files[] = {"v1.2/names.zt", "v1.1/names.zt", "v0.1/names.zt"};
    for (size_t k = 0; k < 3; k++) {
        zt_file *f = open_ok(fixture(files[k]), 0);
        size_t count = zt_object_count(f);
        CHECK(count > 0);
        for (size_t i = 0; i < count; i++) {
            zt_object o, back;
            const char *p;
            size_t n;
            CHECK_STATUS(zt_object_at(f, i, &o), ZT_OK);
            CHECK_STATUS(zt_object_name(f, &o, &p, &n), ZT_OK);
            CHECK_STATUS(zt_find(f, p, n, &back), ZT_OK);
            CHECK(back.index == i);
        }
        zt_close(f);
    }
    /* names_edge.zt has an empty name, which this library refuses. */
    zt_file *f = (zt_file *)0x1;
    CHECK_STATUS(zt_open(fixture("v1.2/names_edge.zt"), 0, &f), ZT_ERR_FORMAT);
    CHECK(f == NULL);
    CHECK(strstr(zt_last_error(), "empty name") != NULL);
}

/* zt_open_mem: borrowed memory, zero copy into it, aligned when it is. */
static void test_open_mem(void) {
    size_t len = 0;
    uint8_t *bytes = slurp(fixture("v1.2/dense_all_dtypes.zt"), &len);
    CHECK(bytes != NULL && len == 1967);
    if (!bytes)
        return;
    zt_file *f = NULL;
    CHECK_STATUS(zt_open_mem(bytes, len, &f), ZT_OK);
    zt_file_info fi;
    CHECK_STATUS(zt_file_get_info(f, &fi), ZT_OK);
    CHECK(fi.mode == ZT_MODE_MEMORY && fi.object_count == 13);
    zt_object o;
    CHECK_STATUS(zt_find(f, "dense_f64", ZT_NUL_TERMINATED, &o), ZT_OK);
    const uint8_t *ptr;
    size_t n;
    CHECK_STATUS(zt_component_ptr(f, &o, "data", 4, &ptr, &n), ZT_OK);
    CHECK(n == 72 && ptr >= bytes && ptr + n <= bytes + len && (uintptr_t)ptr % 64 == 0);
    const char *name;
    CHECK_STATUS(zt_object_name(f, &o, &name, &n), ZT_OK);
    CHECK((const uint8_t *)name > bytes && (const uint8_t *)name < bytes + len);
    double d[9];
    size_t written;
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, d, sizeof d, &written), ZT_OK);
    CHECK(written == 72);
    CHECK_STATUS(zt_verify(f, 0), ZT_OK);
    zt_close(f);

    /* Empty and truncated memory. */
    f = (zt_file *)0x1;
    CHECK_STATUS(zt_open_mem(NULL, 0, &f), ZT_ERR_FORMAT);
    CHECK(f == NULL);
    CHECK_STATUS(zt_open_mem(bytes, 100, &f), ZT_ERR_FORMAT);
    CHECK_STATUS(zt_open_mem(bytes, len - 1, &f), ZT_ERR_FORMAT);
    free(bytes);
}

/* Refused files and bad data: the right status and a message, never a crash. */
static void test_hostile(void) {
    static const struct {
        const char *file;
        zt_status status;
        const char *words;
    } open_cases[] = {
        {"hostile/open/empty_file.zt", ZT_ERR_FORMAT, "too small"},
        {"hostile/open/bad_magic.zt", ZT_ERR_FORMAT, "magic"},
        {"hostile/open/truncated.zt", ZT_ERR_FORMAT, "magic"},
        {"hostile/open/footer_only.zt", ZT_ERR_FORMAT, ""},
        {"hostile/open/manifest_size_huge.zt", ZT_ERR_FORMAT, "manifest"},
        {"hostile/open/cbor_garbage.zt", ZT_ERR_FORMAT, "CBOR"},
        {"hostile/open/cbor_truncated.zt", ZT_ERR_FORMAT, "CBOR"},
        {"hostile/open/unsupported_version.zt", ZT_ERR_UNSUPPORTED, "version"},
        {"hostile/open/out_of_bounds.zt", ZT_ERR_FORMAT, "outside"},
        {"hostile/open/misaligned.zt", ZT_ERR_FORMAT, "multiple of 64"},
        {"hostile/open/length_mismatch.zt", ZT_ERR_FORMAT, "length"},
        {"hostile/open/shape_overflow.zt", ZT_ERR_FORMAT, "overflow"},
        {"hostile/open/unknown_dtype.zt", ZT_ERR_FORMAT, "dtype"},
        {"hostile/open/duplicate_names.zt", ZT_ERR_FORMAT, "duplicate"},
        {"hostile/open/overlap.zt", ZT_ERR_FORMAT, "overlap"},
        {"hostile/open/deep_nesting.zt", ZT_ERR_FORMAT, "deeper"},
        {"hostile/open/length_too_large.zt", ZT_ERR_FORMAT, "length"},
    };
    for (size_t i = 0; i < sizeof open_cases / sizeof open_cases[0]; i++) {
        for (int positional = 0; positional < 2; positional++) {
            zt_file *f = (zt_file *)0x1;
            zt_status s = zt_open(sample(open_cases[i].file), positional ? ZT_OPEN_POSITIONAL : 0, &f);
            checks++;
            if (s != open_cases[i].status || f != NULL || strstr(zt_last_error(), open_cases[i].words) == NULL) {
                failures++;
                fprintf(stderr, "%s (positional=%d): status %d, message \"%s\"; expected %d with \"%s\"\n",
                        open_cases[i].file, positional, (int)s, zt_last_error(), (int)open_cases[i].status,
                        open_cases[i].words);
            }
        }
    }
    zt_file *f = (zt_file *)0x1;
    CHECK_STATUS(zt_open(sample("no-such-file.zt"), 0, &f), ZT_ERR_IO);
    CHECK(f == NULL && strstr(zt_last_error(), "No such file") != NULL);
    CHECK_STATUS(zt_open(samples, 0, &f), ZT_ERR_IO); /* a directory */

    static const struct {
        const char *file;
        zt_status read, verify;
    } data_cases[] = {
        {"hostile/data/digest_mismatch.zt", ZT_OK, ZT_ERR_DIGEST_MISMATCH},
        {"hostile/data/zstd_corrupt.zt", ZT_ERR_CORRUPT_DATA, ZT_ERR_CORRUPT_DATA},
        {"hostile/data/zstd_bomb.zt", ZT_ERR_CORRUPT_DATA, ZT_ERR_CORRUPT_DATA},
        {"hostile/data/zstd_short.zt", ZT_ERR_CORRUPT_DATA, ZT_ERR_CORRUPT_DATA},
        {"hostile/data/csr_index_out_of_range.zt", ZT_OK, ZT_ERR_CORRUPT_DATA},
        {"hostile/data/bool_not_0_or_1.zt", ZT_OK, ZT_ERR_CORRUPT_DATA},
    };
    for (size_t i = 0; i < sizeof data_cases / sizeof data_cases[0]; i++) {
        for (int positional = 0; positional < 2; positional++) {
            f = open_ok(sample(data_cases[i].file), positional ? ZT_OPEN_POSITIONAL : 0);
            zt_object o;
            zt_component_info ci;
            CHECK_STATUS(zt_object_at(f, 0, &o), ZT_OK);
            CHECK_STATUS(zt_component_at(f, &o, 0, &ci), ZT_OK);
            uint8_t buf[256];
            size_t need = 0, written;
            zt_status s = zt_component_read(f, &o, ci.role, ci.role_len, NULL, 0, &need);
            if (s == ZT_ERR_BUFFER_TOO_SMALL && need <= sizeof buf)
                s = zt_component_read(f, &o, ci.role, ci.role_len, buf, need, &written);
            zt_status v = zt_verify(f, 0);
            zt_status want_v = data_cases[i].verify;
            checks++;
            if (s != data_cases[i].read || v != want_v) {
                failures++;
                fprintf(stderr, "%s (positional=%d): read %d, verify %d (%s); expected %d, %d\n", data_cases[i].file,
                        positional, (int)s, (int)v, zt_last_error(), (int)data_cases[i].read, (int)want_v);
            }
            zt_close(f);
        }
    }
    /* verify reports how many problems and the first. */
    f = open_ok(sample("hostile/data/digest_mismatch.zt"), 0);
    CHECK_STATUS(zt_verify(f, ZT_VERIFY_DATA), ZT_OK);
    CHECK_STATUS(zt_verify(f, ZT_VERIFY_DIGESTS), ZT_ERR_DIGEST_MISMATCH);
    CHECK(strstr(zt_last_error(), "1 problem found") != NULL);
    CHECK(strstr(zt_last_error(), "\"w\"") != NULL);
    zt_close(f);
}

/* ---------------------------------------------------------------- threads */

struct shared {
    zt_file *f;
    int failures;
};

static void *reader_thread(void *arg) {
    struct shared *sh = arg;
    /* Each thread has its own last error: a fresh thread has none. */
    if (zt_last_error()[0] != 0)
        sh->failures++;
    int64_t buf[1024]; /* the largest component of zstd.zt is 4096 bytes */
    for (int round = 0; round < 50; round++) {
        for (size_t i = 0; i < zt_object_count(sh->f); i++) {
            zt_object o, back;
            zt_object_info oi;
            zt_component_info ci;
            size_t written;
            if (zt_object_at(sh->f, i, &o) != ZT_OK || zt_object_get_info(sh->f, &o, &oi) != ZT_OK ||
                zt_find(sh->f, oi.name, oi.name_len, &back) != ZT_OK || back.index != i)
                sh->failures++;
            for (size_t k = 0; k < oi.component_count; k++) {
                if (zt_component_at(sh->f, &o, k, &ci) != ZT_OK ||
                    zt_component_read(sh->f, &o, ci.role, ci.role_len, buf, sizeof buf, &written) != ZT_OK ||
                    written != ci.decoded_length)
                    sh->failures++;
            }
        }
        zt_object o;
        if (zt_find(sh->f, "no such object", ZT_NUL_TERMINATED, &o) != ZT_ERR_NOT_FOUND ||
            strstr(zt_last_error(), "no such object") == NULL)
            sh->failures++;
    }
    return NULL;
}

static void test_threads(uint32_t flags) {
    enum { N = 4 };
    struct shared sh[N];
    pthread_t t[N];
    zt_file *f = open_ok(fixture("v1.2/zstd.zt"), flags);
    for (int i = 0; i < N; i++) {
        sh[i].f = f;
        sh[i].failures = 0;
        CHECK(pthread_create(&t[i], NULL, reader_thread, &sh[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        checks++;
        if (sh[i].failures) {
            failures++;
            fprintf(stderr, "thread %d: %d failures\n", i, sh[i].failures);
        }
    }
    zt_close(f);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: api_test FIXTURES_DIR SAMPLES_DIR\n");
        return 2;
    }
    snprintf(fixtures, sizeof fixtures, "%s", argv[1]);
    snprintf(samples, sizeof samples, "%s", argv[2]);

    CHECK(strcmp(zt_last_error(), "") == 0); /* nothing failed yet */
    test_library();
    test_null_arguments();
    test_dense_all_dtypes(0);
    test_dense_all_dtypes(ZT_OPEN_POSITIONAL);
    test_zstd();
    test_types_and_digests();
    test_attributes();
    test_names();
    test_open_mem();
    test_hostile();
    test_threads(0);
    test_threads(ZT_OPEN_POSITIONAL);

    printf("api_test: %d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
