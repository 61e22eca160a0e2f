#include <stdio.h>
#include <stdlib.h>
#include <ztensor.h>

int main(int argc, char **argv) {
    zt_file *f;
    if (zt_open(argc > 1 ? argv[1] : "model.zt", 0, &f) != ZT_OK) {  /* mapped; the manifest checked once */
        fprintf(stderr, "%s\n", zt_last_error());
        return 1;
    }
    for (size_t i = 0; i < zt_object_count(f); i++) {
        zt_object o;
        zt_object_info info;
        const uint8_t *p;
        size_t n = 0, need = 0;
        zt_object_at(f, i, &o);
        zt_object_get_info(f, &o, &info);                /* strings: pointer + length, no NUL */
        printf("%.*s: %.*s, %llu elements", (int)info.name_len, info.name, (int)info.format_len,
               info.format, (unsigned long long)info.numel);
        if (zt_component_ptr(f, &o, "data", ZT_NUL_TERMINATED, &p, &n) == ZT_OK) {
            printf(", %zu bytes zero-copy", n);          /* raw: into the mapping, 64-byte aligned */
        } else if (zt_component_read(f, &o, "data", ZT_NUL_TERMINATED, NULL, 0, &need) == ZT_ERR_BUFFER_TOO_SMALL) {
            void *buf = malloc(need);                     /* need is checked against the file */
            if (buf && zt_component_read(f, &o, "data", ZT_NUL_TERMINATED, buf, need, &n) == ZT_OK)
                printf(", %zu bytes decoded", n);         /* zstd, v2 seekable: into your buffer */
            free(buf);
        }
        printf("\n");
    }
    int status = zt_verify(f, ZT_VERIFY_ALL);            /* every digest and data rule */
    if (status != ZT_OK)
        fprintf(stderr, "%s\n", zt_last_error());
    zt_close(f);
    return status == ZT_OK ? 0 : 1;
}
