/* Firmware for QEMU mps2-an386 (Cortex-M4F): reads zTensor models from
 * flash through the no-heap build of libztensor, checks every tensor
 * against what the writer recorded (expect.h), refuses hostile models,
 * and reports its stack use and the cost of opening 1,000 tensors.
 *
 * Built twice (CMakeLists.txt): firmware.elf calls only the read path that
 * issue 15 budgets (open, count, index, find, names, shapes, formats,
 * attributes, components, zero-copy, verify, status and error texts), so
 * the flash figure is that path's; firmware_extras.elf (ZT_FIRMWARE_EXTRAS)
 * also calls zt_version, zt_file_storage_size, zt_file_get_info and
 * zt_component_read, and checks them.
 *
 * Output (semihosting) ends with
 *   ZT-BUDGET handle=<bytes> stack=<bytes> program_stack=<bytes> open1000_ticks=<n> ...
 * which scripts/test-embedded.sh reads. Exit status 0 when every check passes. */
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "expect.h"
#include "expect_v2.h"
#include "memcheck.h"
#include "semihost.h"
#include "ztensor.h"

#ifndef ZT_FIRMWARE_EXTRAS
#define ZT_FIRMWARE_EXTRAS 0
#endif

extern const uint8_t model_zt[], model_zt_end[];
extern const uint8_t big_zt[], big_zt_end[];
extern const uint8_t hostile_dup_zt[], hostile_dup_zt_end[];
extern const uint8_t hostile_digest_zt[], hostile_digest_zt_end[];
extern const uint8_t hostile_sparse_zt[], hostile_sparse_zt_end[];
extern const uint8_t hostile_overlap_zt[], hostile_overlap_zt_end[];
extern const uint8_t deep_zt[], deep_zt_end[];
extern const uint8_t hostile_deep_zt[], hostile_deep_zt_end[];
extern const uint8_t keys_zt[], keys_zt_end[];
extern const uint8_t v2_zt[], v2_zt_end[];
extern const uint8_t v2_hostile_digest_zt[], v2_hostile_digest_zt_end[];
extern const uint8_t v2_hostile_hash_zt[], v2_hostile_hash_zt_end[];

/* The caller's memory for a handle and its name index (one slot per object). */
static zt_file_storage storage;
static zt_slot slots[EXPECT_OBJECTS];
static zt_file_storage big_storage;
static zt_slot big_slots[EXPECT_BIG_OBJECTS];

static int failures;

/* Stack use, two ways. The library's: each call into it is measured from
 * the stack pointer at the call (the stack is painted first, the deepest
 * touched word found after), so it is what the library itself needs; the
 * harness's frames do not count. The program's: from main's frame, the
 * library's calls and this file's frames between (e.g. hostile()'s 8
 * slots). */
static uintptr_t stack_base;
static uintptr_t stack_peak, lib_peak, lib_phase_peak, program_phase_peak;
static int measuring;

/* After a measured library call made with the stack pointer at `sp`
 * (before the next call's repaint, the program's figure too). */
static void lib_used(uintptr_t sp) {
    uintptr_t low = stack_lowest_used();
    if (sp - low > lib_phase_peak) lib_phase_peak = sp - low;
    if (stack_base - low > program_phase_peak) program_phase_peak = stack_base - low;
}

/* Every library call below goes through MEASURED (each function-like
 * macro names the real function inside its own expansion). */
#define MEASURED(call)                                     \
    ({                                                     \
        uintptr_t sp_;                                     \
        __asm__ volatile("mov %0, sp" : "=r"(sp_));        \
        if (measuring) stack_repaint();                    \
        __typeof__(call) r_ = (call);                      \
        if (measuring) lib_used(sp_);                      \
        r_;                                                \
    })
#define zt_open_mem_into(...) MEASURED(zt_open_mem_into(__VA_ARGS__))
#define zt_object_count(...) MEASURED(zt_object_count(__VA_ARGS__))
#define zt_file_get_info(...) MEASURED(zt_file_get_info(__VA_ARGS__))
#define zt_find(...) MEASURED(zt_find(__VA_ARGS__))
#define zt_object_get_info(...) MEASURED(zt_object_get_info(__VA_ARGS__))
#define zt_object_shape(...) MEASURED(zt_object_shape(__VA_ARGS__))
#define zt_component(...) MEASURED(zt_component(__VA_ARGS__))
#define zt_component_ptr(...) MEASURED(zt_component_ptr(__VA_ARGS__))
#define zt_component_read(...) MEASURED(zt_component_read(__VA_ARGS__))
#define zt_attribute_find(...) MEASURED(zt_attribute_find(__VA_ARGS__))
#define zt_object_at(...) MEASURED(zt_object_at(__VA_ARGS__))
#define zt_object_name(...) MEASURED(zt_object_name(__VA_ARGS__))
#define zt_verify(...) MEASURED(zt_verify(__VA_ARGS__))
#define zt_status_str(...) MEASURED(zt_status_str(__VA_ARGS__))
#define zt_last_error(...) MEASURED(zt_last_error(__VA_ARGS__))
#define zt_verify_report(...) MEASURED(zt_verify_report(__VA_ARGS__))
#define zt_attribute_count(...) MEASURED(zt_attribute_count(__VA_ARGS__))
#define zt_attribute_at(...) MEASURED(zt_attribute_at(__VA_ARGS__))
#define zt_component_at(...) MEASURED(zt_component_at(__VA_ARGS__))

/* End of a measured phase: print its peaks, keep the largest, repaint. */
static void phase(const char *name) {
    uintptr_t used = stack_base - stack_lowest_used();
    if (program_phase_peak > used) used = program_phase_peak;
    program_phase_peak = 0;
    if (used > stack_peak) stack_peak = used;
    if (lib_phase_peak > lib_peak) lib_peak = lib_phase_peak;
    sh_puts("stack peak of ");
    sh_puts(name);
    sh_puts(": ");
    sh_putu(lib_phase_peak);
    sh_puts(" bytes (program: ");
    sh_putu(used);
    sh_puts(")\n");
    lib_phase_peak = 0;
    stack_repaint();
}

static void fail(const char *what, const char *name, zt_status s) {
    failures++;
    sh_puts("FAIL: ");
    sh_puts(what);
    sh_puts(" ");
    sh_puts(name);
    sh_puts(": ");
    sh_puts(zt_status_str(s));
    sh_puts(" (");
    sh_puts(zt_last_error());
    sh_puts(")\n");
}

#define CHECK(call, what, name)                        \
    do {                                               \
        zt_status s_ = (call);                         \
        if (s_ != ZT_OK) fail(what, name, s_);         \
    } while (0)

static int same(const char *a, size_t alen, const char *b) {
    size_t i = 0;
    for (; i < alen; i++)
        if (b[i] != a[i]) return 0;
    return b[i] == 0;
}

static uint32_t fnv1a(const uint8_t *p, size_t n) {
    uint32_t h = 0x811c9dc5u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x01000193u;
    return h;
}

/* The library's read path on the model: open, find each object and
 * component, read zero-copy, verify. Returns the number of bytes read. */
static uint32_t read_model(void) {
    zt_file *f = NULL;
    CHECK(zt_open_mem_into(model_zt, (size_t)(model_zt_end - model_zt), &storage, slots, EXPECT_OBJECTS, &f),
          "open", "model.zt");
    phase("open");
    if (!f) return 0;
    if (zt_object_count(f) != EXPECT_OBJECTS) fail("count", "model.zt", ZT_ERR_FORMAT);
#if ZT_FIRMWARE_EXTRAS
    zt_file_info fi;
    CHECK(zt_file_get_info(f, &fi), "file info", "model.zt");
    if (fi.version_major != 1 || fi.version_minor != 2 || fi.mode != ZT_MODE_MEMORY || fi.file_length != EXPECT_MODEL_BYTES)
        fail("file info differs", "model.zt", ZT_ERR_FORMAT);
#endif

    for (size_t i = 0; i < EXPECT_OBJECTS; i++) {
        const expect_object *e = &expect_objects[i];
        zt_object o;
        zt_object_info info;
        CHECK(zt_find(f, e->name, ZT_NUL_TERMINATED, &o), "find", e->name);
        CHECK(zt_object_get_info(f, &o, &info), "info", e->name);
        if (!same(info.name, info.name_len, e->name) || !same(info.format, info.format_len, e->format) ||
            info.ndim != e->ndim || info.numel != e->numel || info.component_count != e->components)
            fail("object info differs", e->name, ZT_ERR_FORMAT);
        uint64_t dims[4];
        size_t ndim = 0;
        CHECK(zt_object_shape(f, &o, dims, 4, &ndim), "shape", e->name);
        uint64_t numel = 1;
        for (size_t d = 0; d < ndim; d++) numel *= dims[d];
        if (ndim != e->ndim || numel != e->numel) fail("shape differs", e->name, ZT_ERR_FORMAT);
    }

    phase("find + object info + shape (100 objects)");

    uint32_t bytes = 0;
    for (size_t i = 0; i < EXPECT_COMPONENTS; i++) {
        const expect_component *e = &expect_components[i];
        zt_object o;
        zt_component_info c;
        const uint8_t *p = NULL;
        size_t n = 0;
        CHECK(zt_find(f, e->object, ZT_NUL_TERMINATED, &o), "find", e->object);
        CHECK(zt_component(f, &o, e->role, ZT_NUL_TERMINATED, &c), "component", e->role);
        CHECK(zt_component_ptr(f, &o, e->role, ZT_NUL_TERMINATED, &p, &n), "zero-copy", e->role);
        if (n != e->length || c.length != e->length || fnv1a(p, n) != e->fnv1a)
            fail("component bytes differ", e->object, ZT_ERR_CORRUPT_DATA);
        if (n > 0 && ((uintptr_t)p % 64 != 0 || p < model_zt || p + n > model_zt_end))
            fail("zero-copy pointer not 64-aligned in flash", e->object, ZT_ERR_FORMAT);
        bytes += (uint32_t)n;
    }

    phase("find + component + zero-copy read (105 components)");

    zt_attribute a;
    CHECK(zt_attribute_find(f, NULL, "framework", ZT_NUL_TERMINATED, &a), "attribute", "framework");
    if (a.kind != ZT_VALUE_TEXT || !same((const char *)a.data, a.data_len, "ztensor-embedded-example"))
        fail("attribute differs", "framework", ZT_ERR_FORMAT);
    zt_object q;
    CHECK(zt_find(f, "head.qweight", ZT_NUL_TERMINATED, &q), "find", "head.qweight");
    CHECK(zt_attribute_find(f, &q, "bits", ZT_NUL_TERMINATED, &a), "attribute", "bits");
    if (a.kind != ZT_VALUE_UINT || a.uint_value != 4) fail("attribute differs", "bits", ZT_ERR_FORMAT);

    /* By position, and a copy out of flash. */
    zt_object first;
    const char *first_name;
    size_t first_len;
    CHECK(zt_object_at(f, 0, &first), "object at", "0");
    CHECK(zt_object_name(f, &first, &first_name, &first_len), "name", "0");
    if (!same(first_name, first_len, expect_objects[0].name)) fail("object 0 differs", first_name, ZT_ERR_FORMAT);
#if ZT_FIRMWARE_EXTRAS
    static uint8_t copy[256];
    size_t copied = 0;
    CHECK(zt_component_read(f, &first, "data", ZT_NUL_TERMINATED, copy, sizeof copy, &copied), "read", "0");
    if (copied != expect_components[0].length || fnv1a(copy, copied) != expect_components[0].fnv1a)
        fail("copied component differs", first_name, ZT_ERR_CORRUPT_DATA);
#endif

    zt_object missing;
    if (zt_find(f, "no.such.tensor", ZT_NUL_TERMINATED, &missing) != ZT_ERR_NOT_FOUND)
        fail("find of a missing name", "no.such.tensor", ZT_ERR_FORMAT);

    phase("attributes");

    CHECK(zt_verify(f, ZT_VERIFY_ALL), "verify", "model.zt");
    phase("verify (digests and data rules)");
#if ZT_FIRMWARE_EXTRAS
    /* What verification looked at, the attributes by position, a component by position. */
    zt_verify_counts vc;
    CHECK(zt_verify_report(f, ZT_VERIFY_ALL, &vc), "verify report", "model.zt");
    if (vc.objects != EXPECT_OBJECTS || vc.components != EXPECT_COMPONENTS || vc.digests_checked != EXPECT_DIGESTS ||
        vc.problems != 0)
        fail("verify counts differ", "model.zt", ZT_ERR_FORMAT);
    size_t na = 0;
    CHECK(zt_attribute_count(f, NULL, &na), "attribute count", "model.zt");
    /* "framework" (text) and "layers" (31), in the writer's order. */
    CHECK(zt_attribute_at(f, NULL, 1, &a), "attribute at", "1");
    if (na != 2 || a.kind != ZT_VALUE_UINT || a.uint_value != 31) fail("file attributes differ", "model.zt", ZT_ERR_FORMAT);
    zt_component_info c0;
    CHECK(zt_component_at(f, &first, 0, &c0), "component at", "0");
    if (c0.length != expect_components[0].length) fail("component 0 differs", first_name, ZT_ERR_FORMAT);
#endif
    return bytes;
}

/* v2.zt, written by upstream's ztensor 2.1.2 (models/make_v2.py): open
 * (the manifest's XXH3 and the quant_group profile's rules are checked
 * there), walk the objects by position and by name, read every part
 * zero-copy, verify every part's xxh3 digest. */
static void read_v2(void) {
    zt_file *f = NULL;
    CHECK(zt_open_mem_into(v2_zt, (size_t)(v2_zt_end - v2_zt), &storage, slots, EXPECT_OBJECTS, &f), "open", "v2.zt");
    phase("v2.zt: open");
    if (!f) return;
    if (zt_object_count(f) != EXPECT_V2_OBJECTS) fail("count", "v2.zt", ZT_ERR_FORMAT);
#if ZT_FIRMWARE_EXTRAS
    zt_file_info fi;
    CHECK(zt_file_get_info(f, &fi), "file info", "v2.zt");
    if (fi.version_major != 2 || fi.file_length != EXPECT_V2_BYTES) fail("file info differs", "v2.zt", ZT_ERR_FORMAT);
#endif
    for (size_t i = 0; i < EXPECT_V2_OBJECTS; i++) {
        const expect_v2_object *e = &expect_v2_objects[i];
        zt_object at, o;
        zt_object_info info;
        const char *name;
        size_t name_len;
        /* In the manifest's order (expect_v2.h). */
        CHECK(zt_object_at(f, i, &at), "object at", e->name);
        CHECK(zt_object_name(f, &at, &name, &name_len), "name", e->name);
        if (!same(name, name_len, e->name)) fail("object order differs", e->name, ZT_ERR_FORMAT);
        CHECK(zt_find(f, e->name, ZT_NUL_TERMINATED, &o), "find", e->name);
        CHECK(zt_object_get_info(f, &o, &info), "info", e->name);
        if (!same(info.format, info.format_len, e->layout) || info.ndim != e->ndim || info.numel != e->numel ||
            info.component_count != e->parts)
            fail("object info differs", e->name, ZT_ERR_FORMAT);
    }
    for (size_t i = 0; i < EXPECT_V2_PARTS; i++) {
        const expect_v2_part *e = &expect_v2_parts[i];
        zt_object o;
        zt_component_info c;
        const uint8_t *p = NULL;
        size_t n = 0;
        CHECK(zt_find(f, e->object, ZT_NUL_TERMINATED, &o), "find", e->object);
        CHECK(zt_component(f, &o, e->part, ZT_NUL_TERMINATED, &c), "part", e->part);
        CHECK(zt_component_ptr(f, &o, e->part, ZT_NUL_TERMINATED, &p, &n), "zero-copy", e->part);
        if (n != e->length || c.length != e->length || fnv1a(p, n) != e->fnv1a)
            fail("part bytes differ", e->object, ZT_ERR_CORRUPT_DATA);
        /* Canonical placement is 64 KiB; the model sits 64-byte aligned. */
        if ((uintptr_t)p % 64 != 0 || p < v2_zt || p + n > v2_zt_end)
            fail("zero-copy pointer not 64-aligned in flash", e->object, ZT_ERR_FORMAT);
    }
    phase("v2.zt: object at, name, find, info, part, zero-copy read");
    CHECK(zt_verify(f, ZT_VERIFY_ALL), "verify", "v2.zt");
    phase("v2.zt: verify (xxh3 digests, data rules)");
#if ZT_FIRMWARE_EXTRAS
    zt_verify_counts vc;
    CHECK(zt_verify_report(f, ZT_VERIFY_ALL, &vc), "verify report", "v2.zt");
    if (vc.objects != EXPECT_V2_OBJECTS || vc.components != EXPECT_V2_PARTS || vc.digests_checked != EXPECT_V2_PARTS ||
        vc.problems != 0)
        fail("verify counts differ", "v2.zt", ZT_ERR_FORMAT);
#endif
}

/* deep.zt: open with slots, find the object, its nested attribute, its byte. */
static void read_deep(void) {
    zt_file *f = NULL;
    CHECK(zt_open_mem_into(deep_zt, (size_t)(deep_zt_end - deep_zt), &storage, slots, EXPECT_OBJECTS, &f), "open",
          "deep.zt");
    if (!f) return;
    zt_object o;
    zt_attribute a;
    const uint8_t *p = NULL;
    size_t n = 0;
    CHECK(zt_find(f, "deep", ZT_NUL_TERMINATED, &o), "find", "deep");
    CHECK(zt_attribute_find(f, &o, "nest", ZT_NUL_TERMINATED, &a), "attribute", "nest");
    if (a.kind != ZT_VALUE_ARRAY) fail("attribute differs", "nest", ZT_ERR_FORMAT);
    CHECK(zt_component_ptr(f, &o, "data", ZT_NUL_TERMINATED, &p, &n), "zero-copy", "deep");
    if (n != 1 || p[0] != 0x2a) fail("component bytes differ", "deep", ZT_ERR_CORRUPT_DATA);
    CHECK(zt_verify(f, ZT_VERIFY_ALL), "verify", "deep.zt");
    phase("deep.zt: open, find, attribute, zero-copy read, verify");
}

/* A hostile model: opening (or verifying) gives `want`. */
static void hostile(const char *name, const uint8_t *p, const uint8_t *end, size_t nslots, int at_verify,
                    zt_status want) {
    zt_file *f = NULL;
    zt_slot few[16];
    zt_status s = zt_open_mem_into(p, (size_t)(end - p), &storage, nslots ? few : NULL, nslots, &f);
    if (at_verify && s == ZT_OK) s = zt_verify(f, ZT_VERIFY_ALL);
    sh_puts("hostile ");
    sh_puts(name);
    sh_puts(": ");
    sh_puts(zt_status_str(s));
    sh_puts(": ");
    sh_puts(zt_last_error());
    sh_puts("\n");
    if (s != want) fail("hostile model: unexpected status", name, s);
    phase(name);
}

int main(void) {
#if ZT_FIRMWARE_EXTRAS
    sh_puts("ztensor firmware (with extras) on mps2-an386 (Cortex-M4F), libztensor ");
    sh_puts(zt_version());
    sh_puts("\n");
    if (zt_file_storage_size() != sizeof(zt_file_storage)) fail("ZT_FILE_STORAGE_SIZE differs from the library's", "", ZT_OK);
#else
    sh_puts("ztensor firmware on mps2-an386 (Cortex-M4F): the read path\n");
#endif
    /* The library brings small memcpy/memset/memcmp/strlen (weak: a C
     * library linked before it would win); check them first. */
    int mem_bad = mem_check();
    if (mem_bad) fail("memory routines", "mem_check", ZT_OK);
    sh_puts(mem_bad ? "memory routines: wrong\n" : "memory routines: ok\n");
    int dwt = dwt_cycle_counter_works();
    sh_puts(dwt ? "DWT cycle counter: counts\n" : "DWT cycle counter: not modeled (using SysTick)\n");

    /* Peak stack of the whole read path, measured from this frame. */
    stack_base = stack_sp();
    measuring = 1;
    stack_repaint();
    uint32_t bytes = read_model();
    read_v2();

    /* One object each: no slots needed (zt_find then scans). Their stack
     * counts in the peak too: a refusal may go deeper than a success. */
    hostile("duplicate names", hostile_dup_zt, hostile_dup_zt_end, 8, 0, ZT_ERR_FORMAT);
    hostile("flipped data byte", hostile_digest_zt, hostile_digest_zt_end, 0, 1, ZT_ERR_DIGEST_MISMATCH);
    hostile("sparse index out of range", hostile_sparse_zt, hostile_sparse_zt_end, 0, 1, ZT_ERR_CORRUPT_DATA);
    /* Blobs out of order: the overlap check sorts them in the slots. */
    hostile("overlapping blobs", hostile_overlap_zt, hostile_overlap_zt_end, 8, 0, ZT_ERR_FORMAT);
    /* Unsorted names need one slot per object to be checked for duplicates. */
    hostile("model.zt with 8 slots", model_zt, model_zt_end, 8, 0, ZT_ERR_BUFFER_TOO_SMALL);
    /* Nesting as deep as the format allows, and one level more. */
    read_deep();
    hostile("one level too deep", hostile_deep_zt, hostile_deep_zt_end, 8, 0, ZT_ERR_FORMAT);
    /* 12 attribute keys in chunks: sorted, compared chunk by chunk (one slot each). */
    hostile("keys.zt: 12 chunked attribute keys", keys_zt, keys_zt_end, 0, 0, ZT_ERR_BUFFER_TOO_SMALL);
    hostile("keys.zt with slots", keys_zt, keys_zt_end, 8, 0, ZT_ERR_BUFFER_TOO_SMALL);
    {
        zt_file *k = NULL;
        CHECK(zt_open_mem_into(keys_zt, (size_t)(keys_zt_end - keys_zt), &storage, slots, EXPECT_OBJECTS, &k), "open",
              "keys.zt");
        phase("keys.zt: 12 chunked attribute keys, sorted");
    }
    /* v2: a flipped data byte (the manifest does not cover the data: open
     * succeeds, verify finds it); a manifest hash off by one bit (refused at
     * open). A v2 open needs two slots per non-empty blob and two for the
     * manifest (the overlap check): 10 here. */
    hostile("v2.zt, flipped data byte", v2_hostile_digest_zt, v2_hostile_digest_zt_end, 16, 1, ZT_ERR_DIGEST_MISMATCH);
    hostile("v2.zt, manifest hash mismatch", v2_hostile_hash_zt, v2_hostile_hash_zt_end, 16, 0, ZT_ERR_FORMAT);
    zt_file *f = NULL;
    if (zt_open_mem_into(model_zt, 100, &storage, slots, EXPECT_OBJECTS, &f) != ZT_ERR_FORMAT)
        fail("truncated model opens", "model.zt", ZT_OK);
    phase("truncated model");
    uintptr_t peak = lib_peak;
    measuring = 0;

    /* Calibration: a loop of exactly 2,000,000 instructions (subs + bne). */
    ticks_start();
    uint64_t c0 = ticks_now();
    __asm__ volatile(
        "   ldr r0, =1000000\n"
        "1: subs r0, r0, #1\n"
        "   bne 1b\n" ::: "r0", "cc");
    uint64_t calib = ticks_now() - c0;

    /* Cost of opening (validating) a 1,000-tensor model, then of finding each. */
    zt_file *big = NULL;
    uint64_t t0 = ticks_now();
    CHECK(zt_open_mem_into(big_zt, (size_t)(big_zt_end - big_zt), &big_storage, big_slots, EXPECT_BIG_OBJECTS, &big),
          "open", "big.zt");
    uint64_t t1 = ticks_now();
    size_t found = 0;
    for (uint32_t i = 0; big && i < EXPECT_BIG_OBJECTS; i++) {
        char name[24] = "block.";
        char digits[12];
        int k = 0, j = 6;
        uint32_t v = i;
        do digits[k++] = (char)('0' + v % 10), v /= 10;
        while (v);
        while (k) name[j++] = digits[--k];
        name[j++] = '.', name[j++] = 'w', name[j] = 0;
        zt_object o;
        found += zt_find(big, name, ZT_NUL_TERMINATED, &o) == ZT_OK;
    }
    uint64_t t2 = ticks_now();
    if (found != EXPECT_BIG_OBJECTS) fail("find in big.zt", "block.*", ZT_ERR_NOT_FOUND);

    sh_puts("model.zt: ");
    sh_putu(EXPECT_OBJECTS);
    sh_puts(" objects, ");
    sh_putu(EXPECT_COMPONENTS);
    sh_puts(" components (");
    sh_putu(bytes);
    sh_puts(" bytes zero-copy, ");
    sh_putu(EXPECT_DIGESTS);
    sh_puts(" digests verified); stack peak ");
    sh_putu(peak);
    sh_puts(" (program: ");
    sh_putu(stack_peak);
    sh_puts(") of ");
    sh_putu(stack_size());
    sh_puts(" bytes\n");
    sh_puts("big.zt: open ");
    sh_putu(t1 - t0);
    sh_puts(" ticks, find x1000 ");
    sh_putu(t2 - t1);
    sh_puts(" ticks (SysTick at the 25 MHz core clock)\n");
    sh_puts("ZT-BUDGET handle=");
    sh_putu(sizeof(zt_file_storage));
    sh_puts(" slot=");
    sh_putu(sizeof(zt_slot));
    sh_puts(" stack=");
    sh_putu(peak);
    sh_puts(" program_stack=");
    sh_putu(stack_peak);
    sh_puts(" open1000_ticks=");
    sh_putu(t1 - t0);
    sh_puts(" find1000_ticks=");
    sh_putu(t2 - t1);
    sh_puts(" calib2m_ticks=");
    sh_putu(calib);
    sh_puts(" failures=");
    sh_putu((uint64_t)failures);
    sh_puts("\n");
    return failures ? 1 : 0;
}

/* The library's panic hook (no-heap build): a bug in the library, never a
 * hostile file, gets here. Report it and stop. */
void zt_panic(void) {
    sh_puts("PANIC in libztensor\n");
    sh_exit(101);
}
