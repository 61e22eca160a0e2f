/* Minimal user of an installed libztensor: count the objects of a file. */
#include <ztensor.h>
#include <stdio.h>

int main(int argc, char **argv) {
    zt_file *f;
    if (argc != 2) {
        fprintf(stderr, "usage: consumer FILE\n");
        return 2;
    }
    if (zt_open(argv[1], 0, &f) != ZT_OK) {
        fprintf(stderr, "consumer: %s\n", zt_last_error());
        return 1;
    }
    printf("libztensor %s: %s has %zu objects\n", zt_version(), argv[1], zt_object_count(f));
    zt_close(f);
    return 0;
}
