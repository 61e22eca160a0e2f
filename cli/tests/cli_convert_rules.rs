//! `zt convert` checks the data rules `zt verify` checks (issue 30, L2): an
//! input that breaks one is refused (exit 1, the object and the rule named
//! on stderr) and nothing is left beside OUT, for either output generation
//! and every kind of input that can carry the broken value; an input that
//! keeps every rule of the output's generation converts and verifies.

use std::path::Path;
use std::process::{Command, Output};
use ztensor::write::v1_2::{Checksum, NewComponent, NewObject, Writer};
use ztensor::{DType, LogicalType};

fn zt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zt")).args(args).output().expect("run zt")
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("cli/ is inside the repository")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Convert `input` to `version`; `Ok` when zt exits 0 and the output
/// verifies, else zt's stderr, after checking that the directory of OUT
/// holds nothing but the input.
fn convert(input: &Path, version: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.zt");
    let o = zt(&["convert", "-q", "--format-version", version, s(input), s(&out)]);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    match o.status.code() {
        Some(0) => {
            let v = zt(&["verify", s(&out)]);
            assert_eq!(v.status.code(), Some(0), "{input:?} -> {version} exits 0 but does not verify: {v:?}");
            Ok(())
        }
        Some(1) => {
            let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert!(left.is_empty(), "{input:?} -> {version}: refused but left {left:?}");
            Err(err)
        }
        c => panic!("{input:?} -> {version}: exit {c:?}: {err}"),
    }
}

/// A refusal naming `object` and the rule's words.
fn refused(input: &Path, version: &str, object: &str, rule: &str) {
    let err = convert(input, version).expect_err(&format!("{input:?} -> {version} is refused"));
    assert!(err.contains(&format!("object {object:?}")) && err.contains(rule), "{input:?} -> {version}: {err}");
}

fn u64s(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A v1.2 file holding `obj` (no digests: the data rules are under test).
fn v1_2(dir: &Path, name: &str, obj: NewObject<'_>) -> std::path::PathBuf {
    let path = dir.join(name);
    let mut w = Writer::new(Vec::new());
    w.add(obj.checksum(Checksum::None)).unwrap();
    std::fs::write(&path, w.finish().unwrap()).unwrap();
    path
}

fn csr(indices: &[u64], indptr: &[u64]) -> NewObject<'static> {
    let nnz = indices.len();
    NewObject::sparse_csr("m", [2, 3], DType::F32, vec![0u8; 4 * nnz], u64s(indices), u64s(indptr))
}

#[test]
fn v2_inputs_breaking_a_data_rule_are_refused_by_object_and_rule() {
    let h = repo().join("tests/fixtures/v2/hostile");
    let cases = [
        ("csr_col_out_of_range.zt", "m", "CSR column indices"),
        ("csr_cols_unsorted.zt", "m", "CSR column indices"),
        ("csr_cols_duplicate.zt", "m", "CSR column indices"),
        ("csr_indptr_start.zt", "m", "CSR indptr"),
        ("csr_indptr_decreasing.zt", "m", "CSR indptr"),
        ("csr_indptr_end.zt", "m", "CSR indptr"),
        ("coo_out_of_range.zt", "c", "COO coordinate out of range"),
        ("coo_duplicate.zt", "c", "COO duplicate cell"),
        ("t_bool_value.zt", "w", "bool byte other than 0 or 1"),
        ("t_f4_odd_nibble.zt", "w", "f4_e2m1 final odd nibble"),
    ];
    for (file, object, rule) in cases {
        refused(&h.join(file), "2", object, rule);
        // As v1.2: the rule, or (first) the u32 indices v1.2 has no place for.
        let err = convert(&h.join(file), "1.2").expect_err(file);
        let named = err.contains(&format!("object {object:?}"));
        assert!(named && (err.contains(rule) || err.contains("(u64 in v1.2)")), "{file} -> 1.2: {err}");
    }
    // The valid ones of the same profiles convert.
    for file in ["csr_ok_u32.zt", "csr_ok_u64.zt", "coo_ok.zt", "coo_ok_u64_3d.zt", "csr_values_f4.zt"] {
        convert(&h.join(file), "2").unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    convert(&h.join("csr_ok_u64.zt"), "1.2").unwrap();
}

#[test]
fn v1_inputs_breaking_a_data_rule_are_refused_by_object_and_rule() {
    let d = tempfile::tempdir().unwrap();
    let d = d.path();
    // v1.2's rules: refused as either output.
    let out_of_range = v1_2(d, "col.zt", csr(&[0, 3], &[0, 1, 2]));
    let indptr = v1_2(d, "indptr.zt", csr(&[0, 1], &[1, 1, 2]));
    let coo = v1_2(d, "coo.zt", NewObject::sparse_coo("c", &[2, 3], DType::F32, vec![0u8; 4], u64s(&[2, 0])));
    let bools = v1_2(d, "bool.zt", NewObject::dense("b", &[3], DType::Bool, vec![0u8, 2, 1]));
    for v in ["2", "1.2"] {
        refused(&out_of_range, v, "m", "CSR column index out of range");
        refused(&indptr, v, "m", "CSR indptr does not start at 0");
        refused(&coo, v, "c", "COO coordinate out of range");
        refused(&bools, v, "b", "bool byte other than 0 or 1");
    }
    // v2's rules beyond v1.2's: valid v1.2, refused as v2 only.
    let unsorted = v1_2(d, "unsorted.zt", csr(&[2, 0], &[0, 2, 2]));
    let dup = v1_2(d, "dup.zt", NewObject::sparse_coo("c", &[2, 3], DType::F32, vec![0u8; 8], u64s(&[1, 1, 2, 2])));
    let f4 = NewObject::new("q", ztensor::Format::Dense, &[3])
        .component(NewComponent::new("data", DType::U8, vec![0x21u8, 0x13]).logical_type(LogicalType::parse("f4_e2m1fn")));
    let f4 = v1_2(d, "f4.zt", f4);
    for (file, object, rule) in
        [(&unsorted, "m", "CSR column indices"), (&dup, "c", "COO duplicate cell"), (&f4, "q", "f4_e2m1 final odd nibble")]
    {
        convert(file, "1.2").unwrap_or_else(|e| panic!("{file:?} is valid v1.2: {e}"));
        refused(file, "2", object, rule);
    }
}

#[test]
fn other_inputs_with_bool_bytes_other_than_0_or_1_are_refused() {
    let d = tempfile::tempdir().unwrap();
    // safetensors
    let header = br#"{"mask":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}}  "#;
    let mut st = (header.len() as u64).to_le_bytes().to_vec();
    st.extend_from_slice(header);
    st.extend_from_slice(&[1, 2, 0]);
    let st_path = d.path().join("m.safetensors");
    std::fs::write(&st_path, &st).unwrap();
    // npy
    let dict = b"{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }";
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    let pad = 64 - (10 + dict.len() + 1) % 64;
    npy.extend_from_slice(&((dict.len() + pad + 1) as u16).to_le_bytes());
    npy.extend_from_slice(dict);
    npy.extend(std::iter::repeat_n(b' ', pad));
    npy.push(b'\n');
    npy.extend_from_slice(&[0, 1, 7]);
    let npy_path = d.path().join("mask.npy");
    std::fs::write(&npy_path, &npy).unwrap();
    for v in ["2", "1.2"] {
        refused(&st_path, v, "mask", "bool byte other than 0 or 1");
        refused(&npy_path, v, "mask", "bool byte other than 0 or 1");
    }
    // The same files with valid bytes convert.
    st.truncate(st.len() - 3);
    st.extend_from_slice(&[1, 0, 1]);
    std::fs::write(&st_path, &st).unwrap();
    npy.truncate(npy.len() - 3);
    npy.extend_from_slice(&[1, 0, 0]);
    std::fs::write(&npy_path, &npy).unwrap();
    for v in ["2", "1.2"] {
        convert(&st_path, v).unwrap();
        convert(&npy_path, v).unwrap();
    }
}
