/*
 * source_test: zt_open_source with callbacks over a file descriptor
 * (pread), as an engine reading through its own VFS would (issue #33):
 * a v2 and a v1.2 model are opened and listed with at most 2 callback
 * reads each, one tensor is read and only its bytes are requested, and a
 * failing callback gives a status with its code in zt_last_error, not a
 * crash. `close` runs exactly once, also when the open fails.
 *
 *     source_test FIXTURES_DIR
 *
 * Prints one line per failed check and a summary; exits 0 when all pass.
 */
#define _XOPEN_SOURCE 700
#include <ztensor.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#define MAX_READS 64

/* The callbacks' context: a descriptor and a log of the reads asked for. */
typedef struct {
    int fd;
    int reads;
    uint64_t offset[MAX_READS];
    size_t len[MAX_READS];
    int closed;
    int fail_with; /* non-zero: every read fails with this code */
} fd_ctx;

static int fd_read_at(void *ctx, uint64_t offset, void *buf, size_t len) {
    fd_ctx *c = ctx;
    if (c->reads < MAX_READS) {
        c->offset[c->reads] = offset;
        c->len[c->reads] = len;
    }
    c->reads++;
    if (c->fail_with)
        return c->fail_with;
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(c->fd, (char *)buf + done, len - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) /* an error, or the file ends early: a short read is an error */
            return n < 0 ? errno : -1;
        done += (size_t)n;
    }
    return 0;
}

static void fd_close(void *ctx) {
    fd_ctx *c = ctx;
    close(c->fd);
    c->closed++;
}

static int fd_source(const char *path, fd_ctx *c, zt_source *src) {
    memset(c, 0, sizeof *c);
    c->fd = open(path, O_RDONLY);
    struct stat st;
    if (c->fd < 0 || fstat(c->fd, &st) != 0)
        return -1;
    memset(src, 0, sizeof *src);
    src->struct_size = sizeof(zt_source);
    src->ctx = c;
    src->size = (uint64_t)st.st_size;
    src->read_at = fd_read_at;
    src->close = fd_close;
    return 0;
}

/* Open `file` through callbacks, list it, read `name`'s data. */
static void model(const char *dir, const char *file, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    fd_ctx c;
    zt_source src;
    CHECK(fd_source(path, &c, &src) == 0);
    zt_file *f = NULL;
    CHECK_STATUS(zt_open_source(&src, 0, &f), ZT_OK);
    if (!f)
        return;
    size_t count = zt_object_count(f);
    for (size_t i = 0; i < count; i++) {
        zt_object o;
        zt_object_info info;
        CHECK_STATUS(zt_object_at(f, i, &o), ZT_OK);
        CHECK_STATUS(zt_object_get_info(f, &o, &info), ZT_OK);
    }
    CHECK(count > 0);
    CHECK(c.reads >= 1 && c.reads <= 2);
    printf("%s: %zu objects listed with %d callback reads\n", file, count, c.reads);

    zt_object o;
    zt_component_info ci;
    CHECK_STATUS(zt_find(f, name, ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component(f, &o, "data", 4, &ci), ZT_OK);
    c.reads = 0;
    uint8_t *buf = malloc(ci.length ? ci.length : 1);
    size_t n = 0;
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, buf, ci.length, &n), ZT_OK);
    /* Only that tensor's bytes were requested. */
    CHECK(c.reads == 1 && c.offset[0] == ci.offset && c.len[0] == ci.length);
    free(buf);
    const uint8_t *p = NULL;
    CHECK_STATUS(zt_component_ptr(f, &o, "data", 4, &p, &n), ZT_ERR_NOT_ZERO_COPY);
    CHECK_STATUS(zt_verify(f, 0), ZT_OK);
    CHECK(c.closed == 0);
    zt_close(f);
    CHECK(c.closed == 1);
}

static void failing(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/v2/valid/types_canonical.zt", dir);
    fd_ctx c;
    zt_source src;
    CHECK(fd_source(path, &c, &src) == 0);
    /* At open: a status, the code in the message, close called once. */
    c.fail_with = 5;
    zt_file *f = (zt_file *)&c;
    CHECK_STATUS(zt_open_source(&src, 0, &f), ZT_ERR_IO);
    CHECK(f == NULL);
    CHECK(strstr(zt_last_error(), "returned 5") != NULL);
    CHECK(c.closed == 1);
    /* After open. */
    CHECK(fd_source(path, &c, &src) == 0);
    CHECK_STATUS(zt_open_source(&src, 0, &f), ZT_OK);
    if (!f)
        return;
    c.fail_with = 11;
    zt_object o;
    uint8_t buf[64];
    size_t n = 0;
    CHECK_STATUS(zt_find(f, "dtype.f32", ZT_NUL_TERMINATED, &o), ZT_OK);
    CHECK_STATUS(zt_component_read(f, &o, "data", 4, buf, sizeof buf, &n), ZT_ERR_IO);
    CHECK(strstr(zt_last_error(), "returned 11") != NULL);
    zt_close(f);
    CHECK(c.closed == 1);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: source_test FIXTURES_DIR\n");
        return 2;
    }
    model(argv[1], "v2/valid/types_canonical.zt", "dtype.f32"); /* written by upstream ztensor 2.1.2 */
    model(argv[1], "v1.2/dense_all_dtypes.zt", "dense_f32");    /* written by ztensor 1.2.3 */
    failing(argv[1]);
    printf("source_test: %d checks, %d failures\n", checks, failures);
    return failures ? 1 : 0;
}
