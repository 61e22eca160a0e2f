/*
 * v2_write_test: write zTensor format v2 files through the C ABI
 * (zt_writer_create_with_options) with an object of every layout (dense
 * of several dtypes, bool, FP8, empty, scalar, sparse CSR and COO with u64
 * and u32 indices, zt.quant_group/1, zt.mx/1, gguf.q8_0/1, a layout of
 * its own), object and file attributes, then read them back through
 * zt_open (mapped and positional) and check every byte of every part,
 * the component info (encoding, digest, alignment, shard) and zt_verify.
 *
 *     v2_write_test OUT_DIR
 *
 * Files: canonical.zt (v2's default: 64 KiB, xxh3, raw, objects in name
 * order, identical parts sharing one blob) and sharded.zt (4 KiB,
 * sha256, zt.zstd-seekable/1 in small frames, data shards of 12 KiB,
 * objects in another order). Options that do not go together are
 * refused with ZT_ERR_INVALID_ARGUMENT and a message naming them.
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

/* ------------------------------------------------------------------ the model */

enum { N_OBJECTS = 15 };

/* Ascending bytewise name order (canonical form's). */
static const char *const names[N_OBJECTS] = {"bf16",  "bool", "coo",  "coo32", "csr",    "csr32",  "empty",   "f32",
                                            "fp8",   "gguf", "mx",   "quant", "scalar", "tied.a", "tied.b"};

static uint8_t bf16[30], coo_values[12], coo32_values[6], csr_values[24], csr32_values[48], gguf[4 * 34],
    mx_data[64], mx_scales[4], quant_data[1024], quant_scales[32], quant_zeros[8], tied[32];
static const uint8_t bools[7] = {0, 1, 1, 0, 1, 0, 0};
static const uint8_t fp8[3] = {0x38, 0x40, 0xb8};
static const float f32[6] = {1.5f, -2.0f, 1e30f, 0.1f, 1e-40f /* subnormal */, -0.0f};
static const float scalar = 1.5f;
static const uint64_t coo_coords[9] = {1, 0, 4, 0, 0, 1, 2, 1, 0}; /* 3 dims x 3 nonzeros */
static const uint32_t coo_coords32[9] = {1, 0, 4, 0, 0, 1, 2, 1, 0};
static const uint64_t csr_indices[6] = {0, 5, 1, 2, 4, 3};
static const uint64_t csr_indptr[5] = {0, 2, 2, 5, 6};
static const uint32_t csr_indices32[6] = {0, 5, 1, 2, 4, 3};
static const uint32_t csr_indptr32[5] = {0, 2, 2, 5, 6};

static void fill(uint8_t *p, size_t n, uint32_t seed) {
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        p[i] = (uint8_t)(seed >> 24);
    }
}

static void make_model(void) {
    fill(bf16, sizeof bf16, 1);
    fill(coo_values, sizeof coo_values, 2);
    fill(coo32_values, sizeof coo32_values, 3);
    fill(csr_values, sizeof csr_values, 4);
    fill(csr32_values, sizeof csr32_values, 5);
    fill(gguf, sizeof gguf, 6);
    fill(mx_data, sizeof mx_data, 7);
    fill(mx_scales, sizeof mx_scales, 8);
    fill(quant_data, sizeof quant_data, 9);
    fill(quant_scales, sizeof quant_scales, 10);
    fill(quant_zeros, sizeof quant_zeros, 11);
    fill(tied, sizeof tied, 12);
}

/* One part as it must read back. */
typedef struct {
    const char *role;
    const void *data;
    size_t len;
} part_t;

/* The parts of object `i`; returns how many. Index parts are compared as
 * little-endian bytes: this test runs on little-endian hosts. */
static int parts_of(int i, part_t out[3]) {
#define P(k, r, d, l) (out[k] = (part_t){r, d, l})
    switch (i) {
    case 0: P(0, "data", bf16, sizeof bf16); return 1;
    case 1: P(0, "data", bools, sizeof bools); return 1;
    case 2: P(0, "values", coo_values, sizeof coo_values); P(1, "coords", coo_coords, sizeof coo_coords); return 2;
    case 3: P(0, "values", coo32_values, sizeof coo32_values); P(1, "coords", coo_coords32, sizeof coo_coords32); return 2;
    case 4:
        P(0, "values", csr_values, sizeof csr_values);
        P(1, "indices", csr_indices, sizeof csr_indices);
        P(2, "indptr", csr_indptr, sizeof csr_indptr);
        return 3;
    case 5:
        P(0, "values", csr32_values, sizeof csr32_values);
        P(1, "indices", csr_indices32, sizeof csr_indices32);
        P(2, "indptr", csr_indptr32, sizeof csr_indptr32);
        return 3;
    case 6: P(0, "data", NULL, 0); return 1;
    case 7: P(0, "data", f32, sizeof f32); return 1;
    case 8: P(0, "data", fp8, sizeof fp8); return 1;
    case 9: P(0, "data", gguf, sizeof gguf); return 1;
    case 10: P(0, "data", mx_data, sizeof mx_data); P(1, "scales", mx_scales, sizeof mx_scales); return 2;
    case 11:
        P(0, "data", quant_data, sizeof quant_data);
        P(1, "scales", quant_scales, sizeof quant_scales);
        P(2, "zeros", quant_zeros, sizeof quant_zeros);
        return 3;
    case 12: P(0, "data", &scalar, sizeof scalar); return 1;
    default: P(0, "data", tied, sizeof tied); return 1;
    }
#undef P
}

static zt_write_component comp(const char *role, zt_dtype dtype, const char *logical, const void *data, size_t len) {
    zt_write_component c = {0};
    c.role = role;
    c.role_len = ZT_NUL_TERMINATED;
    c.dtype = dtype;
    c.logical_type = logical;
    c.logical_type_len = ZT_NUL_TERMINATED;
    c.data = data;
    c.len = len;
    return c;
}

/* Add object `i` (its name is names[i]). */
static zt_status add(zt_writer *w, int i) {
    const char *n = names[i];
    const size_t N = ZT_NUL_TERMINATED;
    uint64_t shape[3];
    zt_write_options o = {0};
    switch (i) {
    case 0: shape[0] = 3; shape[1] = 5; return zt_writer_add_dense(w, n, N, ZT_DTYPE_BF16, shape, 2, bf16, sizeof bf16, NULL);
    case 1: shape[0] = 7; return zt_writer_add_dense(w, n, N, ZT_DTYPE_BOOL, shape, 1, bools, sizeof bools, NULL);
    case 2:
        shape[0] = 5; shape[1] = 2; shape[2] = 3;
        return zt_writer_add_sparse_coo(w, n, N, ZT_DTYPE_F32, shape, 3, coo_values, sizeof coo_values, coo_coords, 9, NULL);
    case 3:
        shape[0] = 5; shape[1] = 2; shape[2] = 3;
        return zt_writer_add_sparse_coo_u32(w, n, N, ZT_DTYPE_I16, shape, 3, coo32_values, sizeof coo32_values,
                                            coo_coords32, 9, NULL);
    case 4:
        return zt_writer_add_sparse_csr(w, n, N, ZT_DTYPE_F32, 4, 6, csr_values, sizeof csr_values, csr_indices, 6,
                                        csr_indptr, 5, NULL);
    case 5:
        return zt_writer_add_sparse_csr_u32(w, n, N, ZT_DTYPE_F64, 4, 6, csr32_values, sizeof csr32_values,
                                            csr_indices32, 6, csr_indptr32, 5, NULL);
    case 6: shape[0] = 0; shape[1] = 4; return zt_writer_add_dense(w, n, N, ZT_DTYPE_F32, shape, 2, NULL, 0, NULL);
    case 7: {
        zt_write_attribute a[2] = {{0}, {0}};
        a[0].key = "origin"; a[0].key_len = N; a[0].kind = ZT_ATTR_TEXT; a[0].data = "c"; a[0].data_len = N;
        a[1].key = "n"; a[1].key_len = N; a[1].kind = ZT_ATTR_INT; a[1].int_value = 3;
        o.attributes = a;
        o.attribute_count = 2;
        shape[0] = 2; shape[1] = 3;
        return zt_writer_add_dense(w, n, N, ZT_DTYPE_F32, shape, 2, f32, sizeof f32, &o);
    }
    case 8:
        o.logical_type = "f8_e4m3fn";
        o.logical_type_len = N;
        shape[0] = 3;
        return zt_writer_add_dense(w, n, N, ZT_DTYPE_U8, shape, 1, fp8, sizeof fp8, &o);
    case 9:
        shape[0] = 2; shape[1] = 64;
        return zt_writer_add_gguf(w, n, N, "q8_0", N, shape, 2, 32, 34, gguf, sizeof gguf, NULL);
    case 10: {
        zt_write_component d = comp(NULL, ZT_DTYPE_U8, "f4_e2m1", mx_data, sizeof mx_data);
        zt_write_component s = comp("scales", ZT_DTYPE_U8, "f8_e8m0", mx_scales, sizeof mx_scales);
        shape[0] = 2; shape[1] = 64;
        return zt_writer_add_mx(w, n, N, shape, 2, 32, -1, &d, &s, NULL);
    }
    case 11: {
        zt_quant_group_params q = {0};
        q.bits = 4;
        q.group_size = 128;
        q.axis = 0;
        q.word = ZT_DTYPE_U32;
        q.order = ZT_QUANT_LSB_FIRST;
        q.scale_form = ZT_QUANT_F16_FACTORS;
        q.zero_point = ZT_QUANT_ZERO_SAME_AS_DATA;
        zt_write_component d = comp("data", ZT_DTYPE_U32, NULL, quant_data, sizeof quant_data);
        zt_write_component s = comp("scales", ZT_DTYPE_F16, NULL, quant_scales, sizeof quant_scales);
        zt_write_component z = comp(NULL, ZT_DTYPE_U32, NULL, quant_zeros, sizeof quant_zeros);
        shape[0] = 256; shape[1] = 8;
        return zt_writer_add_quant_group(w, n, N, shape, 2, &q, &d, &s, &z, NULL);
    }
    case 12: return zt_writer_add_dense(w, n, N, ZT_DTYPE_F32, NULL, 0, &scalar, sizeof scalar, NULL);
    default: shape[0] = 2; shape[1] = 4; return zt_writer_add_dense(w, n, N, ZT_DTYPE_F32, shape, 2, tied, sizeof tied, NULL);
    }
}

/* Whether two files of `dir` hold the same bytes. */
static bool same_bytes(const char *a, const char *b) {
    char pa[4096];
    snprintf(pa, sizeof pa, "%s", path(a));
    FILE *fa = fopen(pa, "rb"), *fb = fopen(path(b), "rb");
    bool same = fa != NULL && fb != NULL;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        same = ca == cb;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* Write the model to `file` with `o` (NULL: the defaults), objects from `first` on (wrapping). */
static bool write_model(const char *file, const zt_writer_options *o, int first) {
    zt_writer *w = NULL;
    CHECK_STATUS(zt_writer_create_with_options(path(file), o, &w), ZT_OK);
    if (!w)
        return false;
    for (int k = 0; k < N_OBJECTS; k++) {
        int i = (first + k) % N_OBJECTS;
        zt_status s = add(w, i);
        if (s != ZT_OK)
            fprintf(stderr, "adding %s: ", names[i]);
        CHECK_STATUS(s, ZT_OK);
    }
    CHECK_STATUS(zt_writer_set_attribute_text(w, "framework", ZT_NUL_TERMINATED, "c", ZT_NUL_TERMINATED), ZT_OK);
    CHECK_STATUS(zt_writer_set_attribute_int(w, "epoch", ZT_NUL_TERMINATED, -7), ZT_OK);
    CHECK_STATUS(zt_writer_set_attribute_float(w, "lr", ZT_NUL_TERMINATED, 0.25), ZT_OK);
    static const uint8_t list[3] = {0x82, 0x01, 0xf6}; /* [1, null] */
    CHECK_STATUS(zt_writer_set_attribute_cbor(w, "list", ZT_NUL_TERMINATED, list, sizeof list), ZT_OK);
    CHECK_STATUS(zt_writer_finish(w), ZT_OK);
    return true;
}

/* ------------------------------------------------------------------ reading back */

static bool text_is(const char *p, size_t n, const char *want) {
    return p && n == strlen(want) && memcmp(p, want, n) == 0;
}

typedef struct {
    uint64_t align;
    const char *digest; /* "xxh3:" or "sha256:" */
    zt_encoding encoding;
    bool sharded;
} expect_t;

static void check_model(const char *file, const expect_t *e, uint32_t flags) {
    zt_file *f = NULL;
    CHECK_STATUS(zt_open(path(file), flags, &f), ZT_OK);
    if (!f)
        return;
    zt_file_info fi;
    CHECK_STATUS(zt_file_get_info(f, &fi), ZT_OK);
    CHECK(fi.version_major == 2 && fi.object_count == N_OBJECTS && fi.attribute_count == 4);
    uint64_t tied_offset[2] = {0, 1};
    for (int i = 0; i < N_OBJECTS; i++) {
        zt_object o;
        CHECK_STATUS(zt_find(f, names[i], ZT_NUL_TERMINATED, &o), ZT_OK);
        part_t parts[3];
        int n = parts_of(i, parts);
        zt_object_info oi;
        CHECK_STATUS(zt_object_get_info(f, &o, &oi), ZT_OK);
        CHECK(oi.component_count == (size_t)n);
        for (int k = 0; k < n; k++) {
            zt_component_info ci;
            CHECK_STATUS(zt_component(f, &o, parts[k].role, ZT_NUL_TERMINATED, &ci), ZT_OK);
            CHECK(ci.encoding == e->encoding);
            CHECK(ci.digest && ci.digest_len > strlen(e->digest) && memcmp(ci.digest, e->digest, strlen(e->digest)) == 0);
            CHECK(ci.offset % e->align == 0);
            /* "00001-of-00002", or "00001-of-00002.1" when written over an
               existing sharded model (the names alternate: atomic publish). */
            CHECK(e->sharded ? ci.shard != NULL && (ci.shard_len == 14 || ci.shard_len == 16) : ci.shard == NULL);
            CHECK(ci.has_decoded_length && ci.decoded_length == parts[k].len);
            if (i >= 13)
                tied_offset[i - 13] = ci.offset;
            size_t need = 1, got = 0;
            CHECK_STATUS(zt_component_read(f, &o, parts[k].role, ZT_NUL_TERMINATED, NULL, 0, &need),
                         parts[k].len ? ZT_ERR_BUFFER_TOO_SMALL : ZT_OK);
            CHECK(need == parts[k].len);
            uint8_t *buf = malloc(need + 1);
            CHECK_STATUS(zt_component_read(f, &o, parts[k].role, ZT_NUL_TERMINATED, buf, need + 1, &got), ZT_OK);
            if (got != parts[k].len || (got && memcmp(buf, parts[k].data, got) != 0))
                fprintf(stderr, "%s: %s/%s reads back differently\n", file, names[i], parts[k].role);
            CHECK(got == parts[k].len && (got == 0 || memcmp(buf, parts[k].data, got) == 0));
            free(buf);
        }
    }
    /* Canonical form stores identical parts once. */
    if (e->align == 65536)
        CHECK(tied_offset[0] == tied_offset[1]);
    /* The layouts and attributes as written. */
    zt_object o;
    zt_object_info oi;
    CHECK_STATUS(zt_find(f, "quant", 5, &o), ZT_OK);
    CHECK_STATUS(zt_object_get_info(f, &o, &oi), ZT_OK);
    CHECK(text_is(oi.format, oi.format_len, "zt.quant_group/1") && oi.attribute_count == 6);
    CHECK_STATUS(zt_find(f, "gguf", 4, &o), ZT_OK);
    CHECK_STATUS(zt_object_get_info(f, &o, &oi), ZT_OK);
    CHECK(text_is(oi.format, oi.format_len, "gguf.q8_0/1") && oi.numel == 128);
    zt_attribute a;
    CHECK_STATUS(zt_find(f, "f32", 3, &o), ZT_OK);
    CHECK_STATUS(zt_attribute_find(f, &o, "origin", 6, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_TEXT && a.data_len == 1 && a.data[0] == 'c');
    CHECK_STATUS(zt_attribute_find(f, NULL, "epoch", 5, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_NEGINT && a.has_int && a.int_value == -7);
    CHECK_STATUS(zt_attribute_find(f, NULL, "list", 4, &a), ZT_OK);
    CHECK(a.kind == ZT_VALUE_ARRAY && a.count == 2);
    CHECK_STATUS(zt_verify(f, 0), ZT_OK);
    zt_close(f);
}

/* ------------------------------------------------------------------ refusals */

static void refused(const zt_writer_options *o, const char *word) {
    zt_writer *w = (zt_writer *)&w; /* not NULL: set to NULL on failure */
    CHECK_STATUS(zt_writer_create_with_options(path("refused.zt"), o, &w), ZT_ERR_INVALID_ARGUMENT);
    CHECK(w == NULL);
    CHECK(strstr(zt_last_error(), word) != NULL);
}

static void refusals(void) {
    zt_writer_options v2;
    CHECK_STATUS(zt_writer_options_init(&v2), ZT_OK);
    CHECK_STATUS(zt_writer_options_init(NULL), ZT_ERR_INVALID_ARGUMENT);
    v2.format_version = ZT_FORMAT_VERSION_2;
    zt_writer_options o = v2;
    o.canonical = ZT_CANONICAL_YES;
    o.alignment = 4096;
    refused(&o, "alignment");
    o = v2;
    o.canonical = ZT_CANONICAL_YES;
    o.compression = ZT_ENCODING_ZSTD_SEEKABLE;
    refused(&o, "compression");
    o = v2;
    o.alignment = 1000;
    refused(&o, "power of two");
    o = v2;
    o.digest = ZT_WRITER_DIGEST_CRC32C;
    refused(&o, "CRC32C");
    o = v2;
    o.format_version = ZT_FORMAT_VERSION_1_2;
    o.shard_size = 1 << 20;
    refused(&o, "shard_size");
    o = v2;
    o.struct_size = 0; /* zeroed without zt_writer_options_init */
    refused(&o, "struct_size");

    /* A v1.2 writer refuses v2 layouts and stays usable. */
    zt_writer *w = NULL;
    zt_writer_options v1;
    CHECK_STATUS(zt_writer_options_init(&v1), ZT_OK);
    v1.format_version = ZT_FORMAT_VERSION_1_2;
    CHECK_STATUS(zt_writer_create_with_options(path("v1.zt"), &v1, &w), ZT_OK);
    uint8_t data[34] = {0};
    uint64_t shape[1] = {32};
    CHECK_STATUS(zt_writer_add_gguf(w, "g", 1, "q8_0", 4, shape, 1, 32, 34, data, 34, NULL), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "v2") != NULL);
    CHECK_STATUS(zt_writer_add_dense(w, "d", 1, ZT_DTYPE_U8, shape, 1, data, 32, NULL), ZT_OK);
    CHECK_STATUS(zt_writer_finish(w), ZT_OK);
    zt_file *f = NULL;
    zt_file_info fi;
    CHECK_STATUS(zt_open(path("v1.zt"), 0, &f), ZT_OK);
    CHECK_STATUS(zt_file_get_info(f, &fi), ZT_OK);
    CHECK(fi.version_major == 1 && fi.version_minor == 2 && fi.object_count == 1);
    zt_close(f);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: v2_write_test OUT_DIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    make_model();

    zt_writer_options o;
    CHECK_STATUS(zt_writer_options_init(&o), ZT_OK);
    o.format_version = ZT_FORMAT_VERSION_2; /* canonical by default */
    if (write_model("canonical.zt", &o, 0)) {
        expect_t e = {65536, "xxh3:", ZT_ENCODING_RAW, false};
        check_model("canonical.zt", &e, 0);
        check_model("canonical.zt", &e, ZT_OPEN_POSITIONAL);
    }
    /* No options (zt_writer_create's): the same canonical v2 bytes. */
    if (write_model("default.zt", NULL, 0))
        CHECK(same_bytes("canonical.zt", "default.zt"));

    CHECK_STATUS(zt_writer_options_init(&o), ZT_OK);
    o.format_version = ZT_FORMAT_VERSION_2;
    o.canonical = ZT_CANONICAL_NO;
    o.alignment = 4096;
    o.digest = ZT_WRITER_DIGEST_SHA256;
    o.compression = ZT_ENCODING_ZSTD_SEEKABLE;
    o.frame_size = 64;
    o.shard_size = 12288;
    if (write_model("sharded.zt", &o, 7)) {
        expect_t e = {4096, "sha256:", ZT_ENCODING_ZSTD_SEEKABLE, true};
        check_model("sharded.zt", &e, 0);
        check_model("sharded.zt", &e, ZT_OPEN_POSITIONAL);
    }

    refusals();

    printf("v2_write_test: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
