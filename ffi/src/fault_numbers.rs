//! The numbers `zt_last_error()` gives instead of phrases in a compact
//! build without `texts` (docs/embedded.md): `fault N
//! (manifest byte B)` names a `ZT_FAULT_*` (the reader's refusal or the
//! first problem verification found), `refusal N` a `ZT_REFUSAL_*` (the C
//! layer's own: an argument, a name not found, a buffer too small). Each
//! one's phrase, as the builds with texts say it, is its comment. The
//! compact tests check them against the reader's kinds and the C layer's
//! table.

/// "bad container": Magic, footer or manifest size wrong.
pub const ZT_FAULT_CONTAINER: u32 = 0;
/// "not a v1.x file": A v0.1 file (or a v2 file, in a build without the v2 reader).
pub const ZT_FAULT_GENERATION: u32 = 1;
/// "malformed CBOR": Malformed CBOR: a bad head, a length past the manifest, a misplaced break.
pub const ZT_FAULT_CBOR: u32 = 2;
/// "invalid UTF-8": Text that is not UTF-8.
pub const ZT_FAULT_UTF8: u32 = 3;
/// "nested too deep": Nesting past `MAX_DEPTH`.
pub const ZT_FAULT_DEEP: u32 = 4;
/// "duplicate key or name": A map key or object name twice.
pub const ZT_FAULT_DUPLICATE_KEY: u32 = 5;
/// "too few slots": The slots ran out.
pub const ZT_FAULT_SLOTS: u32 = 6;
/// "bytes after manifest": Bytes after the manifest's root item.
pub const ZT_FAULT_TRAILING: u32 = 7;
/// "field of wrong type": A field of the wrong CBOR type.
pub const ZT_FAULT_WRONG_TYPE: u32 = 8;
/// "field missing": A required field is absent.
pub const ZT_FAULT_MISSING: u32 = 9;
/// "bad version": `version` is not `MAJOR.MINOR[.PATCH]`.
pub const ZT_FAULT_BAD_VERSION: u32 = 10;
/// "unsupported version": A major version other than 1 (or, built without `v1-legacy`, a v1.0 or v1.1 file).
pub const ZT_FAULT_VERSION: u32 = 11;
/// "empty name or role": An empty object name or role.
pub const ZT_FAULT_EMPTY_NAME: u32 = 12;
/// "unknown dtype": A dtype outside the 13 (and v1.1's spellings).
pub const ZT_FAULT_DTYPE: u32 = 13;
/// "unknown encoding": An encoding other than raw and zstd.
pub const ZT_FAULT_ENCODING: u32 = 14;
/// "type/dtype mismatch": A logical type on the wrong dtype.
pub const ZT_FAULT_LOGICAL_TYPE: u32 = 15;
/// "offset not 64-aligned": An offset that is not a multiple of 64.
pub const ZT_FAULT_MISALIGNED: u32 = 16;
/// "blob out of bounds": A blob outside `[8, manifest)`.
pub const ZT_FAULT_OUT_OF_BOUNDS: u32 = 17;
/// "no uncompressed_length": A v1.2 zstd component without `uncompressed_length`.
pub const ZT_FAULT_NO_DECODED_SIZE: u32 = 18;
/// "partial element": A size that is not whole elements.
pub const ZT_FAULT_PARTIAL_ELEMENT: u32 = 19;
/// "component missing": A component the format needs is absent.
pub const ZT_FAULT_MISSING_COMPONENT: u32 = 20;
/// "bad index dtype": A sparse index component of the wrong dtype.
pub const ZT_FAULT_INDEX_DTYPE: u32 = 21;
/// "count mismatch": Element counts of sparse components disagree.
pub const ZT_FAULT_COUNT: u32 = 22;
/// "length mismatch": Dense data of the wrong size.
pub const ZT_FAULT_LENGTH: u32 = 23;
/// "size overflow": A size that overflows.
pub const ZT_FAULT_OVERFLOW: u32 = 24;
/// "CSR shape not 2-D": `sparse_csr` without a 2-D shape.
pub const ZT_FAULT_SHAPE: u32 = 25;
/// "bad quantization attribute": `quantized_group` attributes of the wrong type.
pub const ZT_FAULT_QUANT_ATTRIBUTE: u32 = 26;
/// "blobs overlap": Two blobs partially overlap.
pub const ZT_FAULT_OVERLAP: u32 = 27;
/// "bad digest": A malformed digest string.
pub const ZT_FAULT_BAD_DIGEST: u32 = 28;
/// "digest mismatch": A digest that does not match.
pub const ZT_FAULT_DIGEST_MISMATCH: u32 = 29;
/// "unverifiable digest": A digest of an unknown algorithm (a problem only when strict).
pub const ZT_FAULT_UNVERIFIABLE: u32 = 30;
/// "zstd not decoded": zstd data, which this build does not decode.
pub const ZT_FAULT_ZSTD: u32 = 31;
/// "bool not 0/1": A bool byte other than 0 or 1.
pub const ZT_FAULT_BOOL: u32 = 32;
/// "bad CSR indptr": CSR `indptr` not from 0, rising, to nnz (or a negative one).
pub const ZT_FAULT_INDPTR: u32 = 33;
/// "CSR column out of range": A CSR column index past the columns (or negative).
pub const ZT_FAULT_COLUMN: u32 = 34;
/// "COO coordinate out of range": A COO coordinate outside the shape (or negative).
pub const ZT_FAULT_COORDINATE: u32 = 35;
/// "manifest hash mismatch": A v2 manifest whose XXH3-64 is not the footer's (§2.2).
pub const ZT_FAULT_MANIFEST_HASH: u32 = 36;
/// "CBOR not deterministic": A v2 manifest not in deterministic CBOR (§3.1).
pub const ZT_FAULT_NOT_DETERMINISTIC: u32 = 37;
/// "bad name": A v2 name or attribute key breaking §3.5 (or a shard name, §7.1).
pub const ZT_FAULT_NAME: u32 = 38;
/// "rank too large": A v2 shape of more than 64 dimensions (§3.3).
pub const ZT_FAULT_RANK: u32 = 39;
/// "bad shard reference": A v2 shard table or a part's shard reference broken (§7).
pub const ZT_FAULT_SHARD: u32 = 40;
/// "layout rule broken": A v2 layout profile's metadata rule broken (§5).
pub const ZT_FAULT_LAYOUT: u32 = 41;
/// "sharded file": A v2 sharded file or data shard: its parts lie in other files.
pub const ZT_FAULT_SHARDED: u32 = 42;
/// "f4 padding nibble set": An `f4_e2m1` part whose unused final nibble is set (Appendix A).
pub const ZT_FAULT_F4_NIBBLE: u32 = 43;
/// "COO duplicate coordinate": Two COO entries at the same coordinates (zt.sparse_coo/1).
pub const ZT_FAULT_COO_DUPLICATE: u32 = 44;
/// "bad seek table": A `zt.zstd-seekable/1` part whose seek table is broken.
pub const ZT_FAULT_SEEKABLE: u32 = 45;
/// "decoded length mismatch": Decoded bytes of another length than the part's `decoded_length`.
pub const ZT_FAULT_DECODED_LENGTH: u32 = 46;
/// "type not decoded": A v2 part of a logical type this library does not know.
pub const ZT_FAULT_UNKNOWN_TYPE: u32 = 47;
/// "`file` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_FILE_NULL: u32 = 0;
/// "`obj` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_OBJ_NULL: u32 = 1;
/// "`storage` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_STORAGE_NULL: u32 = 2;
/// "`ptr` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_PTR_NULL: u32 = 3;
/// "`info` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_INFO_NULL: u32 = 4;
/// "`dims` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_DIMS_NULL: u32 = 5;
/// "`attr` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_ATTR_NULL: u32 = 6;
/// "`written` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_WRITTEN_NULL: u32 = 7;
/// "`dst` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_DST_NULL: u32 = 8;
/// "`out` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_OUT_NULL: u32 = 9;
/// "`name` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_NAME_NULL: u32 = 10;
/// "`key` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_KEY_NULL: u32 = 11;
/// "`role` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_ROLE_NULL: u32 = 12;
/// "a zt_object from another file (or not from zt_object_at / zt_find)" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_FOREIGN_OBJECT: u32 = 13;
/// "object index out of range" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_OBJECT_INDEX: u32 = 14;
/// "`len` or `slot_count` out of range" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_LEN_OR_SLOTS: u32 = 15;
/// "`name` or `len` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_NAME_OR_LEN_NULL: u32 = 16;
/// "`ptr` or `len` is NULL" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_PTR_OR_LEN_NULL: u32 = 17;
/// "`cap` is over PTRDIFF_MAX" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_CAP_OVER: u32 = 18;
/// "unknown `zt_verify` flag" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_VERIFY_FLAG: u32 = 19;
/// "a string length is over PTRDIFF_MAX (and is not ZT_NUL_TERMINATED)" (`ZT_ERR_INVALID_ARGUMENT`).
pub const ZT_REFUSAL_TOO_LONG: u32 = 20;
/// "no object with that name" (`ZT_ERR_NOT_FOUND`).
pub const ZT_REFUSAL_NO_OBJECT: u32 = 21;
/// "no attribute with that key" (`ZT_ERR_NOT_FOUND`).
pub const ZT_REFUSAL_NO_ATTRIBUTE: u32 = 22;
/// "no component with that role" (`ZT_ERR_NOT_FOUND`).
pub const ZT_REFUSAL_NO_COMPONENT: u32 = 23;
/// "buffer too small for the shape" (`ZT_ERR_BUFFER_TOO_SMALL`).
pub const ZT_REFUSAL_SHAPE_TOO_SMALL: u32 = 24;
/// "buffer too small for the component" (`ZT_ERR_BUFFER_TOO_SMALL`).
pub const ZT_REFUSAL_COMPONENT_TOO_SMALL: u32 = 25;
/// "no zero-copy view: the component is compressed" (`ZT_ERR_NOT_ZERO_COPY`).
pub const ZT_REFUSAL_COMPRESSED: u32 = 26;
/// "declared size exceeds what the zstd data can hold" (`ZT_ERR_CORRUPT_DATA`).
pub const ZT_REFUSAL_DECLARED_SIZE: u32 = 27;
