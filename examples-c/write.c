/*
 * write: write a zTensor v1.2 file with the C API, then read it back and check
 * every value.
 *
 *     write OUT.zt
 *
 * Writes a dense f32 tensor raw and the same tensor zstd-compressed with a
 * SHA-256 digest, a CSR matrix (CRC-32C digests), a 4-bit quantized_group
 * tensor, per-object and file-level attributes. The file appears at OUT.zt
 * only when zt_writer_finish() succeeds (temporary file + atomic rename).
 * It is then reopened with the read API: shapes, dtypes, encodings,
 * digests, every element (bit for bit) and every attribute are compared
 * with what was written, and zt_verify() checks digests and data rules.
 *
 * Exit status: 0 when everything matches, 1 otherwise (the reason is
 * printed on stderr), 2 on a usage error.
 */
#include <ztensor.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What is written, kept to compare with what is read. */
static const float weight[2][3] = {{1.0f, -2.5f, 3.25f}, {0.0f, -0.0f, 1e-40f /* subnormal */}};
static const uint64_t weight_shape[2] = {2, 3};

/* A 3 x 4 CSR matrix:  [[1 0 2 0] [0 0 0 0] [0 3 0 4]]. */
static const double csr_values[4] = {1.0, 2.0, 3.0, 4.0};
static const uint64_t csr_indices[4] = {0, 2, 1, 3};
static const uint64_t csr_indptr[4] = {0, 2, 2, 4};

/* A 2 x 16 matrix quantized to 4 bits in groups of 16: 8 values per i32,
 * one scale and one zero point per group. */
static const int32_t q_packed[4] = {0x76543210, (int32_t)0xfedcba98, 0x01234567, (int32_t)0x89abcdef};
static const float q_scales[2] = {0.125f, 0.5f};
static const uint8_t q_zeros[2] = {8, 7};
static const uint64_t q_shape[2] = {2, 16};

static int failures;

#define EXPECT(cond)                                                                                 \
    do {                                                                                             \
        if (!(cond)) {                                                                               \
            failures++;                                                                              \
            fprintf(stderr, "write.c:%d: check failed: %s (last error: %s)\n", __LINE__, #cond,     \
                    zt_last_error());                                                                \
        }                                                                                            \
    } while (0)

/* Stop on a failed call: print the library's message. */
#define TRY(call)                                                                                    \
    do {                                                                                             \
        zt_status s_ = (call);                                                                       \
        if (s_ != ZT_OK) {                                                                           \
            fprintf(stderr, "write: %s failed: %s: %s\n", #call, zt_status_str(s_), zt_last_error()); \
            goto fail;                                                                               \
        }                                                                                            \
    } while (0)

static int str_eq(const char *p, size_t n, const char *want) {
    return p != NULL && n == strlen(want) && memcmp(p, want, n) == 0;
}

static int write_file(const char *path) {
    zt_writer *w = NULL;
    /* This example writes v1.2, for readers of the 1.x generation: its
     * per-object zstd, CRC-32C and quantized_group are v1.2's, and its
     * objects are not in name order. zt_writer_create writes format v2
     * (canonical form); v2_write_test.c writes every v2 layout. */
    zt_writer_options v1;
    TRY(zt_writer_options_init(&v1));
    v1.format_version = ZT_FORMAT_VERSION_1_2;
    TRY(zt_writer_create_with_options(path, &v1, &w));

    /* File-level attributes: typed setters. */
    TRY(zt_writer_set_attribute_text(w, "framework", ZT_NUL_TERMINATED, "examples-c", ZT_NUL_TERMINATED));
    TRY(zt_writer_set_attribute_int(w, "epoch", ZT_NUL_TERMINATED, -1));
    TRY(zt_writer_set_attribute_float(w, "learning_rate", ZT_NUL_TERMINATED, 0.5));
    TRY(zt_writer_set_attribute_bool(w, "trained", ZT_NUL_TERMINATED, true));
    /* Anything else as one pre-encoded CBOR item: here the array [1, 2, 3]. */
    static const uint8_t cbor_list[] = {0x83, 0x01, 0x02, 0x03};
    TRY(zt_writer_set_attribute_cbor(w, "sizes", ZT_NUL_TERMINATED, cbor_list, sizeof cbor_list));

    /* Dense f32, raw, with per-object attributes. Zeroed options are the defaults. */
    zt_write_attribute attrs[2];
    memset(attrs, 0, sizeof attrs);
    attrs[0].key = "layer";
    attrs[0].key_len = ZT_NUL_TERMINATED;
    attrs[0].kind = ZT_ATTR_INT;
    attrs[0].int_value = 3;
    attrs[1].key = "note";
    attrs[1].key_len = ZT_NUL_TERMINATED;
    attrs[1].kind = ZT_ATTR_TEXT;
    attrs[1].data = "raw";
    attrs[1].data_len = ZT_NUL_TERMINATED;
    zt_write_options raw;
    memset(&raw, 0, sizeof raw);
    raw.attributes = attrs;
    raw.attribute_count = 2;
    TRY(zt_writer_add_dense(w, "weight", ZT_NUL_TERMINATED, ZT_DTYPE_F32, weight_shape, 2, weight, sizeof weight,
                            &raw));

    /* The same tensor, zstd-compressed, with a SHA-256 digest. */
    zt_write_options zstd;
    memset(&zstd, 0, sizeof zstd);
    zstd.encoding = ZT_ENCODING_ZSTD;
    zstd.zstd_level = 19;
    zstd.digest = ZT_DIGEST_SHA256;
    TRY(zt_writer_add_dense(w, "weight_zstd", ZT_NUL_TERMINATED, ZT_DTYPE_F32, weight_shape, 2, weight,
                            sizeof weight, &zstd));

    /* A CSR matrix; indices are uint64_t in host order. */
    zt_write_options crc;
    memset(&crc, 0, sizeof crc);
    crc.digest = ZT_DIGEST_CRC32C;
    TRY(zt_writer_add_sparse_csr(w, "adjacency", ZT_NUL_TERMINATED, ZT_DTYPE_F64, 3, 4, csr_values,
                                 sizeof csr_values, csr_indices, 4, csr_indptr, 4, &crc));

    /* A quantized_group tensor: three components, parameters as arguments. */
    zt_write_component packed = {NULL, 0, ZT_DTYPE_I32, NULL, 0, q_packed, sizeof q_packed};
    zt_write_component scales = {"scales", ZT_NUL_TERMINATED, ZT_DTYPE_F32, NULL, 0, q_scales, sizeof q_scales};
    zt_write_component zeros = {NULL, 0, ZT_DTYPE_U8, NULL, 0, q_zeros, sizeof q_zeros};
    TRY(zt_writer_add_quantized_group(w, "q", ZT_NUL_TERMINATED, q_shape, 2, &packed, &scales, &zeros, 4, 16,
                                      "8_per_i32", ZT_NUL_TERMINATED, NULL));

    /* Publish: the file appears at `path` now. This frees the writer. */
    zt_writer *done = w;
    w = NULL;
    TRY(zt_writer_finish(done));
    return 0;

fail:
    zt_writer_abort(w); /* removes the temporary file; NULL is fine */
    return 1;
}

/* Read component `role` of `o` into a new buffer; NULL on failure. */
static void *read_all(const zt_file *f, const zt_object *o, const char *role, size_t *len) {
    size_t need = 0;
    zt_status s = zt_component_read(f, o, role, ZT_NUL_TERMINATED, NULL, 0, &need);
    if (s != ZT_OK && s != ZT_ERR_BUFFER_TOO_SMALL)
        return NULL;
    void *buf = malloc(need ? need : 1);
    if (buf && zt_component_read(f, o, role, ZT_NUL_TERMINATED, buf, need, len) != ZT_OK) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

/* Component `role` of `o` decodes to exactly `want` (`len` bytes). */
static void expect_component(const zt_file *f, const zt_object *o, const char *role, zt_dtype dtype,
                             zt_encoding encoding, const char *digest_prefix, const void *want, size_t len) {
    zt_component_info ci;
    EXPECT(zt_component(f, o, role, ZT_NUL_TERMINATED, &ci) == ZT_OK);
    EXPECT(ci.dtype == dtype && ci.encoding == encoding);
    EXPECT(ci.has_decoded_length && ci.decoded_length == len);
    if (digest_prefix)
        EXPECT(ci.digest != NULL && ci.digest_len > strlen(digest_prefix) &&
               memcmp(ci.digest, digest_prefix, strlen(digest_prefix)) == 0);
    else
        EXPECT(ci.digest == NULL);
    size_t n = 0;
    void *got = read_all(f, o, role, &n);
    EXPECT(got != NULL && n == len && memcmp(got, want, len) == 0);
    free(got);
}

static void expect_shape(const zt_file *f, const zt_object *o, const uint64_t *want, size_t ndim) {
    uint64_t dims[8];
    size_t n = 0;
    EXPECT(zt_object_shape(f, o, dims, 8, &n) == ZT_OK);
    EXPECT(n == ndim && memcmp(dims, want, ndim * sizeof *want) == 0);
}

static int check_file(const char *path) {
    zt_file *f;
    zt_status s = zt_open(path, 0, &f);
    if (s != ZT_OK) {
        fprintf(stderr, "write: cannot reopen %s: %s: %s\n", path, zt_status_str(s), zt_last_error());
        return 1;
    }
    zt_file_info fi;
    EXPECT(zt_file_get_info(f, &fi) == ZT_OK);
    EXPECT(fi.version_major == 1 && fi.version_minor == 2);
    EXPECT(fi.object_count == 4 && fi.attribute_count == 5);

    /* Objects come back in the order they were added. */
    static const char *names[4] = {"weight", "weight_zstd", "adjacency", "q"};
    for (size_t i = 0; i < 4; i++) {
        zt_object o;
        const char *p;
        size_t n;
        EXPECT(zt_object_at(f, i, &o) == ZT_OK && zt_object_name(f, &o, &p, &n) == ZT_OK && str_eq(p, n, names[i]));
    }

    /* File attributes. */
    zt_attribute a;
    EXPECT(zt_attribute_find(f, NULL, "framework", ZT_NUL_TERMINATED, &a) == ZT_OK && a.kind == ZT_VALUE_TEXT &&
           str_eq((const char *)a.data, a.data_len, "examples-c"));
    EXPECT(zt_attribute_find(f, NULL, "epoch", ZT_NUL_TERMINATED, &a) == ZT_OK && a.kind == ZT_VALUE_NEGINT &&
           a.has_int && a.int_value == -1);
    EXPECT(zt_attribute_find(f, NULL, "learning_rate", ZT_NUL_TERMINATED, &a) == ZT_OK &&
           a.kind == ZT_VALUE_FLOAT && a.float_value == 0.5);
    EXPECT(zt_attribute_find(f, NULL, "trained", ZT_NUL_TERMINATED, &a) == ZT_OK && a.kind == ZT_VALUE_BOOL &&
           a.bool_value);
    EXPECT(zt_attribute_find(f, NULL, "sizes", ZT_NUL_TERMINATED, &a) == ZT_OK && a.kind == ZT_VALUE_ARRAY &&
           a.count == 3 && a.cbor_len == 4 && memcmp(a.cbor, "\x83\x01\x02\x03", 4) == 0);

    /* Dense, raw: zero-copy, 64-byte aligned, the very bits written. */
    zt_object o;
    EXPECT(zt_find(f, "weight", ZT_NUL_TERMINATED, &o) == ZT_OK);
    expect_shape(f, &o, weight_shape, 2);
    expect_component(f, &o, "data", ZT_DTYPE_F32, ZT_ENCODING_RAW, "crc32c:0x", weight, sizeof weight); /* v1.2's default */
    const uint8_t *ptr = NULL;
    size_t len = 0;
    EXPECT(zt_component_ptr(f, &o, "data", 4, &ptr, &len) == ZT_OK);
    EXPECT(len == sizeof weight && ptr != NULL && (uintptr_t)ptr % 64 == 0 && memcmp(ptr, weight, len) == 0);
    EXPECT(zt_attribute_find(f, &o, "layer", ZT_NUL_TERMINATED, &a) == ZT_OK && a.kind == ZT_VALUE_UINT &&
           a.uint_value == 3);
    EXPECT(zt_attribute_find(f, &o, "note", ZT_NUL_TERMINATED, &a) == ZT_OK &&
           str_eq((const char *)a.data, a.data_len, "raw"));

    /* Dense, zstd + SHA-256: decoded to the same bits; no zero-copy view. */
    EXPECT(zt_find(f, "weight_zstd", ZT_NUL_TERMINATED, &o) == ZT_OK);
    expect_shape(f, &o, weight_shape, 2);
    expect_component(f, &o, "data", ZT_DTYPE_F32, ZT_ENCODING_ZSTD, "sha256:", weight, sizeof weight);
    EXPECT(zt_component_ptr(f, &o, "data", 4, &ptr, &len) == ZT_ERR_NOT_ZERO_COPY);
    size_t count = 99;
    EXPECT(zt_attribute_count(f, &o, &count) == ZT_OK && count == 0);

    /* CSR. */
    static const uint64_t csr_shape[2] = {3, 4};
    zt_object_info oi;
    EXPECT(zt_find(f, "adjacency", ZT_NUL_TERMINATED, &o) == ZT_OK);
    EXPECT(zt_object_get_info(f, &o, &oi) == ZT_OK && oi.format_kind == ZT_FORMAT_SPARSE_CSR &&
           oi.component_count == 3);
    expect_shape(f, &o, csr_shape, 2);
    expect_component(f, &o, "values", ZT_DTYPE_F64, ZT_ENCODING_RAW, "crc32c:0x", csr_values, sizeof csr_values);
    expect_component(f, &o, "indices", ZT_DTYPE_U64, ZT_ENCODING_RAW, "crc32c:0x", csr_indices, sizeof csr_indices);
    expect_component(f, &o, "indptr", ZT_DTYPE_U64, ZT_ENCODING_RAW, "crc32c:0x", csr_indptr, sizeof csr_indptr);

    /* quantized_group: components and its parameters. */
    EXPECT(zt_find(f, "q", ZT_NUL_TERMINATED, &o) == ZT_OK);
    EXPECT(zt_object_get_info(f, &o, &oi) == ZT_OK && oi.format_kind == ZT_FORMAT_QUANTIZED_GROUP);
    expect_shape(f, &o, q_shape, 2);
    expect_component(f, &o, "packed_weight", ZT_DTYPE_I32, ZT_ENCODING_RAW, "crc32c:0x", q_packed, sizeof q_packed);
    expect_component(f, &o, "scales", ZT_DTYPE_F32, ZT_ENCODING_RAW, "crc32c:0x", q_scales, sizeof q_scales);
    expect_component(f, &o, "zeros", ZT_DTYPE_U8, ZT_ENCODING_RAW, "crc32c:0x", q_zeros, sizeof q_zeros);
    EXPECT(zt_attribute_find(f, &o, "bits", ZT_NUL_TERMINATED, &a) == ZT_OK && a.uint_value == 4);
    EXPECT(zt_attribute_find(f, &o, "group_size", ZT_NUL_TERMINATED, &a) == ZT_OK && a.uint_value == 16);
    EXPECT(zt_attribute_find(f, &o, "packing", ZT_NUL_TERMINATED, &a) == ZT_OK &&
           str_eq((const char *)a.data, a.data_len, "8_per_i32"));

    /* Every digest and data rule. */
    EXPECT(zt_verify(f, ZT_VERIFY_ALL) == ZT_OK);
    zt_close(f);
    return failures ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: write OUT.zt\n");
        return 2;
    }
    if (write_file(argv[1]) != 0)
        return 1;
    if (check_file(argv[1]) != 0) {
        fprintf(stderr, "write: %s: %d checks failed\n", argv[1], failures);
        return 1;
    }
    printf("write: %s written and read back: 4 objects, 5 file attributes, every value matches\n", argv[1]);
    return 0;
}
