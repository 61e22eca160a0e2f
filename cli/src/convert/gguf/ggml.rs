//! The ggml tensor types a GGUF file may name: the plain element types,
//! which become `dense` objects, and the quantized block types the v2
//! registry has a `gguf.<type>/1` profile for (profiles/gguf.md).
//! `elems_per_block` and `block_bytes` are ggml's `blck_size` and
//! `sizeof(block_<type>)` (ggml-common.h): `q8_1` is 36 bytes there
//! (2 × f16 + 32 × i8; gguf-py's table still says 40).

use ztensor::DType;

/// One ggml type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GgmlType {
    /// The ggml type id (`enum ggml_type`).
    pub id: u32,
    /// Lowercase ggml name: the `<type>` of `gguf.<type>/1`.
    pub name: &'static str,
    pub elems_per_block: u64,
    pub block_bytes: u64,
    /// The dense element type, for the unquantized types.
    pub dense: Option<DType>,
}

const fn plain(id: u32, name: &'static str, bytes: u64, d: DType) -> GgmlType {
    GgmlType { id, name, elems_per_block: 1, block_bytes: bytes, dense: Some(d) }
}

const fn blocks(id: u32, name: &'static str, elems_per_block: u64, block_bytes: u64) -> GgmlType {
    GgmlType { id, name, elems_per_block, block_bytes, dense: None }
}

/// Every ggml type a `.zt` file can hold.
pub const TYPES: [GgmlType; 30] = [
    plain(0, "f32", 4, DType::F32),
    plain(1, "f16", 2, DType::F16),
    blocks(2, "q4_0", 32, 18),
    blocks(3, "q4_1", 32, 20),
    blocks(6, "q5_0", 32, 22),
    blocks(7, "q5_1", 32, 24),
    blocks(8, "q8_0", 32, 34),
    blocks(9, "q8_1", 32, 36),
    blocks(10, "q2_k", 256, 84),
    blocks(11, "q3_k", 256, 110),
    blocks(12, "q4_k", 256, 144),
    blocks(13, "q5_k", 256, 176),
    blocks(14, "q6_k", 256, 210),
    blocks(15, "q8_k", 256, 292),
    blocks(16, "iq2_xxs", 256, 66),
    blocks(17, "iq2_xs", 256, 74),
    blocks(18, "iq3_xxs", 256, 98),
    blocks(19, "iq1_s", 256, 50),
    blocks(20, "iq4_nl", 32, 18),
    blocks(21, "iq3_s", 256, 110),
    blocks(22, "iq2_s", 256, 82),
    blocks(23, "iq4_xs", 256, 136),
    plain(24, "i8", 1, DType::I8),
    plain(25, "i16", 2, DType::I16),
    plain(26, "i32", 4, DType::I32),
    plain(27, "i64", 8, DType::I64),
    plain(28, "f64", 8, DType::F64),
    blocks(29, "iq1_m", 256, 56),
    plain(30, "bf16", 2, DType::BF16),
    blocks(39, "mxfp4", 32, 17),
];

/// ggml types that exist (or existed) but have no registered profile.
const UNREGISTERED: [(u32, &str); 11] = [
    (4, "q4_2 (removed from ggml)"),
    (5, "q4_3 (removed from ggml)"),
    (31, "q4_0_4_4 (removed from ggml)"),
    (32, "q4_0_4_8 (removed from ggml)"),
    (33, "q4_0_8_8 (removed from ggml)"),
    (34, "tq1_0"),
    (35, "tq2_0"),
    (36, "iq4_nl_4_4 (removed from ggml)"),
    (37, "iq4_nl_4_8 (removed from ggml)"),
    (38, "iq4_nl_8_8 (removed from ggml)"),
    (40, "nvfp4"),
];

/// The type with this id, or why it cannot be converted.
pub fn lookup(id: u32) -> Result<GgmlType, String> {
    if let Some(t) = TYPES.iter().find(|t| t.id == id) {
        return Ok(*t);
    }
    Err(match UNREGISTERED.iter().find(|(i, _)| *i == id) {
        Some((_, name)) => format!("ggml type {id} ({name}) has no gguf.<type>/1 profile in the zTensor v2 registry"),
        None => format!("unknown ggml type {id}"),
    })
}

impl GgmlType {
    /// The v2 layout: `dense` or `gguf.<type>/1`.
    pub fn layout(&self) -> String {
        match self.dense {
            Some(_) => "dense".into(),
            None => format!("gguf.{}/1", self.name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_registry() {
        let quantized: Vec<&str> = TYPES.iter().filter(|t| t.dense.is_none()).map(|t| t.name).collect();
        let mut registry = ztensor::v2::layout::GGUF_TYPES.to_vec();
        let mut ours = quantized.clone();
        registry.sort_unstable();
        ours.sort_unstable();
        assert_eq!(ours, registry, "one entry per gguf.<type>/1 profile");
        for t in TYPES {
            assert_eq!(lookup(t.id), Ok(t));
            assert!(t.elems_per_block >= 1 && t.block_bytes >= 1);
        }
        assert!(lookup(34).unwrap_err().contains("tq1_0"));
        assert_eq!(lookup(1000).unwrap_err(), "unknown ggml type 1000");
    }
}
