//! `zt convert --compress` of a bf16 model compresses as well as `zstd -3`
//! does on the same file (issue #32: within 2%), in both generations: the
//! default build encodes with libzstd and honours the level.

use std::process::Command;

/// bf16 weights shaped like a trained layer's: a normal distribution
/// (Box-Muller over a xorshift stream) of standard deviation 0.02,
/// rounded to bf16.
fn bf16_weights(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut uniform = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ((x >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    };
    let mut out = Vec::with_capacity(2 * n);
    while out.len() < 2 * n {
        let (u, v) = (uniform(), uniform());
        let z = (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos();
        let bits = ((0.02 * z) as f32).to_bits();
        let rounded = (bits + 0x7fff + ((bits >> 16) & 1)) >> 16; // round to nearest even
        out.extend_from_slice(&(rounded as u16).to_le_bytes());
    }
    out
}

/// A safetensors file of bf16 tensors.
fn safetensors(tensors: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut header = String::from("{");
    let mut data = Vec::new();
    for (i, (name, b)) in tensors.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        let (start, end) = (data.len(), data.len() + b.len());
        header += &format!(r#"{sep}"{name}":{{"dtype":"BF16","shape":[{}],"data_offsets":[{start},{end}]}}"#, b.len() / 2);
        data.extend_from_slice(b);
    }
    header.push('}');
    while header.len() % 8 != 0 {
        header.push(' ');
    }
    let mut f = (header.len() as u64).to_le_bytes().to_vec();
    f.extend_from_slice(header.as_bytes());
    f.extend_from_slice(&data);
    f
}

#[test]
fn compress_of_bf16_is_within_two_percent_of_zstd_level_3() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("model.safetensors");
    let model = safetensors(&[
        ("embed.weight", bf16_weights(3 << 20, 1)),
        ("layer0.weight", bf16_weights(2 << 20, 2)),
        ("layer0.bias", bf16_weights(4096, 3)),
    ]);
    std::fs::write(&input, &model).unwrap();
    let anchor = zstd::bulk::compress(&model, 3).unwrap().len() as f64;
    assert!(anchor < 0.9 * model.len() as f64, "the weights must be compressible for this test to mean anything");
    for version in ["1.2", "2"] {
        let out = dir.path().join(format!("model-{version}.zt"));
        let o = Command::new(env!("CARGO_BIN_EXE_zt"))
            .args(["convert", input.to_str().unwrap(), out.to_str().unwrap()])
            .args(["--compress=3", "--format-version", version, "--quiet"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        let ours = std::fs::metadata(&out).unwrap().len() as f64;
        eprintln!("v{version}: {ours} bytes; zstd -3 of the safetensors file: {anchor} (ratio {:.4})", ours / anchor);
        assert!(ours <= 1.02 * anchor, "v{version}: {ours} bytes, over 2% above zstd -3's {anchor}");
    }
}
