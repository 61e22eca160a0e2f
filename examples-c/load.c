/*
 * load: read every tensor of a zTensor file into its own malloc'd buffers,
 * then verify every digest and data rule.
 *
 *     load [--positional] FILE
 *
 * Each component (a dense tensor's `data`, a sparse tensor's `values`,
 * `indices`, ...) is decoded into a buffer of its own, whatever its
 * encoding, as little-endian elements. The size to allocate comes from the
 * library (zt_component_read with no buffer), which refuses sizes a
 * hostile file could not really produce before anything is allocated.
 *
 * Exit status: 0 when everything loads and verifies, 1 otherwise (the
 * error is printed on stderr), 2 on a usage error.
 */
#include <ztensor.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    void *data;
    size_t len;
} buffer;

static int report(const char *path, zt_status s) {
    fprintf(stderr, "load: %s: %s: %s\n", path, zt_status_str(s), zt_last_error());
    return 1;
}

int main(int argc, char **argv) {
    uint32_t flags = 0;
    int argi = 1;
    if (argi < argc && strcmp(argv[argi], "--positional") == 0) {
        flags |= ZT_OPEN_POSITIONAL;
        argi++;
    }
    if (argi + 1 != argc) {
        fprintf(stderr, "usage: load [--positional] FILE\n");
        return 2;
    }
    const char *path = argv[argi];

    zt_file *f;
    zt_status s = zt_open(path, flags, &f);
    if (s != ZT_OK)
        return report(path, s);

    /* One buffer per component: count them first. */
    size_t nobj = zt_object_count(f), ncomp = 0;
    for (size_t i = 0; i < nobj; i++) {
        zt_object o;
        zt_object_info oi;
        if ((s = zt_object_at(f, i, &o)) != ZT_OK || (s = zt_object_get_info(f, &o, &oi)) != ZT_OK) {
            report(path, s);
            zt_close(f);
            return 1;
        }
        ncomp += oi.component_count;
    }
    buffer *bufs = calloc(ncomp ? ncomp : 1, sizeof *bufs);
    if (!bufs) {
        fprintf(stderr, "load: %s: out of memory\n", path);
        zt_close(f);
        return 1;
    }

    size_t b = 0;
    uint64_t total = 0;
    int status = 0;
    for (size_t i = 0; i < nobj && status == 0; i++) {
        zt_object o;
        zt_object_info oi;
        if ((s = zt_object_at(f, i, &o)) != ZT_OK || (s = zt_object_get_info(f, &o, &oi)) != ZT_OK) {
            status = report(path, s);
            break;
        }
        for (size_t k = 0; k < oi.component_count; k++) {
            zt_component_info ci;
            if ((s = zt_component_at(f, &o, k, &ci)) != ZT_OK) {
                status = report(path, s);
                break;
            }
            /* Ask how many bytes the decoded component needs. */
            size_t need = 0;
            s = zt_component_read(f, &o, ci.role, ci.role_len, NULL, 0, &need);
            if (s != ZT_OK && s != ZT_ERR_BUFFER_TOO_SMALL) {
                status = report(path, s);
                break;
            }
            void *dst = malloc(need ? need : 1);
            if (!dst) {
                fprintf(stderr, "load: %s: out of memory (%zu bytes for %.*s/%.*s)\n", path, need,
                        (int)oi.name_len, oi.name, (int)ci.role_len, ci.role);
                status = 1;
                break;
            }
            bufs[b].data = dst;
            size_t got = 0;
            s = zt_component_read(f, &o, ci.role, ci.role_len, dst, need, &got);
            if (s != ZT_OK) {
                b++;
                status = report(path, s);
                break;
            }
            bufs[b++].len = got;
            total += got;
        }
    }

    if (status == 0 && (s = zt_verify(f, ZT_VERIFY_ALL)) != ZT_OK)
        status = report(path, s);
    if (status == 0)
        printf("%s: %zu objects, %zu components, %" PRIu64 " bytes loaded, verified\n", path, nobj, b, total);

    for (size_t i = 0; i < b; i++) free(bufs[i].data);
    free(bufs);
    zt_close(f);
    return status;
}
