//! The manifest schema of the v1.x and v0.1 containers: every field name
//! and component role, spelled once. The reader's pass and views match
//! these; the writer and `zt convert` write them.
//!
//! A container generation with another schema (v2) gets its own module
//! next to this one.

/// An enum of manifest names: `name()` gives the text, `from_bytes` finds
/// the entry a key's bytes spell (ASCII: no UTF-8 check needed first).
macro_rules! names {
    ($(#[$doc:meta])* $E:ident { $($(#[$vd:meta])* $V:ident = $s:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $E {
            $($(#[$vd])* $V,)*
        }

        impl $E {
            /// Every entry, in the order the writer emits them.
            pub const ALL: &'static [$E] = &[$($E::$V),*];
            /// Every name, in the order of [`Self::ALL`] (slices of the one
            /// packed list the parse scans).
            pub const NAMES: &'static [&'static str] = &Self::PACKED.all::<{ Self::ALL.len() }>();
            pub(crate) const PACKED: crate::types::Names = crate::types::packed!($($s),*);

            /// The name as written in the manifest.
            pub const fn name(self) -> &'static str {
                Self::NAMES[self as usize]
            }

            /// The entry whose name is `b`.
            pub fn from_bytes(b: &[u8]) -> Option<$E> {
                Self::PACKED.find(b).and_then(|i| Self::ALL.get(i).copied())
            }
        }
    };
}

names! {
    /// Fields of the v1.x root map.
    RootKey {
        /// `MAJOR.MINOR[.PATCH]` text.
        Version = "version",
        /// File-level attributes (a map, or null).
        Attributes = "attributes",
        /// Object name → object map.
        Objects = "objects",
    }
}

names! {
    /// Fields of a v1.x object map.
    ObjectKey {
        /// Array of dimensions.
        Shape = "shape",
        /// `dense`, `sparse_csr`, ...
        Format = "format",
        /// Per-object attributes (a map, or null).
        Attributes = "attributes",
        /// Role → component map.
        Components = "components",
    }
}

names! {
    /// Fields of a v1.x component map.
    ComponentKey {
        /// Storage type.
        DType = "dtype",
        /// Logical type, when it differs from the storage type.
        Type = "type",
        /// Absolute offset of the blob (a multiple of 64).
        Offset = "offset",
        /// Stored bytes.
        Length = "length",
        /// Decoded bytes of a compressed blob (required for zstd in v1.2).
        UncompressedLength = "uncompressed_length",
        /// `raw` (default) or `zstd`.
        Encoding = "encoding",
        /// `algorithm:value` over the stored bytes.
        Digest = "digest",
    }
}

names! {
    /// Fields of a v0.1 tensor map (`layout` is written by the 0.1.x
    /// reference, though not in the spec).
    V0Key {
        /// Object name.
        Name = "name",
        /// Absolute offset of the blob.
        Offset = "offset",
        /// Stored bytes.
        Size = "size",
        /// v0.1 dtype name (`float32`, ...).
        DType = "dtype",
        /// Array of dimensions.
        Shape = "shape",
        /// `raw` or `zstd`.
        Encoding = "encoding",
        /// Always `dense`.
        Layout = "layout",
        /// `little` or `big`.
        DataEndianness = "data_endianness",
        /// `algorithm:value` over the stored bytes.
        Checksum = "checksum",
    }
}

names! {
    /// Component roles the known formats name.
    Role {
        /// `dense`: the elements.
        Data = "data",
        /// `sparse_csr`, `sparse_coo`: the non-zero elements.
        Values = "values",
        /// `sparse_csr`: column index of each value.
        Indices = "indices",
        /// `sparse_csr`: row pointers.
        Indptr = "indptr",
        /// `sparse_coo`: `ndim × nnz` coordinates.
        Coords = "coords",
        /// `quantized_group`: packed quantized values.
        PackedWeight = "packed_weight",
        /// `quantized_group`: one scale per group.
        Scales = "scales",
        /// `quantized_group`: one zero point per group.
        Zeros = "zeros",
    }
}

names! {
    /// Attributes of a `quantized_group` object with a known type.
    QuantAttr {
        /// Bits per quantized value (unsigned integer).
        Bits = "bits",
        /// Values sharing one scale and zero point (unsigned integer).
        GroupSize = "group_size",
        /// How values are packed (text, e.g. `8_per_i32`).
        Packing = "packing",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for r in Role::ALL {
            assert_eq!(Role::from_bytes(r.name().as_bytes()), Some(*r));
        }
        assert_eq!(Role::NAMES.len(), Role::ALL.len());
        assert_eq!(ComponentKey::from_bytes(b"uncompressed_length"), Some(ComponentKey::UncompressedLength));
        assert_eq!(ComponentKey::from_bytes(b"dtyp"), None);
        assert_eq!(V0Key::NAMES, ["name", "offset", "size", "dtype", "shape", "encoding", "layout", "data_endianness", "checksum"]);
    }
}
