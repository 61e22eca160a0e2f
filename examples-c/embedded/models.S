/* The models, placed in flash by .incbin, each 64-byte aligned (v1.2
 * components are 64-byte aligned in the file: zero-copy pointers stay so).
 * CMakeLists.txt passes the directory that holds them with -Wa,-I. */
#define MODEL(sym, file)        \
    .section .models, "a";      \
    .balign 64;                 \
    .global sym;                \
sym:                            \
    .incbin file;               \
    .global sym##_end;          \
sym##_end:

MODEL(model_zt, "model.zt")
MODEL(big_zt, "big.zt")
MODEL(hostile_dup_zt, "hostile_dup.zt")
MODEL(hostile_digest_zt, "hostile_digest.zt")
MODEL(hostile_sparse_zt, "hostile_sparse.zt")
MODEL(hostile_overlap_zt, "hostile_overlap.zt")
MODEL(deep_zt, "deep.zt")
MODEL(hostile_deep_zt, "hostile_deep.zt")
MODEL(keys_zt, "keys.zt")
/* v2 models written by upstream (models/make_v2.py, committed). */
MODEL(v2_zt, "v2.zt")
MODEL(v2_hostile_digest_zt, "v2_hostile_digest.zt")
MODEL(v2_hostile_hash_zt, "v2_hostile_hash.zt")

/* No executable stack wanted. */
.section .note.GNU-stack, "", %progbits
