/*
 * inspect: list a zTensor file, like `zt info`.
 *
 *     inspect [--positional] FILE
 *
 * Prints the format version, file-level attributes, then every object
 * (name, shape, format, attributes) and its components (role, dtype and
 * logical type, encoding, stored and decoded size, digest algorithm).
 * Reads only the manifest: no tensor bytes are touched.
 *
 * Exit status: 0 on success, 1 when the file cannot be opened or read
 * (the error is printed on stderr), 2 on a usage error.
 */
#include <ztensor.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Print `len` bytes of (UTF-8) text, escaping quotes, backslashes and
 * control characters (names may contain NUL). */
static void print_text(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
}

/* ---- a small CBOR-to-JSON printer for attribute values -------------- */

typedef struct {
    const uint8_t *p, *end;
} cursor;

/* Read an item head: major type and argument (length, value or simple).
 * Returns 0 on success, -1 on truncated input; *indef is set for
 * indefinite lengths. */
static int cbor_head_ai(cursor *c, int *major, uint64_t *arg, int *indef, uint8_t *ai_out) {
    if (c->p >= c->end)
        return -1;
    uint8_t ib = *c->p++;
    *major = ib >> 5;
    *indef = 0;
    uint8_t ai = ib & 0x1f;
    *ai_out = ai;
    if (ai < 24) {
        *arg = ai;
        return 0;
    }
    if (ai == 31) {
        *indef = 1;
        *arg = 0;
        return 0;
    }
    if (ai > 27)
        return -1;
    size_t n = (size_t)1 << (ai - 24);
    if ((size_t)(c->end - c->p) < n)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | *c->p++;
    *arg = v;
    return 0;
}

static int cbor_head(cursor *c, int *major, uint64_t *arg, int *indef) {
    uint8_t ai;
    return cbor_head_ai(c, major, arg, indef, &ai);
}

static double half_to_double(uint16_t h) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0)
        v = m * (1.0 / (1 << 24));
    else if (e == 31)
        v = m ? 0.0 / 0.0 : 1.0 / 0.0;
    else {
        v = (1.0 + m / 1024.0);
        for (int i = 15; i < e; i++) v *= 2;
        for (int i = e; i < 15; i++) v /= 2;
    }
    return (h & 0x8000) ? -v : v;
}

/* Print a double with the fewest digits that read back the same. */
static void print_double(double d) {
    char buf[64];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    if (d != d || d - d != 0) /* NaN and infinities are not JSON numbers */
        printf("\"%s\"", buf);
    else
        printf("%s", buf);
}

/* Print one CBOR item as JSON; returns 0, or -1 on malformed input. */
static int cbor_print(cursor *c, int depth) {
    int major, indef;
    uint64_t arg;
    uint8_t ai;
    if (depth > 64 || cbor_head_ai(c, &major, &arg, &indef, &ai) != 0)
        return -1;
    switch (major) {
    case 0:
        printf("%" PRIu64, arg);
        return 0;
    case 1:
        if (arg <= (uint64_t)INT64_MAX)
            printf("%" PRId64, -1 - (int64_t)arg);
        else
            printf("-1-%" PRIu64, arg);
        return 0;
    case 2:
    case 3: {
        putchar('"');
        for (;;) {
            uint64_t n = arg;
            if (indef) {
                int m2, ind2;
                if (c->p < c->end && *c->p == 0xff) {
                    c->p++;
                    break;
                }
                if (cbor_head(c, &m2, &n, &ind2) != 0 || m2 != major || ind2)
                    return -1;
            }
            if ((uint64_t)(c->end - c->p) < n)
                return -1;
            if (major == 3)
                print_text((const char *)c->p, (size_t)n);
            else
                for (uint64_t i = 0; i < n; i++) printf("%02x", c->p[i]);
            c->p += n;
            if (!indef)
                break;
        }
        putchar('"');
        return 0;
    }
    case 4:
    case 5: {
        putchar(major == 4 ? '[' : '{');
        for (uint64_t i = 0;; i++) {
            if (indef) {
                if (c->p >= c->end)
                    return -1;
                if (*c->p == 0xff) {
                    c->p++;
                    break;
                }
            } else if (i >= arg)
                break;
            if (i > 0)
                printf(", ");
            if (major == 5) {
                /* JSON keys are strings: print non-text keys quoted. */
                int text_key = c->p < c->end && (*c->p >> 5) == 3;
                if (!text_key)
                    putchar('"');
                if (cbor_print(c, depth + 1) != 0)
                    return -1;
                if (!text_key)
                    putchar('"');
                printf(": ");
            }
            if (cbor_print(c, depth + 1) != 0)
                return -1;
        }
        putchar(major == 4 ? ']' : '}');
        return 0;
    }
    case 6: /* a tag: print its content */
        return cbor_print(c, depth + 1);
    default: /* simple values and floats */
        if (indef)
            return -1;
        switch (ai) {
        case 20: printf("false"); return 0;
        case 21: printf("true"); return 0;
        case 22:
        case 23: printf("null"); return 0;
        case 25: print_double(half_to_double((uint16_t)arg)); return 0;
        case 26: {
            uint32_t b = (uint32_t)arg;
            float f;
            memcpy(&f, &b, 4);
            print_double(f);
            return 0;
        }
        case 27: {
            double d;
            memcpy(&d, &arg, 8);
            print_double(d);
            return 0;
        }
        default: printf("\"simple(%" PRIu64 ")\"", arg); return 0;
        }
    }
}

/* Print the attributes of `obj` (or of the file when NULL) as one JSON map. */
static zt_status print_attributes(const zt_file *f, const zt_object *obj) {
    size_t n;
    zt_status s = zt_attribute_count(f, obj, &n);
    if (s != ZT_OK)
        return s;
    putchar('{');
    for (size_t i = 0; i < n; i++) {
        zt_attribute a;
        if ((s = zt_attribute_at(f, obj, i, &a)) != ZT_OK)
            return s;
        if (i > 0)
            printf(", ");
        putchar('"');
        if (a.key)
            print_text(a.key, a.key_len);
        else
            printf("(non-text key)");
        printf("\": ");
        cursor c = {a.cbor, a.cbor + a.cbor_len};
        if (cbor_print(&c, 0) != 0)
            printf("(malformed)");
    }
    putchar('}');
    return ZT_OK;
}

/* ---- main ------------------------------------------------------------ */

static int fail(const char *path, zt_status s) {
    fprintf(stderr, "inspect: %s: %s: %s\n", path, zt_status_str(s), zt_last_error());
    return 1;
}

static const char *digest_algorithm(const zt_component_info *ci, char *buf, size_t cap) {
    if (!ci->digest)
        return "-";
    const char *colon = memchr(ci->digest, ':', ci->digest_len);
    size_t n = colon ? (size_t)(colon - ci->digest) : ci->digest_len;
    if (n >= cap)
        n = cap - 1;
    memcpy(buf, ci->digest, n);
    buf[n] = 0;
    return buf;
}

int main(int argc, char **argv) {
    uint32_t flags = 0;
    int argi = 1;
    if (argi < argc && strcmp(argv[argi], "--positional") == 0) {
        flags |= ZT_OPEN_POSITIONAL;
        argi++;
    }
    if (argi + 1 != argc) {
        fprintf(stderr, "usage: inspect [--positional] FILE\n");
        return 2;
    }
    const char *path = argv[argi];

    zt_file *f;
    zt_status s = zt_open(path, flags, &f);
    if (s != ZT_OK)
        return fail(path, s);

    zt_file_info fi;
    if ((s = zt_file_get_info(f, &fi)) != ZT_OK)
        goto error;
    printf("%s: zTensor %u.%u", path, fi.version_major, fi.version_minor);
    if (fi.version_major > 0)
        printf(".%u", fi.version_patch);
    printf(", %zu object%s, %" PRIu64 " bytes (manifest %" PRIu64 " bytes at offset %" PRIu64 ")\n",
           fi.object_count, fi.object_count == 1 ? "" : "s", fi.file_length, fi.manifest_length,
           fi.manifest_offset);
    if (fi.attribute_count > 0) {
        printf("attributes: ");
        if ((s = print_attributes(f, NULL)) != ZT_OK)
            goto error;
        putchar('\n');
    }

    uint64_t stored = 0, decoded = 0, components = 0;
    for (size_t i = 0; i < fi.object_count; i++) {
        zt_object o;
        zt_object_info oi;
        if ((s = zt_object_at(f, i, &o)) != ZT_OK || (s = zt_object_get_info(f, &o, &oi)) != ZT_OK)
            goto error;
        uint64_t dims[16], *d = dims;
        size_t ndim;
        s = zt_object_shape(f, &o, dims, 16, &ndim);
        if (s == ZT_ERR_BUFFER_TOO_SMALL) /* more than 16 dims: print the count only */
            d = NULL;
        else if (s != ZT_OK)
            goto error;

        printf("\n");
        print_text(oi.name, oi.name_len);
        printf("  [");
        if (d)
            for (size_t k = 0; k < ndim; k++) printf("%s%" PRIu64, k ? ", " : "", d[k]);
        else
            printf("%zu dims", ndim);
        printf("]  %.*s", (int)oi.format_len, oi.format);
        if (oi.attribute_count > 0) {
            printf("  ");
            if ((s = print_attributes(f, &o)) != ZT_OK)
                goto error;
        }
        printf("\n");

        for (size_t k = 0; k < oi.component_count; k++) {
            zt_component_info ci;
            if ((s = zt_component_at(f, &o, k, &ci)) != ZT_OK)
                goto error;
            char dtype[96], alg[32], dec[32];
            if (ci.logical_type)
                snprintf(dtype, sizeof dtype, "%s (%.*s)", zt_dtype_name(ci.dtype), (int)ci.logical_type_len,
                         ci.logical_type);
            else
                snprintf(dtype, sizeof dtype, "%s", zt_dtype_name(ci.dtype));
            if (ci.has_decoded_length)
                snprintf(dec, sizeof dec, "%" PRIu64, ci.decoded_length);
            else
                snprintf(dec, sizeof dec, "?");
            printf("  %-14.*s %-18s %-5s %12" PRIu64 " %12s  %s\n", (int)ci.role_len, ci.role, dtype,
                   ci.encoding == ZT_ENCODING_ZSTD ? "zstd" : "raw", ci.length, dec,
                   digest_algorithm(&ci, alg, sizeof alg));
            components++;
            stored += ci.length;
            decoded += ci.has_decoded_length ? ci.decoded_length : 0;
        }
    }
    printf("\ntotal: %zu objects, %" PRIu64 " components, %" PRIu64 " bytes stored, %" PRIu64
           " bytes decoded\n",
           fi.object_count, components, stored, decoded);
    zt_close(f);
    return 0;

error:
    fail(path, s);
    zt_close(f);
    return 1;
}
