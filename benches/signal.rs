//! Test data the benches share (`#[path = "signal.rs"] mod signal;`).
#![allow(dead_code)]

/// xorshift64*: reproducible noise without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Fill `out` with noise.
    pub fn fill(&mut self, out: &mut [u8]) {
        for c in out.chunks_mut(8) {
            let v = self.next().to_le_bytes();
            c.copy_from_slice(&v[..c.len()]);
        }
    }

    /// Uniform in [-0.5, 0.5).
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    }
}

/// A smooth f32 signal (two sines) with small noise, little-endian: like a
/// weight or activation tensor, the low mantissa bits are noise (zstd
/// shrinks it a little). `seed` must not be 0.
pub fn f32_signal(bytes: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng(seed);
    (0..bytes / 4)
        .flat_map(|i| {
            let t = i as f32;
            let x = (t * 0.001_534).sin() + 0.25 * (t * 0.016_67).sin() + 0.02 * r.unit();
            x.to_le_bytes()
        })
        .collect()
}
