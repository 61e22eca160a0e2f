//! Data rules, checked on decoded bytes when decoding or verifying:
//! `bool` and `f4_e2m1` (Appendix A), CSR and COO (their profiles).

use super::error::{Error, Kind, Result};
use super::types::{DType, LogicalType};

/// Appendix A's byte rules for a part of logical type `t` holding `n` elements.
pub fn check_logical(t: LogicalType<'_>, n: u64, bytes: &[u8]) -> Result<()> {
    match t {
        LogicalType::Bool if bytes.iter().any(|&b| b > 1) => Err(Error::new(Kind::BoolValue)),
        LogicalType::F4E2M1 if n % 2 == 1 && bytes.last().is_some_and(|&b| b & 0xf0 != 0) => {
            Err(Error::new(Kind::F4OddNibble))
        }
        _ => Ok(()),
    }
}

/// Little-endian indices of width 4 (`u32`) or 8 (`u64`).
fn index(bytes: &[u8], ty: DType, i: usize) -> u64 {
    let w = ty.width() as usize;
    let b = &bytes[i * w..i * w + w];
    let mut a = [0u8; 8];
    a[..w].copy_from_slice(b);
    u64::from_le_bytes(a)
}

/// CSR data rules: `indptr[0] == 0`, non-decreasing, `indptr[R] == nnz`;
/// columns strictly increasing within a row and `< C`.
pub fn check_csr(rows: u64, cols: u64, ty: DType, indptr: &[u8], indices: &[u8]) -> Result<()> {
    let w = ty.width() as usize;
    let nnz = (indices.len() / w) as u64;
    let want = rows.checked_add(1).and_then(|r| r.checked_mul(w as u64));
    if want != Some(indptr.len() as u64) || index(indptr, ty, 0) != 0 || index(indptr, ty, rows as usize) != nnz {
        return Err(Error::new(Kind::CsrIndptr));
    }
    for r in 0..rows as usize {
        if index(indptr, ty, r + 1) < index(indptr, ty, r) {
            return Err(Error::new(Kind::CsrIndptr));
        }
    }
    for r in 0..rows as usize {
        let (a, b) = (index(indptr, ty, r), index(indptr, ty, r + 1));
        let mut prev = None;
        for i in a as usize..b as usize {
            let c = index(indices, ty, i);
            if c >= cols || prev.is_some_and(|p| c <= p) {
                return Err(Error::new(Kind::CsrIndices));
            }
            prev = Some(c);
        }
    }
    Ok(())
}

/// COO data rules: every coordinate inside the shape, and no two elements
/// naming the same cell. With `alloc`, cells are sorted by their row-major
/// index (it fits u64: the shape's product does); without, a quadratic scan.
pub fn check_coo(shape: &[u64], ty: DType, coords: &[u8]) -> Result<()> {
    let nd = shape.len();
    let w = ty.width() as usize;
    let nnz = coords.len() / w / nd.max(1);
    for (d, &n) in shape.iter().enumerate() {
        for i in 0..nnz {
            if index(coords, ty, d * nnz + i) >= n {
                return Err(Error::new(Kind::CooOutOfRange));
            }
        }
    }
    #[cfg(feature = "alloc")]
    {
        let mut cells = alloc::vec::Vec::with_capacity(nnz);
        for i in 0..nnz {
            // In range, so the row-major index is below the shape's product (a u64).
            let cell = (0..nd).fold(0u64, |acc, d| acc.wrapping_mul(shape[d]).wrapping_add(index(coords, ty, d * nnz + i)));
            cells.push(cell);
        }
        cells.sort_unstable();
        if cells.windows(2).any(|w| w[0] == w[1]) {
            return Err(Error::new(Kind::CooDuplicate));
        }
        Ok(())
    }
    #[cfg(not(feature = "alloc"))]
    {
        check_coo_pairs(nd, nnz, ty, coords)
    }
}

#[cfg(any(not(feature = "alloc"), test))]
fn check_coo_pairs(nd: usize, nnz: usize, ty: DType, coords: &[u8]) -> Result<()> {
    for i in 0..nnz {
        for j in 0..i {
            if (0..nd).all(|d| index(coords, ty, d * nnz + i) == index(coords, ty, d * nnz + j)) {
                return Err(Error::new(Kind::CooDuplicate));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32s(v: &[u32]) -> [u8; 64] {
        let mut b = [0u8; 64];
        for (i, x) in v.iter().enumerate() {
            b[i * 4..i * 4 + 4].copy_from_slice(&x.to_le_bytes());
        }
        b
    }

    #[test]
    fn csr_rules() {
        let p = u32s(&[0, 2, 3]);
        let i = u32s(&[0, 2, 1]);
        assert!(check_csr(2, 3, DType::U32, &p[..12], &i[..12]).is_ok());
        let bad = u32s(&[0, 2, 1]);
        assert_eq!(check_csr(2, 3, DType::U32, &p[..12], &bad[..12]).map_err(|e| e.kind), Ok(()));
        let dup = u32s(&[1, 1, 0]);
        assert_eq!(check_csr(2, 3, DType::U32, &p[..12], &dup[..12]).unwrap_err().kind, Kind::CsrIndices);
        let big = u32s(&[0, 3, 0]);
        assert_eq!(check_csr(2, 3, DType::U32, &p[..12], &big[..12]).unwrap_err().kind, Kind::CsrIndices);
        let p1 = u32s(&[1, 2, 3]);
        assert_eq!(check_csr(2, 3, DType::U32, &p1[..12], &i[..12]).unwrap_err().kind, Kind::CsrIndptr);
        let p2 = u32s(&[0, 3, 2]);
        assert_eq!(check_csr(2, 3, DType::U32, &p2[..12], &i[..8]).unwrap_err().kind, Kind::CsrIndptr);
    }

    #[test]
    fn coo_rules() {
        let c = u32s(&[0, 1, 2, 0]); // (0,2) (1,0)
        assert!(check_coo(&[2, 3], DType::U32, &c[..16]).is_ok());
        let d = u32s(&[1, 1, 0, 0]);
        assert_eq!(check_coo(&[2, 3], DType::U32, &d[..16]).unwrap_err().kind, Kind::CooDuplicate);
        let r = u32s(&[0, 2, 0, 0]);
        assert_eq!(check_coo(&[2, 3], DType::U32, &r[..16]).unwrap_err().kind, Kind::CooOutOfRange);
        // The no-alloc scan agrees.
        assert!(check_coo_pairs(2, 2, DType::U32, &c[..16]).is_ok());
        assert_eq!(check_coo_pairs(2, 2, DType::U32, &d[..16]).unwrap_err().kind, Kind::CooDuplicate);
    }

    #[test]
    fn logical_byte_rules() {
        assert!(check_logical(LogicalType::Bool, 3, &[0, 1, 1]).is_ok());
        assert_eq!(check_logical(LogicalType::Bool, 3, &[0, 2, 1]).unwrap_err().kind, Kind::BoolValue);
        assert!(check_logical(LogicalType::F4E2M1, 3, &[0xff, 0x0f]).is_ok());
        assert_eq!(check_logical(LogicalType::F4E2M1, 3, &[0xff, 0x1f]).unwrap_err().kind, Kind::F4OddNibble);
        assert!(check_logical(LogicalType::F4E2M1, 4, &[0xff, 0xff]).is_ok());
    }
}
