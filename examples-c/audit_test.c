/*
 * audit_test: the findings of the C ABI audit (issue 17) and of users'
 * reports (issue 16: verify-on-read, strict verification, messages), each
 * as a check that failed before it was fixed.
 *
 *     audit_test sizing    the sizing call on a 4 GiB zstd bomb stays small
 *     audit_test checks    everything else (fast; also run under valgrind)
 *
 * Files are written in a fresh directory under $TMPDIR, removed afterwards.
 * Prints one line per failed check and a summary; exits 0 when all pass.
 */
#define _GNU_SOURCE
#include <ztensor.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"

/* ---------------------------------------------------------------- helpers */

static char workdir[2048];

/* `workdir/rel`, in one of four rotating buffers: for arguments. Paths
 * kept longer are declared with PATH. */
static const char *work(const char *rel) {
    static char bufs[4][4096];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "%s/%s", workdir, rel);
    return b;
}

#define PATH(var, rel)  \
    char var[4096]; \
    snprintf(var, sizeof var, "%s/%s", workdir, rel)

static int write_file(const char *path, const uint8_t *p, size_t n) {
    FILE *out = fopen(path, "wb");
    if (!out)
        return 0;
    int ok = fwrite(p, 1, n, out) == n;
    return fclose(out) == 0 && ok;
}

/* Peak resident memory of this process so far, in bytes. */
static long peak_rss(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss * 1024L;
}

/* Tiny CBOR writer, enough for a v1.1 manifest. */
typedef struct {
    uint8_t b[512];
    size_t n;
} cbor;

static void cbor_head(cbor *c, uint8_t major, uint64_t v) {
    if (v < 24) {
        c->b[c->n++] = (uint8_t)(major << 5 | v);
    } else if (v < 256) {
        c->b[c->n++] = (uint8_t)(major << 5 | 24);
        c->b[c->n++] = (uint8_t)v;
    } else {
        c->b[c->n++] = (uint8_t)(major << 5 | 26);
        for (int i = 3; i >= 0; i--)
            c->b[c->n++] = (uint8_t)(v >> (8 * i));
    }
}

static void cbor_text(cbor *c, const char *s) {
    cbor_head(c, 3, strlen(s));
    memcpy(c->b + c->n, s, strlen(s));
    c->n += strlen(s);
}

/*
 * The audit's file: a v1.1 opaque object whose zstd component declares no
 * decoded size, one frame of 32,767 RLE blocks of 128 KiB (4 GiB decoded)
 * in 131,074 stored bytes.
 */
static int write_bomb(const char *path) {
    enum { BLOCKS = 32767, STORED = 6 + 4 * BLOCKS };
    cbor m = {{0}, 0};
    cbor_head(&m, 5, 2);
    cbor_text(&m, "version");
    cbor_text(&m, "1.1.0");
    cbor_text(&m, "objects");
    cbor_head(&m, 5, 1);
    cbor_text(&m, "blob");
    cbor_head(&m, 5, 3);
    cbor_text(&m, "shape");
    cbor_head(&m, 4, 0);
    cbor_text(&m, "format");
    cbor_text(&m, "opaque");
    cbor_text(&m, "components");
    cbor_head(&m, 5, 1);
    cbor_text(&m, "blob");
    cbor_head(&m, 5, 4);
    cbor_text(&m, "dtype");
    cbor_text(&m, "u8");
    cbor_text(&m, "offset");
    cbor_head(&m, 0, 64);
    cbor_text(&m, "length");
    cbor_head(&m, 0, STORED);
    cbor_text(&m, "encoding");
    cbor_text(&m, "zstd");

    size_t total = 64 + STORED + m.n + 16;
    uint8_t *f = calloc(1, total);
    if (!f)
        return 0;
    memcpy(f, "ZTEN1000", 8);
    uint8_t *z = f + 64;
    memcpy(z, "\x28\xb5\x2f\xfd\x00\x38", 6);
    for (int i = 0; i < BLOCKS; i++)
        memcpy(z + 6 + 4 * i, i == BLOCKS - 1 ? "\x03\x00\x10\x01" : "\x02\x00\x10\x01", 4);
    memcpy(f + 64 + STORED, m.b, m.n);
    for (int i = 0; i < 8; i++)
        f[64 + STORED + m.n + i] = (uint8_t)((uint64_t)m.n >> (8 * i));
    memcpy(f + total - 8, "ZTEN1000", 8);
    int ok = write_file(path, f, total);
    free(f);
    return ok;
}

/* A 2x4 CSR matrix (values 1, 2 at columns 0 and 3): raw, no digest. */
static int write_csr(const char *path) {
    zt_writer *w = NULL;
    if (create_v1_2_plain(path, &w) != ZT_OK)
        return 0;
    float values[2] = {1.0f, 2.0f};
    uint64_t indices[2] = {0, 3}, indptr[3] = {0, 1, 2};
    zt_status s = zt_writer_add_sparse_csr(w, "m", ZT_NUL_TERMINATED, ZT_DTYPE_F32, 2, 4, values, sizeof values,
                                           indices, 2, indptr, 3, NULL);
    if (s != ZT_OK) {
        zt_writer_abort(w);
        return 0;
    }
    return zt_writer_finish(w) == ZT_OK;
}

/* `good` with its column 3 made 99: the same manifest, corrupt data. */
static int write_corrupt_copy(const char *good, const char *bad) {
    zt_file *f = NULL;
    if (zt_open(good, 0, &f) != ZT_OK)
        return 0;
    zt_object o;
    zt_component_info ci;
    int ok = zt_find(f, "m", 1, &o) == ZT_OK && zt_component(f, &o, "indices", ZT_NUL_TERMINATED, &ci) == ZT_OK;
    zt_close(f);
    size_t n;
    uint8_t *bytes = ok ? read_file(good, &n) : NULL;
    if (!bytes)
        return 0;
    uint64_t col = 99; /* little-endian host assumed, as the C API's data */
    memcpy(bytes + ci.offset + 8, &col, 8);
    ok = write_file(bad, bytes, n);
    free(bytes);
    return ok;
}

/* --------------------------------------------------- 1. bounded sizing */

static void test_sizing(void) {
    PATH(path, "bomb.zt");
    CHECK(write_bomb(path));
    const uint32_t modes[3] = {0, ZT_OPEN_POSITIONAL, 2 /* memory */};
    size_t len;
    uint8_t *bytes = read_file(path, &len);
    CHECK(bytes != NULL);
    for (int m = 0; m < 3 && bytes; m++) {
        zt_file *f = NULL;
        if (m == 2)
            CHECK_STATUS(zt_open_mem(bytes, len, &f), ZT_OK);
        else
            CHECK_STATUS(zt_open(path, modes[m], &f), ZT_OK);
        if (!f)
            continue;
        zt_object o;
        CHECK_STATUS(zt_find(f, "blob", ZT_NUL_TERMINATED, &o), ZT_OK);
        long before = peak_rss();
        size_t need = 0;
        CHECK_STATUS(zt_component_read(f, &o, "blob", 4, NULL, 0, &need), ZT_ERR_BUFFER_TOO_SMALL);
        CHECK(need == (size_t)32767 * 131072);
        uint8_t small[100];
        size_t need2 = 0;
        CHECK_STATUS(zt_component_read(f, &o, "blob", 4, small, sizeof small, &need2), ZT_ERR_BUFFER_TOO_SMALL);
        CHECK(need2 == need);
        long grown = peak_rss() - before;
        printf("sizing, mode %d: answered %zu bytes, peak memory grew by %ld KiB\n", m, need, grown / 1024);
        CHECK(grown < 64L << 20);
        zt_close(f);
    }
    free(bytes);
}

/* ---------------------------------- 2. zt_verify checks the handle's file */

static void test_verify_holds_the_file(void) {
    PATH(good, "good.zt");
    PATH(bad, "bad.zt");
    PATH(p, "p.zt");
    CHECK(write_csr(good));
    CHECK(write_corrupt_copy(good, bad));
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);

    for (int mode = 0; mode < 2; mode++) {
        uint32_t flags = mode ? ZT_OPEN_POSITIONAL : 0;
        zt_file *f = NULL;
        size_t n;
        uint8_t *b;

        /* The corrupt file is found corrupt, and a good one is fine. */
        CHECK_STATUS(zt_open(bad, flags, &f), ZT_OK);
        CHECK_STATUS(zt_verify(f, 0), ZT_ERR_CORRUPT_DATA);
        zt_close(f);
        CHECK_STATUS(zt_open(good, flags, &f), ZT_OK);
        CHECK_STATUS(zt_verify(f, 0), ZT_OK);
        zt_close(f);

        /* Race 1: a good file with the same manifest renamed over the path. */
        b = read_file(bad, &n);
        CHECK(b && write_file(p, b, n));
        free(b);
        CHECK_STATUS(zt_open(p, flags, &f), ZT_OK);
        b = read_file(good, &n);
        CHECK(b && write_file(work("good-copy.zt"), b, n));
        free(b);
        CHECK(rename(work("good-copy.zt"), p) == 0);
        CHECK_STATUS(zt_verify(f, 0), ZT_ERR_CORRUPT_DATA);
        zt_close(f);

        /* Race 2: unlinked. */
        b = read_file(bad, &n);
        CHECK(b && write_file(p, b, n));
        free(b);
        CHECK_STATUS(zt_open(p, flags, &f), ZT_OK);
        CHECK(unlink(p) == 0);
        CHECK_STATUS(zt_verify(f, 0), ZT_ERR_CORRUPT_DATA);
        zt_close(f);

        /* Races 3 and 4: opened by a relative path, then chdir to where the
         * same name is a good file, or to where it does not exist. */
        CHECK(mkdir(work("a"), 0700) == 0 || errno == EEXIST);
        CHECK(mkdir(work("b"), 0700) == 0 || errno == EEXIST);
        CHECK(mkdir(work("c"), 0700) == 0 || errno == EEXIST);
        b = read_file(bad, &n);
        CHECK(b && write_file(work("a/x.zt"), b, n));
        free(b);
        b = read_file(good, &n);
        CHECK(b && write_file(work("b/x.zt"), b, n));
        free(b);
        CHECK(chdir(work("a")) == 0);
        CHECK_STATUS(zt_open("x.zt", flags, &f), ZT_OK);
        CHECK(chdir(work("b")) == 0);
        CHECK_STATUS(zt_verify(f, 0), ZT_ERR_CORRUPT_DATA);
        CHECK(chdir(work("c")) == 0);
        CHECK_STATUS(zt_verify(f, 0), ZT_ERR_CORRUPT_DATA);
        CHECK(chdir(cwd) == 0);
        zt_close(f);
    }

    /* A positional handle is never mapped: a file truncated under it gives
     * ZT_ERR_IO (a map would die with SIGBUS). */
    size_t n;
    uint8_t *b = read_file(good, &n);
    CHECK(b && write_file(p, b, n));
    free(b);
    zt_file *f = NULL;
    CHECK_STATUS(zt_open(p, ZT_OPEN_POSITIONAL, &f), ZT_OK);
    CHECK(truncate(p, 70) == 0);
    CHECK_STATUS(zt_verify(f, 0), ZT_ERR_IO);
    zt_close(f);
}

/* ------------------------------- 3. zt_writer_finish after the rename */

/* This program's fsync: fails on directories while `fail_dir_sync` is set,
 * which makes the writer's last step (syncing the directory after the
 * rename) fail. It interposes the C library's for libztensor too. */
static int fail_dir_sync;

int fsync(int fd) {
    struct stat st;
    if (fail_dir_sync && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EIO;
        return -1;
    }
    return (int)syscall(SYS_fsync, fd);
}

static void test_finish_after_rename(void) {
    PATH(path, "published.zt");
    zt_writer *w = NULL;
    CHECK_STATUS(zt_writer_create(path, &w), ZT_OK);
    float x[2] = {1, 2};
    uint64_t shape[1] = {2};
    CHECK_STATUS(zt_writer_add_dense(w, "x", 1, ZT_DTYPE_F32, shape, 1, x, sizeof x, NULL), ZT_OK);
    fail_dir_sync = 1;
    CHECK_STATUS(zt_writer_finish(w), ZT_ERR_IO);
    fail_dir_sync = 0;
    const char *msg = zt_last_error();
    CHECK(strstr(msg, "published") != NULL && strstr(msg, "nothing was published") == NULL);
    CHECK(strstr(msg, "durab") != NULL);
    zt_file *f = NULL;
    CHECK_STATUS(zt_open(path, 0, &f), ZT_OK);
    CHECK(zt_object_count(f) == 1);
    zt_close(f);
}

/* ------------------------------------- 4. objects belong to their file */

static void test_object_owner(void) {
    PATH(a, "owner-a.zt");
    PATH(b, "owner-b.zt");
    CHECK(write_csr(a));
    CHECK(write_csr(b));
    zt_file *fa = NULL, *fb = NULL;
    CHECK_STATUS(zt_open(a, 0, &fa), ZT_OK);
    CHECK_STATUS(zt_open(b, ZT_OPEN_POSITIONAL, &fb), ZT_OK);
    zt_object oa, ob;
    CHECK_STATUS(zt_object_at(fa, 0, &oa), ZT_OK);
    CHECK_STATUS(zt_find(fb, "m", 1, &ob), ZT_OK);
    zt_object_info info;
    CHECK_STATUS(zt_object_get_info(fa, &oa, &info), ZT_OK);
    CHECK_STATUS(zt_object_get_info(fb, &oa, &info), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "another file") != NULL);
    CHECK_STATUS(zt_object_get_info(fa, &ob, &info), ZT_ERR_INVALID_ARGUMENT);
    zt_component_info ci;
    CHECK_STATUS(zt_component(fb, &oa, "values", 6, &ci), ZT_ERR_INVALID_ARGUMENT);
    size_t n;
    CHECK_STATUS(zt_attribute_count(fb, &oa, &n), ZT_ERR_INVALID_ARGUMENT);
    zt_close(fa);
    zt_close(fb);
}

/* ---------------------------------------- 5. cap is range-checked too */

static void test_cap_range(void) {
    PATH(path, "cap.zt");
    CHECK(write_csr(path));
    zt_file *f = NULL;
    CHECK_STATUS(zt_open(path, 0, &f), ZT_OK);
    zt_object o;
    CHECK_STATUS(zt_object_at(f, 0, &o), ZT_OK);
    uint8_t buf[64];
    size_t n = 7;
    CHECK_STATUS(zt_component_read(f, &o, "values", 6, buf, SIZE_MAX, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK(n == 0);
    CHECK_STATUS(zt_component_read(f, &o, "values", 6, buf, (size_t)PTRDIFF_MAX + 1, &n), ZT_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(zt_component_read(f, &o, "values", 6, buf, sizeof buf, &n), ZT_OK);
    CHECK(n == 8);
    zt_close(f);
}

/* -------------------------------- 7. FIFOs, directories, string lengths */

static void test_not_regular_and_lengths(void) {
    PATH(fifo, "fifo.zt");
    CHECK(mkfifo(fifo, 0600) == 0);
    alarm(20); /* before the fix, zt_open blocked here forever */
    for (int mode = 0; mode < 2; mode++) {
        zt_file *f = (zt_file *)1;
        CHECK_STATUS(zt_open(fifo, mode ? ZT_OPEN_POSITIONAL : 0, &f), ZT_ERR_IO);
        CHECK(f == NULL);
        CHECK(strstr(zt_last_error(), "not a regular file") != NULL);
        CHECK_STATUS(zt_open(workdir, mode ? ZT_OPEN_POSITIONAL : 0, &f), ZT_ERR_IO);
        CHECK(strstr(zt_last_error(), "not a regular file") != NULL);
    }
    alarm(0);

    PATH(path, "names.zt");
    CHECK(write_csr(path));
    zt_file *f = NULL;
    CHECK_STATUS(zt_open(path, 0, &f), ZT_OK);
    zt_object o;
    CHECK_STATUS(zt_find(f, "m", SIZE_MAX - 1, &o), ZT_ERR_INVALID_ARGUMENT);
    CHECK(strstr(zt_last_error(), "is NULL") == NULL && strstr(zt_last_error(), "PTRDIFF_MAX") != NULL);
    CHECK_STATUS(zt_find(NULL, "m", SIZE_MAX - 1, &o), ZT_ERR_INVALID_ARGUMENT);
    zt_close(f);
}

/* ------------------- issue 16: verify-on-read, strict mode, messages */

/* A dense f32 object "x" with a sha256 digest whose algorithm name is
 * then changed to one this library does not know (same length). */
static int write_unknown_digest(const char *path) {
    zt_writer *w = NULL;
    if (create_v1_2(path, &w) != ZT_OK) /* a v1.2 per-object digest */
        return 0;
    float x[4] = {1, 2, 3, 4};
    uint64_t shape[1] = {4};
    zt_write_options o;
    memset(&o, 0, sizeof o);
    o.digest = ZT_DIGEST_SHA256;
    if (zt_writer_add_dense(w, "x", 1, ZT_DTYPE_F32, shape, 1, x, sizeof x, &o) != ZT_OK) {
        zt_writer_abort(w);
        return 0;
    }
    if (zt_writer_finish(w) != ZT_OK)
        return 0;
    size_t n;
    uint8_t *b = read_file(path, &n);
    int ok = 0;
    for (size_t i = 0; b && i + 7 <= n; i++)
        if (memcmp(b + i, "sha256:", 7) == 0) {
            memcpy(b + i, "blake3:", 7);
            ok = 1;
        }
    ok = ok && write_file(path, b, n);
    free(b);
    return ok;
}

static void test_verify_on_read(void) {
    PATH(good, "digest.zt");
    PATH(bad, "digest-bad.zt");
    PATH(unknown, "digest-unknown.zt");
    zt_writer *w = NULL;
    CHECK_STATUS(create_v1_2_plain(good, &w), ZT_OK); /* CRC-32C is v1.2's; "plain" has none */
    float x[4] = {1, 2, 3, 4};
    uint64_t shape[1] = {4};
    zt_write_options o;
    memset(&o, 0, sizeof o);
    o.digest = ZT_DIGEST_CRC32C;
    CHECK_STATUS(zt_writer_add_dense(w, "x", 1, ZT_DTYPE_F32, shape, 1, x, sizeof x, &o), ZT_OK);
    CHECK_STATUS(zt_writer_add_dense(w, "plain", 5, ZT_DTYPE_F32, shape, 1, x, sizeof x, NULL), ZT_OK);
    CHECK_STATUS(zt_writer_finish(w), ZT_OK);
    /* The same file with one data byte changed. */
    size_t n;
    uint8_t *b = read_file(good, &n);
    CHECK(b != NULL);
    if (b) {
        b[64] ^= 1;
        CHECK(write_file(bad, b, n));
    }
    free(b);
    CHECK(write_unknown_digest(unknown));

    for (int mode = 0; mode < 2; mode++) {
        uint32_t flags = mode ? ZT_OPEN_POSITIONAL : 0;
        zt_file *f = NULL;
        zt_object ox, op;
        bool checked = false;
        CHECK_STATUS(zt_open(good, flags, &f), ZT_OK);
        CHECK_STATUS(zt_find(f, "x", 1, &ox), ZT_OK);
        CHECK_STATUS(zt_find(f, "plain", 5, &op), ZT_OK);
        CHECK_STATUS(zt_component_verify(f, &ox, "data", 4, 0, &checked), ZT_OK);
        CHECK(checked);
        CHECK_STATUS(zt_component_verify(f, &op, "data", 4, 0, &checked), ZT_OK);
        CHECK(!checked);
        CHECK_STATUS(zt_component_verify(f, &op, "data", 4, ZT_VERIFY_STRICT, &checked), ZT_ERR_UNSUPPORTED);
        CHECK_STATUS(zt_component_verify(f, &ox, "data", 4, 99, NULL), ZT_ERR_INVALID_ARGUMENT);
        zt_close(f);

        CHECK_STATUS(zt_open(bad, flags, &f), ZT_OK);
        CHECK_STATUS(zt_find(f, "x", 1, &ox), ZT_OK);
        checked = true;
        CHECK_STATUS(zt_component_verify(f, &ox, "data", 4, 0, &checked), ZT_ERR_DIGEST_MISMATCH);
        CHECK(!checked);
        zt_close(f);

        /* An unknown algorithm: counted, and the file is not verified
         * (zt_verify) unless ZT_VERIFY_ALLOW_UNVERIFIABLE; zt_component_verify
         * still fails only when strict. */
        zt_verify_counts c;
        CHECK_STATUS(zt_open(unknown, flags, &f), ZT_OK);
        CHECK_STATUS(zt_find(f, "x", 1, &ox), ZT_OK);
        CHECK_STATUS(zt_component_verify(f, &ox, "data", 4, 0, &checked), ZT_OK);
        CHECK(!checked);
        CHECK_STATUS(zt_component_verify(f, &ox, "data", 4, ZT_VERIFY_STRICT, NULL), ZT_ERR_UNSUPPORTED);
        CHECK_STATUS(zt_verify_report(f, 0, &c), ZT_ERR_UNSUPPORTED);
        CHECK(c.objects == 1 && c.components == 1 && c.unverifiable == 1 && c.digests_checked == 0 && c.problems == 1);
        CHECK(strstr(zt_last_error(), "(object \"x\", component \"data\")") != NULL);
        CHECK_STATUS(zt_verify_report(f, ZT_VERIFY_ALLOW_UNVERIFIABLE, &c), ZT_OK);
        CHECK(c.unverifiable == 1 && c.problems == 0);
        CHECK_STATUS(zt_verify_report(f, ZT_VERIFY_ALL | ZT_VERIFY_STRICT, &c), ZT_ERR_UNSUPPORTED);
        CHECK(c.unverifiable == 1 && c.problems == 1);
        CHECK_STATUS(zt_verify(f, ZT_VERIFY_STRICT), ZT_ERR_UNSUPPORTED);
        CHECK_STATUS(zt_verify(f, ZT_VERIFY_STRICT | ZT_VERIFY_ALLOW_UNVERIFIABLE), ZT_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(zt_verify(f, 16), ZT_ERR_INVALID_ARGUMENT);
        zt_close(f);
    }
}

static void test_open_messages(void) {
    zt_file *f = NULL;
    PATH(missing, "no-such-file.zt");
    CHECK_STATUS(zt_open(missing, 0, &f), ZT_ERR_IO);
    CHECK(strstr(zt_last_error(), missing) != NULL);
    CHECK(strstr(zt_last_error(), "os error") == NULL);
    CHECK_STATUS(zt_open(workdir, 0, &f), ZT_ERR_IO);
    CHECK(strstr(zt_last_error(), workdir) != NULL && strstr(zt_last_error(), "No such device") == NULL);
    PATH(junk, "junk.zt");
    CHECK(write_file(junk, (const uint8_t *)"not a zTensor file at all", 25));
    CHECK_STATUS(zt_open(junk, ZT_OPEN_POSITIONAL, &f), ZT_ERR_FORMAT);
    CHECK(strstr(zt_last_error(), junk) != NULL);
}

/* ---------------------------------------------------------------- main */

static void remove_tree(const char *path) {
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", path);
}

int main(int argc, char **argv) {
    if (argc != 2 || (strcmp(argv[1], "sizing") != 0 && strcmp(argv[1], "checks") != 0)) {
        fprintf(stderr, "usage: audit_test sizing|checks\n");
        return 2;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(workdir, sizeof workdir, "%s/zt-audit-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(workdir)) {
        perror("mkdtemp");
        return 1;
    }
    if (strcmp(argv[1], "sizing") == 0) {
        test_sizing();
    } else {
        test_verify_holds_the_file();
        test_finish_after_rename();
        test_object_owner();
        test_cap_range();
        test_not_regular_and_lengths();
        test_verify_on_read();
        test_open_messages();
    }
    remove_tree(workdir);
    printf("audit_test %s: %d passed, %d failed\n", argv[1], checks - failures, failures);
    return failures ? 1 : 0;
}
