/*
 * api_test: the whole C API, from C.
 *
 *     api_test FIXTURES_DIR SAMPLES_DIR
 *
 * FIXTURES_DIR is tests/fixtures (files written by the reference
 * implementation), SAMPLES_DIR is examples-c/samples. Covers every entry
 * point: NULL arguments, out-of-range indices, small buffers, every
 * accessor, the three ways of opening, hostile files, and use from several
 * threads at once; then the write API: every refusal, publishing and
 * aborting, files written through it read back bit for bit (copies of the
 * reference fixtures, every dtype raw and zstd), writers in several
 * threads. Prints one line per failed check and a summary; exits 0 when
 * every check passes.
 */
#define _POSIX_C_SOURCE 200809L
#include <ztensor.h>

#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

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
    zt_object bogus = {(size_t)-1, 0};
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
    /* The same object through the positional handle (same manifest index;
     * each handle's zt_object is its own). */
    zt_object op;
    CHECK_STATUS(zt_object_at(p, o.index, &op), ZT_OK);
    CHECK_STATUS(zt_component_read(p, &o, "data", 4, ramp2, sizeof ramp2, &written), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_read(p, &op, "data", 4, ramp2, sizeof ramp2, &written), ZT_OK);
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
        /* verify on read: the read itself finds the corrupt part */
        {"hostile/data/digest_mismatch.zt", ZT_ERR_DIGEST_MISMATCH, ZT_ERR_DIGEST_MISMATCH},
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
    /* ZT_READ_NO_VERIFY: the caller verified already; the bytes come back as stored. */
    f = open_ok(sample("hostile/data/digest_mismatch.zt"), ZT_READ_NO_VERIFY);
    {
        zt_object o;
        zt_component_info ci;
        uint8_t buf[256];
        size_t written = 0;
        CHECK_STATUS(zt_object_at(f, 0, &o), ZT_OK);
        CHECK_STATUS(zt_component_at(f, &o, 0, &ci), ZT_OK);
        CHECK(ci.length <= sizeof buf);
        CHECK_STATUS(zt_component_read(f, &o, ci.role, ci.role_len, buf, sizeof buf, &written), ZT_OK);
        CHECK(written == ci.length);
    }
    zt_close(f);
}

/* ---------------------------------------------------------------- writing */

static char workdir[2048]; /* a fresh directory for the files written here */

/* `workdir/rel`; four rotating buffers so that a few may be live at once. */
static const char *work(const char *rel) {
    static char bufs[4][4096];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", workdir, rel);
    return b;
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

/* Number of entries of a directory (without . and ..), -1 when unreadable. */
static int dir_entries(const char *path) {
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* Remove a directory and the files in it (one level). */
static void remove_tree(const char *path) {
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    char buf[4096];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(buf, sizeof buf, "%s/%s", path, e->d_name);
        if (unlink(buf) != 0)
            remove_tree(buf);
    }
    closedir(d);
    rmdir(path);
}

/* The writer tests here are v1.2's (v2_write_test.c tests v2, the default). */
static zt_writer *writer_ok(const char *path) {
    zt_writer *w = NULL;
    CHECK_STATUS(create_v1_2(path, &w), ZT_OK);
    if (!w) {
        fprintf(stderr, "cannot continue without a writer for %s\n", path);
        exit(1);
    }
    return w;
}

static zt_write_options no_options(void) {
    zt_write_options o;
    memset(&o, 0, sizeof o);
    return o;
}

static zt_write_attribute text_attr(const char *key, const char *value) {
    zt_write_attribute a;
    memset(&a, 0, sizeof a);
    a.key = key;
    a.key_len = ZT_NUL_TERMINATED;
    a.kind = ZT_ATTR_TEXT;
    a.data = value;
    a.data_len = ZT_NUL_TERMINATED;
    return a;
}

/* Names of the objects of a file, joined by commas, into `out`. */
static void object_names(const char *path, char *out, size_t cap) {
    out[0] = 0;
    zt_file *f = open_ok(path, 0);
    for (size_t i = 0; i < zt_object_count(f); i++) {
        zt_object o;
        const char *p;
        size_t n;
        CHECK_STATUS(zt_object_at(f, i, &o), ZT_OK);
        CHECK_STATUS(zt_object_name(f, &o, &p, &n), ZT_OK);
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "%s%.*s", i ? "," : "", (int)n, p);
    }
    CHECK_STATUS(zt_verify(f, 0), ZT_OK);
    zt_close(f);
}

/* Every refusal: the right status and a message; none spoils the writer. */
static void test_write_errors(void) {
    const char *path = work("errors.zt");
    zt_writer *w = (zt_writer *)0x1;
    CHECK_STATUS(zt_writer_create(NULL, &w), ZT_ERR_INVALID_ARGUMENT);
    CHECK(w == NULL && strstr(zt_last_error(), "path") != NULL);
    CHECK_STATUS(zt_writer_create(path, NULL), ZT_ERR_INVALID_ARGUMENT);
    w = (zt_writer *)0x1;
    CHECK_STATUS(zt_writer_create(work("no-such-dir/x.zt"), &w), ZT_ERR_IO);
    CHECK(w == NULL && strstr(zt_last_error(), "No such file") != NULL && strstr(zt_last_error(), "no-such-dir"));
    CHECK_STATUS(zt_writer_create(workdir, &w), ZT_ERR_IO); /* a directory */
    CHECK(w == NULL && strstr(zt_last_error(), "directory") != NULL);
    CHECK_STATUS(zt_writer_finish(NULL), ZT_ERR_INVALID_ARGUMENT);
    zt_writer_abort(NULL);

    w = writer_ok(path);
    const float data[4] = {1, 2, 3, 4};
    const uint64_t shape[2] = {2, 2};
    const uint32_t F32 = ZT_DTYPE_F32;

    /* NULL and out-of-range arguments. */
    CHECK_STATUS(zt_writer_add_dense(NULL, "a", 1, F32, shape, 2, data, 16, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "writer") != NULL);
    CHECK_STATUS(zt_writer_add_dense(w, NULL, 1, F32, shape, 2, data, 16, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_dense(w, NULL, ZT_NUL_TERMINATED, F32, shape, 2, data, 16, NULL),
                 ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_dense(w, "\xff", 1, F32, shape, 2, data, 16, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "UTF-8") != NULL);
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, 13, shape, 2, data, 16, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "dtype") != NULL);
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, UINT32_MAX, shape, 2, data, 16, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, NULL, 2, data, 16, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "shape") != NULL);
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, SIZE_MAX, data, 16, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, NULL, 16, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, ZT_NUL_TERMINATED, NULL),
                 ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, SIZE_MAX / 2 + 1, NULL),
                 ZT_ERR_INVALID_ARGUMENT);

    /* Options. */
    zt_write_options o = no_options();
    o.encoding = 2;
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "encoding") != NULL);
    o.encoding = ZT_ENCODING_ZSTD;
    o.zstd_level = 23;
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "zstd_level") != NULL);
    o.zstd_level = -131073;
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_INVALID_ARGUMENT);
    o = no_options();
    o.digest = 3;
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "digest") != NULL);
    o = no_options();
    o.attribute_count = 1;
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "attributes") != NULL);
    o.attribute_count = SIZE_MAX;
    zt_write_attribute a = text_attr("k", "v");
    o.attributes = &a;
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_INVALID_ARGUMENT);
    o.attribute_count = 1;
    a.kind = 99;
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "kind") != NULL);
    a = text_attr("k", NULL);
    a.data_len = 3;
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_INVALID_ARGUMENT);
    a = text_attr("k", "\xc3");
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_INVALID_ARGUMENT);
    a = text_attr(NULL, "v");
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_INVALID_ARGUMENT);
    a = text_attr("k", "\x82\x01"); /* CBOR array of 2 with one item */
    a.kind = ZT_ATTR_CBOR;
    a.data_len = 2;
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_FORMAT);
    CHECK(strstr(zt_last_error(), "\"a\"") != NULL);
    a.data = "\x01\x02"; /* two items */
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_FORMAT);
    a.data = "";
    a.data_len = 0;
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_FORMAT);
    o = no_options();
    o.logical_type = "f8_e4m3fn"; /* FP8 is stored as u8, not f32 */
    o.logical_type_len = ZT_NUL_TERMINATED;
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_FORMAT);
    o.logical_type = "\xff";
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, &o), ZT_ERR_INVALID_ARGUMENT);

    /* What the file format refuses: ZT_ERR_FORMAT with the rule and the object. */
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 12, NULL), ZT_ERR_FORMAT);
    CHECK(strstr(zt_last_error(), "12 bytes") != NULL && strstr(zt_last_error(), "require 16") != NULL);
    CHECK(strstr(zt_last_error(), "\"a\"") != NULL);
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 1, data, 16, NULL), ZT_ERR_FORMAT);
    CHECK_STATUS(zt_writer_add_dense(w, "", 0, F32, shape, 2, data, 16, NULL), ZT_ERR_FORMAT);
    CHECK(strstr(zt_last_error(), "empty name") != NULL);
    CHECK_STATUS(zt_writer_add_dense(w, NULL, 0, F32, shape, 2, data, 16, NULL), ZT_ERR_FORMAT);
    const uint64_t huge[2] = {UINT64_MAX, 2};
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, huge, 2, data, 16, NULL), ZT_ERR_FORMAT);
    CHECK(strstr(zt_last_error(), "overflow") != NULL);

    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, NULL), ZT_OK);
    CHECK_STATUS(zt_writer_add_dense(w, "a", 1, F32, shape, 2, data, 16, NULL), ZT_ERR_FORMAT);
    CHECK(strstr(zt_last_error(), "already added") != NULL && strstr(zt_last_error(), "\"a\"") != NULL);
    CHECK_STATUS(zt_writer_add_dense(w, "a\0b", 3, F32, shape, 2, data, 16, NULL), ZT_OK); /* NUL inside */

    /* sparse_csr: 2 x 2, nnz 2. */
    const uint64_t idx[2] = {0, 1}, ptr[3] = {0, 1, 2};
    CHECK_STATUS(zt_writer_add_sparse_csr(w, "c", 1, F32, 2, 2, data, 8, idx, 2, ptr, 2, NULL), ZT_ERR_FORMAT);
    CHECK(strstr(zt_last_error(), "indptr") != NULL);
    CHECK_STATUS(zt_writer_add_sparse_csr(w, "c", 1, F32, 2, 2, data, 12, idx, 2, ptr, 3, NULL), ZT_ERR_FORMAT);
    CHECK_STATUS(zt_writer_add_sparse_csr(w, "c", 1, F32, 2, 2, data, 8, NULL, 2, ptr, 3, NULL),
                 ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_sparse_csr(w, "c", 1, F32, 2, 2, data, 8, idx, SIZE_MAX / 4, ptr, 3, NULL),
                 ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_sparse_csr(w, "c", 1, 77, 2, 2, data, 8, idx, 2, ptr, 3, NULL),
                 ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_sparse_csr(NULL, "c", 1, F32, 2, 2, data, 8, idx, 2, ptr, 3, NULL),
                 ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_sparse_csr(w, "c", 1, F32, 2, 2, data, 8, idx, 2, ptr, 3, NULL), ZT_OK);

    /* sparse_coo: 2 x 2, nnz 2, coords 2 x 2. */
    const uint64_t coords[4] = {0, 1, 1, 0};
    CHECK_STATUS(zt_writer_add_sparse_coo(w, "o", 1, F32, shape, 2, data, 8, coords, 3, NULL), ZT_ERR_FORMAT);
    CHECK_STATUS(zt_writer_add_sparse_coo(w, "o", 1, F32, shape, 2, data, 8, NULL, 4, NULL),
                 ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_sparse_coo(w, "o", 1, F32, shape, 2, data, 8, coords, 4, NULL), ZT_OK);

    /* quantized_group. */
    const int32_t packed[1] = {0x12345678};
    const float scale[1] = {0.5f};
    const uint8_t zero[1] = {8};
    const uint64_t qshape[2] = {1, 8};
    zt_write_component pw = {NULL, 0, ZT_DTYPE_I32, NULL, 0, packed, 4};
    zt_write_component sc = {NULL, 0, ZT_DTYPE_F32, NULL, 0, scale, 4};
    zt_write_component ze = {"zeros", 5, ZT_DTYPE_U8, NULL, 0, zero, 1};
    CHECK_STATUS(zt_writer_add_quantized_group(w, "q", 1, qshape, 2, NULL, &sc, &ze, 4, 8, "8_per_i32", 9, NULL),
                 ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_quantized_group(w, "q", 1, qshape, 2, &pw, &ze, &sc, 4, 8, "8_per_i32", 9, NULL),
                 ZT_ERR_INVALID_ARGUMENT); /* roles in the wrong places */
    CHECK(strstr(zt_last_error(), "role") != NULL);
    CHECK_STATUS(zt_writer_add_quantized_group(w, "q", 1, qshape, 2, &pw, &sc, &ze, 4, 8, NULL, 9, NULL),
                 ZT_ERR_INVALID_ARGUMENT);
    o = no_options();
    o.logical_type = "f8_e5m2";
    o.logical_type_len = 7;
    CHECK_STATUS(zt_writer_add_quantized_group(w, "q", 1, qshape, 2, &pw, &sc, &ze, 4, 8, "8_per_i32", 9, &o),
                 ZT_ERR_INVALID_ARGUMENT);
    sc.dtype = 13;
    CHECK_STATUS(zt_writer_add_quantized_group(w, "q", 1, qshape, 2, &pw, &sc, &ze, 4, 8, "8_per_i32", 9, NULL),
                 ZT_ERR_INVALID_ARGUMENT);
    sc.dtype = ZT_DTYPE_F32;
    CHECK_STATUS(zt_writer_add_quantized_group(w, "q", 1, qshape, 2, &pw, &sc, &ze, 4, 8, "8_per_i32", 9, NULL),
                 ZT_OK);

    /* Generic objects. */
    zt_write_component parts[2] = {{"x", 1, ZT_DTYPE_U8, NULL, 0, zero, 1}, {"x", 1, ZT_DTYPE_U8, NULL, 0, zero, 1}};
    CHECK_STATUS(zt_writer_add_object(w, "g", 1, NULL, 3, NULL, 0, parts, 1, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_object(w, "g", 1, "mine", 4, NULL, 0, NULL, 1, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_object(w, "g", 1, "mine", 4, NULL, 0, parts, SIZE_MAX, NULL),
                 ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_add_object(w, "g", 1, "mine", 4, NULL, 0, parts, 2, NULL), ZT_ERR_FORMAT);
    CHECK(strstr(zt_last_error(), "duplicate") != NULL);
    parts[1].role = NULL;
    CHECK_STATUS(zt_writer_add_object(w, "g", 1, "mine", 4, NULL, 0, parts, 2, NULL), ZT_ERR_INVALID_ARGUMENT);
    parts[1].role = "";
    parts[1].role_len = 0;
    CHECK_STATUS(zt_writer_add_object(w, "g", 1, "mine", 4, NULL, 0, parts, 2, NULL), ZT_ERR_FORMAT);
    CHECK(strstr(zt_last_error(), "empty name") != NULL);
    CHECK_STATUS(zt_writer_add_object(w, "g", 1, "dense", 5, shape, 2, parts, 1, NULL), ZT_ERR_FORMAT);
    CHECK(strstr(zt_last_error(), "data") != NULL); /* dense needs `data` */
    CHECK_STATUS(zt_writer_add_object(w, "g", 1, "mine", 4, NULL, 0, parts, 1, NULL), ZT_OK);

    /* File attributes. */
    CHECK_STATUS(zt_writer_set_attribute_int(NULL, "k", 1, 1), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_set_attribute_int(w, NULL, 1, 1), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_set_attribute_uint(w, "\xfe", 1, 1), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_set_attribute_float(NULL, "k", 1, 1.0), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_set_attribute_bool(NULL, "k", 1, true), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_set_attribute_text(w, "k", 1, NULL, 1), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_set_attribute_text(w, "k", 1, "\xff", 1), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_set_attribute_cbor(w, "k", 1, NULL, 2), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_set_attribute_cbor(w, "k", 1, (const uint8_t *)"\x01\x02", 2), ZT_ERR_FORMAT);
    CHECK_STATUS(zt_writer_set_attribute_cbor(w, "k", 1, (const uint8_t *)"\x61", 1), ZT_ERR_FORMAT);
    CHECK_STATUS(zt_writer_set_attribute_cbor(w, "k", 1, NULL, 0), ZT_ERR_FORMAT);
    CHECK_STATUS(zt_writer_set_attribute(w, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_set_attribute(NULL, &a), ZT_ERR_INVALID_ARGUMENT);
    a = text_attr("k", "v");
    a.kind = 8;
    CHECK_STATUS(zt_writer_set_attribute(w, &a), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_writer_set_attribute_int(w, "", 0, 1), ZT_OK); /* the format allows an empty key */
    CHECK_STATUS(zt_writer_set_attribute_int(w, "k", 1, 1), ZT_OK);

    /* Refusals did not spoil the writer: the accepted objects are all there. */
    CHECK(!exists(path));
    CHECK_STATUS(zt_writer_finish(w), ZT_OK);
    char names[256];
    object_names(path, names, sizeof names);
    CHECK(strcmp(names, "a,a,c,o,q,g") == 0); /* "%.*s" stops at the NUL of "a\0b" */
    zt_file *f = open_ok(path, 0);
    CHECK(zt_object_count(f) == 6);
    zt_object ob;
    CHECK_STATUS(zt_find(f, "a\0b", 3, &ob), ZT_OK);
    CHECK(ob.index == 1);
    zt_close(f);
}

/* Nothing appears before zt_writer_finish; abort leaves no trace and an
 * existing file untouched; finish replaces it. */
static void test_write_publish_and_abort(void) {
    const char *dir = work("publish");
    CHECK(mkdir(dir, 0700) == 0);
    char path[4096];
    snprintf(path, sizeof path, "%s/out.zt", dir);
    const double v = 2.5;

    zt_writer *w = writer_ok(path);
    CHECK_STATUS(zt_writer_add_dense(w, "old", 3, ZT_DTYPE_F64, NULL, 0, &v, 8, NULL), ZT_OK); /* a scalar */
    CHECK(!exists(path) && dir_entries(dir) == 1); /* only the temporary file */
    zt_writer_abort(w);
    CHECK(!exists(path) && dir_entries(dir) == 0);

    /* An empty writer makes a valid file with no objects. */
    w = writer_ok(path);
    CHECK_STATUS(zt_writer_finish(w), ZT_OK);
    zt_file *f = open_ok(path, 0);
    CHECK(zt_object_count(f) == 0);
    zt_close(f);

    w = writer_ok(path);
    CHECK_STATUS(zt_writer_add_dense(w, "old", 3, ZT_DTYPE_F64, NULL, 0, &v, 8, NULL), ZT_OK);
    CHECK_STATUS(zt_writer_finish(w), ZT_OK);
    CHECK(dir_entries(dir) == 1);

    /* Abort: the file published before stays as it was. */
    w = writer_ok(path);
    CHECK_STATUS(zt_writer_add_dense(w, "new", 3, ZT_DTYPE_F64, NULL, 0, &v, 8, NULL), ZT_OK);
    CHECK(dir_entries(dir) == 2);
    zt_writer_abort(w);
    char names[256];
    object_names(path, names, sizeof names);
    CHECK(strcmp(names, "old") == 0);
    CHECK(dir_entries(dir) == 1);

    /* Finish: replaced whole. */
    w = writer_ok(path);
    CHECK_STATUS(zt_writer_add_dense(w, "new", 3, ZT_DTYPE_F64, NULL, 0, &v, 8, NULL), ZT_OK);
    CHECK_STATUS(zt_writer_finish(w), ZT_OK);
    object_names(path, names, sizeof names);
    CHECK(strcmp(names, "new") == 0);
    CHECK(dir_entries(dir) == 1);

    /* Finish after an I/O error: the temporary file and its directory
     * vanish under the writer; the rename fails, nothing is published and
     * the writer is released all the same. */
    const char *gone = work("vanishing");
    CHECK(mkdir(gone, 0700) == 0);
    snprintf(path, sizeof path, "%s/out.zt", gone);
    w = writer_ok(path);
    CHECK_STATUS(zt_writer_add_dense(w, "x", 1, ZT_DTYPE_F64, NULL, 0, &v, 8, NULL), ZT_OK);
    remove_tree(gone);
    CHECK(!exists(gone));
    CHECK_STATUS(zt_writer_finish(w), ZT_ERR_IO);
    CHECK(strstr(zt_last_error(), "nothing was published") != NULL);
    CHECK(strstr(zt_last_error(), "out.zt") != NULL);
    CHECK(!exists(path));
}

/* Copy every object of `src` through the write API (same format, shape,
 * components, dtypes, logical types, encoding, digest kind, attributes as
 * raw CBOR), then check the copy reads back bit for bit. */
static void copy_through_writer(const char *src, const char *dst) {
    zt_file *f = open_ok(src, 0);
    zt_writer *w = writer_ok(dst);
    zt_attribute a;
    size_t n = 0;
    CHECK_STATUS(zt_attribute_count(f, NULL, &n), ZT_OK);
    for (size_t i = 0; i < n; i++) {
        CHECK_STATUS(zt_attribute_at(f, NULL, i, &a), ZT_OK);
        if (a.key)
            CHECK_STATUS(zt_writer_set_attribute_cbor(w, a.key, a.key_len, a.cbor, a.cbor_len), ZT_OK);
    }
    for (size_t i = 0; i < zt_object_count(f); i++) {
        zt_object o;
        zt_object_info oi;
        CHECK_STATUS(zt_object_at(f, i, &o), ZT_OK);
        CHECK_STATUS(zt_object_get_info(f, &o, &oi), ZT_OK);
        uint64_t dims[16];
        size_t ndim = 0;
        CHECK_STATUS(zt_object_shape(f, &o, dims, 16, &ndim), ZT_OK);
        zt_write_component parts[8];
        void *bufs[8] = {0};
        zt_write_attribute attrs[32];
        zt_write_options opts = no_options();
        CHECK(oi.component_count <= 8 && oi.attribute_count <= 32);
        if (oi.component_count > 8 || oi.attribute_count > 32)
            continue;
        for (size_t k = 0; k < oi.component_count; k++) {
            zt_component_info ci;
            CHECK_STATUS(zt_component_at(f, &o, k, &ci), ZT_OK);
            size_t need = 0, got = 0;
            zt_status s = zt_component_read(f, &o, ci.role, ci.role_len, NULL, 0, &need);
            CHECK(s == ZT_OK || s == ZT_ERR_BUFFER_TOO_SMALL);
            bufs[k] = malloc(need ? need : 1);
            CHECK_STATUS(zt_component_read(f, &o, ci.role, ci.role_len, bufs[k], need, &got), ZT_OK);
            parts[k].role = ci.role;
            parts[k].role_len = ci.role_len;
            parts[k].dtype = ci.dtype;
            parts[k].logical_type = ci.logical_type;
            parts[k].logical_type_len = ci.logical_type_len;
            parts[k].data = bufs[k];
            parts[k].len = got;
            if (k == 0) {
                opts.encoding = ci.encoding;
                if (ci.digest_len > 7 && memcmp(ci.digest, "sha256:", 7) == 0)
                    opts.digest = ZT_DIGEST_SHA256;
                else if (ci.digest_len > 7 && memcmp(ci.digest, "crc32c:", 7) == 0)
                    opts.digest = ZT_DIGEST_CRC32C;
            }
        }
        size_t na = 0;
        for (size_t k = 0; k < oi.attribute_count; k++) {
            CHECK_STATUS(zt_attribute_at(f, &o, k, &a), ZT_OK);
            if (!a.key)
                continue;
            memset(&attrs[na], 0, sizeof attrs[na]);
            attrs[na].key = a.key;
            attrs[na].key_len = a.key_len;
            attrs[na].kind = ZT_ATTR_CBOR;
            attrs[na].data = a.cbor;
            attrs[na].data_len = a.cbor_len;
            na++;
        }
        opts.attributes = attrs;
        opts.attribute_count = na;
        CHECK_STATUS(zt_writer_add_object(w, oi.name, oi.name_len, oi.format, oi.format_len, dims, ndim, parts,
                                          oi.component_count, &opts),
                     ZT_OK);
        for (size_t k = 0; k < oi.component_count; k++) free(bufs[k]);
    }
    CHECK_STATUS(zt_writer_finish(w), ZT_OK);

    /* Read the copy back: the same objects, bit for bit. */
    zt_file *c = open_ok(dst, 0);
    CHECK(zt_object_count(c) == zt_object_count(f));
    CHECK_STATUS(zt_verify(c, 0), ZT_OK);
    size_t nc = 0;
    CHECK_STATUS(zt_attribute_count(c, NULL, &nc), ZT_OK);
    CHECK(nc == n);
    for (size_t i = 0; i < n && i < nc; i++) {
        zt_attribute b;
        CHECK_STATUS(zt_attribute_at(f, NULL, i, &a), ZT_OK);
        CHECK_STATUS(zt_attribute_at(c, NULL, i, &b), ZT_OK);
        CHECK(a.cbor_len == b.cbor_len && memcmp(a.cbor, b.cbor, a.cbor_len) == 0);
        CHECK(a.key_cbor_len == b.key_cbor_len && memcmp(a.key_cbor, b.key_cbor, a.key_cbor_len) == 0);
    }
    for (size_t i = 0; i < zt_object_count(f) && i < zt_object_count(c); i++) {
        zt_object o, oc; /* the same object in each handle */
        zt_object_info x, y;
        CHECK_STATUS(zt_object_at(f, i, &o), ZT_OK);
        CHECK_STATUS(zt_object_at(c, i, &oc), ZT_OK);
        CHECK_STATUS(zt_object_get_info(f, &o, &x), ZT_OK);
        CHECK_STATUS(zt_object_get_info(c, &oc, &y), ZT_OK);
        CHECK(x.name_len == y.name_len && memcmp(x.name, y.name, x.name_len) == 0);
        CHECK(x.format_len == y.format_len && memcmp(x.format, y.format, x.format_len) == 0);
        CHECK(x.format_kind == y.format_kind && x.ndim == y.ndim && x.numel == y.numel);
        CHECK(x.component_count == y.component_count && x.attribute_count == y.attribute_count);
        uint64_t d1[16], d2[16];
        size_t n1 = 0, n2 = 0;
        CHECK_STATUS(zt_object_shape(f, &o, d1, 16, &n1), ZT_OK);
        CHECK_STATUS(zt_object_shape(c, &oc, d2, 16, &n2), ZT_OK);
        CHECK(n1 == n2 && memcmp(d1, d2, n1 * sizeof d1[0]) == 0);
        for (size_t k = 0; k < x.attribute_count && k < y.attribute_count; k++) {
            zt_attribute b;
            CHECK_STATUS(zt_attribute_at(f, &o, k, &a), ZT_OK);
            CHECK_STATUS(zt_attribute_at(c, &oc, k, &b), ZT_OK);
            CHECK(a.cbor_len == b.cbor_len && memcmp(a.cbor, b.cbor, a.cbor_len) == 0);
        }
        for (size_t k = 0; k < x.component_count && k < y.component_count; k++) {
            zt_component_info p, q;
            CHECK_STATUS(zt_component_at(f, &o, k, &p), ZT_OK);
            CHECK_STATUS(zt_component_at(c, &oc, k, &q), ZT_OK);
            CHECK(p.role_len == q.role_len && memcmp(p.role, q.role, p.role_len) == 0);
            CHECK(p.dtype == q.dtype && p.logical_type_len == q.logical_type_len);
            CHECK(p.logical_type_len == 0 || memcmp(p.logical_type, q.logical_type, p.logical_type_len) == 0);
            CHECK(q.offset % 64 == 0 && !q.big_endian);
            size_t la = 0, lb = 0;
            zt_component_read(f, &o, p.role, p.role_len, NULL, 0, &la);
            zt_component_read(c, &oc, q.role, q.role_len, NULL, 0, &lb);
            CHECK(la == lb);
            void *ba = malloc(la ? la : 1), *bb = malloc(lb ? lb : 1);
            CHECK_STATUS(zt_component_read(f, &o, p.role, p.role_len, ba, la, &la), ZT_OK);
            CHECK_STATUS(zt_component_read(c, &oc, q.role, q.role_len, bb, lb, &lb), ZT_OK);
            CHECK(la == lb && memcmp(ba, bb, la) == 0);
            free(ba);
            free(bb);
        }
    }
    zt_close(c);
    zt_close(f);
}

/* Files written through the C API read back bit for bit; the writer is
 * deterministic (the same calls give the same bytes). */
static void test_write_roundtrip(void) {
    static const char *sources[] = {"v1.2/dense_all_dtypes.zt", "v1.2/zstd.zt",       "v1.2/fp8_complex.zt",
                                    "v1.2/checksums.zt",        "v1.2/quantized.zt",  "v1.2/sparse.zt",
                                    "v1.2/attributes.zt",       "v1.2/extensions.zt", "v1.2/names.zt",
                                    "v1.2/scalars_zero_size.zt", "v1.2/empty.zt",     "v0.1/dense_all_dtypes.zt"};
    for (size_t i = 0; i < sizeof sources / sizeof sources[0]; i++) {
        const char *dst = work("copy.zt");
        copy_through_writer(fixture(sources[i]), dst);
        /* Twice: byte-identical files. */
        const char *dst2 = work("copy2.zt");
        copy_through_writer(fixture(sources[i]), dst2);
        size_t l1 = 0, l2 = 0;
        uint8_t *b1 = slurp(dst, &l1), *b2 = slurp(dst2, &l2);
        checks++;
        if (!b1 || !b2 || l1 != l2 || memcmp(b1, b2, l1) != 0) {
            failures++;
            fprintf(stderr, "copy of %s: two writes differ\n", sources[i]);
        }
        free(b1);
        free(b2);
    }
    copy_through_writer(sample("good/attributes_all_kinds.zt"), work("copy.zt"));

    /* Every dtype, odd bit patterns, raw and zstd, both digests, from
     * memory too: what comes back is exactly what went in. */
    uint8_t pattern[256];
    for (int i = 0; i < 256; i++) pattern[i] = (uint8_t)(i * 37 + 11);
    pattern[0] = 0; /* bool bytes must be 0 or 1 */
    pattern[1] = 1;
    const char *path = work("bits.zt");
    zt_writer *w = writer_ok(path);
    for (uint32_t d = 0; d <= ZT_DTYPE_BOOL; d++) {
        for (uint32_t enc = 0; enc < 2; enc++) {
            char name[32];
            snprintf(name, sizeof name, "%s_%s", zt_dtype_name(d), enc ? "zstd" : "raw");
            size_t width = zt_dtype_size(d);
            uint64_t count = (d == ZT_DTYPE_BOOL) ? 2 : 256 / width;
            zt_write_options o = no_options();
            o.encoding = enc;
            o.zstd_level = enc ? -5 : 0;
            o.digest = (d % 3 == 0) ? ZT_DIGEST_NONE : (d % 3 == 1) ? ZT_DIGEST_SHA256 : ZT_DIGEST_CRC32C;
            CHECK_STATUS(zt_writer_add_dense(w, name, ZT_NUL_TERMINATED, d, &count, 1, pattern, count * width, &o),
                         ZT_OK);
        }
    }
    CHECK_STATUS(zt_writer_finish(w), ZT_OK);
    size_t len = 0;
    uint8_t *bytes = slurp(path, &len);
    CHECK(bytes != NULL);
    for (int mode = 0; mode < 3 && bytes; mode++) {
        zt_file *f = NULL;
        if (mode == 2)
            CHECK_STATUS(zt_open_mem(bytes, len, &f), ZT_OK);
        else
            f = open_ok(path, mode ? ZT_OPEN_POSITIONAL : 0);
        if (!f)
            continue;
        CHECK(zt_object_count(f) == 26);
        for (size_t i = 0; i < zt_object_count(f); i++) {
            zt_object o;
            zt_component_info ci;
            uint8_t got[256];
            size_t n = 0;
            CHECK_STATUS(zt_object_at(f, i, &o), ZT_OK);
            CHECK_STATUS(zt_component(f, &o, "data", 4, &ci), ZT_OK);
            CHECK(ci.dtype == i / 2 && ci.encoding == i % 2);
            CHECK_STATUS(zt_component_read(f, &o, "data", 4, got, sizeof got, &n), ZT_OK);
            CHECK(n == (ci.dtype == ZT_DTYPE_BOOL ? 2 : 256) && memcmp(got, pattern, n) == 0);
        }
        CHECK_STATUS(zt_verify(f, 0), ZT_OK);
        zt_close(f);
    }
    free(bytes);
}

/* Writers in several threads at once, one each; last errors stay per thread. */
struct writer_job {
    int id;
    int failures;
};

static void *writer_thread(void *arg) {
    struct writer_job *job = arg;
    char path[4096], name[64];
    snprintf(path, sizeof path, "%s/thread-%d.zt", workdir, job->id);
    zt_writer *w = NULL;
    if (create_v1_2(path, &w) != ZT_OK) /* objects zstd and raw, in any order */
        return job->failures++, NULL;
    int64_t v[64];
    for (int k = 0; k < 20; k++) {
        for (int i = 0; i < 64; i++) v[i] = job->id * 1000 + k * 64 + i;
        snprintf(name, sizeof name, "t%d_%d", job->id, k);
        uint64_t n = 64;
        zt_write_options o = no_options();
        o.encoding = k % 2;
        if (zt_writer_add_dense(w, name, ZT_NUL_TERMINATED, ZT_DTYPE_I64, &n, 1, v, sizeof v, &o) != ZT_OK)
            job->failures++;
        /* A refusal naming this thread's object; the message is this thread's. */
        if (zt_writer_add_dense(w, name, ZT_NUL_TERMINATED, ZT_DTYPE_I64, &n, 1, v, sizeof v, &o) != ZT_ERR_FORMAT ||
            strstr(zt_last_error(), name) == NULL)
            job->failures++;
    }
    if (zt_writer_finish(w) != ZT_OK)
        job->failures++;
    return NULL;
}

static void test_write_threads(void) {
    enum { N = 4 };
    struct writer_job jobs[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        jobs[i].id = i;
        jobs[i].failures = 0;
        CHECK(pthread_create(&t[i], NULL, writer_thread, &jobs[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].failures == 0);
        char path[4096];
        snprintf(path, sizeof path, "%s/thread-%d.zt", workdir, i);
        zt_file *f = open_ok(path, 0);
        CHECK(zt_object_count(f) == 20);
        zt_object o;
        int64_t v[64];
        size_t n = 0;
        CHECK_STATUS(zt_find(f, "t0_19", ZT_NUL_TERMINATED, &o), i == 0 ? ZT_OK : ZT_ERR_NOT_FOUND);
        CHECK_STATUS(zt_object_at(f, 19, &o), ZT_OK);
        CHECK_STATUS(zt_component_read(f, &o, "data", 4, v, sizeof v, &n), ZT_OK);
        CHECK(n == sizeof v && v[0] == i * 1000 + 19 * 64 && v[63] == i * 1000 + 19 * 64 + 63);
        CHECK_STATUS(zt_verify(f, 0), ZT_OK);
        zt_close(f);
    }
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

    /* The write API, in a fresh directory removed afterwards. */
    const char *tmp = getenv("TMPDIR");
    snprintf(workdir, sizeof workdir, "%s/zt-api-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(workdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_write_errors();
    test_write_publish_and_abort();
    test_write_roundtrip();
    test_write_threads();
    remove_tree(workdir);

    printf("api_test: %d passed, %d failed\n", checks - failures, failures);
    return failures ? 1 : 0;
}
