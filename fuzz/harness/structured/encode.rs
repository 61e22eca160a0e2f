//! Encoding a [`super::SFile`] description into a file (the shared CBOR builder).

use super::*;

fn enc_key(e: &mut Cbor, k: &SKey) {
    match k {
        SKey::Text(s) => e.text(s),
        SKey::Short(n) => e.text(&format!("k{n}")),
        SKey::Int(n) => e.uint(*n),
    };
}

fn enc_attr(e: &mut Cbor, a: &SAttr, budget: &mut usize) {
    // Bound the encoding's size whatever the description.
    if *budget == 0 {
        e.null();
        return;
    }
    *budget -= 1;
    match a {
        SAttr::Uint(n) => drop(e.uint(*n)),
        SAttr::NegInt(n) => drop(e.nint(*n)),
        SAttr::Text(s) => drop(e.text(s)),
        SAttr::Bytes(b) => drop(e.bytes(b)),
        SAttr::Bool(b) => drop(e.bool(*b)),
        SAttr::Null => drop(e.null()),
        SAttr::Undefined => drop(e.undefined()),
        SAttr::F64(f) => drop(e.f64(*f)),
        SAttr::F16(h) => drop(e.f16_bits(*h)),
        SAttr::F32(h) => drop(e.f32(f32::from_bits(*h))),
        SAttr::Simple(s) => drop(e.simple(*s)),
        SAttr::Array(items) => {
            e.array(items.len() as u64);
            for i in items {
                enc_attr(e, i, budget);
            }
        }
        SAttr::Map(entries) => {
            e.map(entries.len() as u64);
            for (k, v) in entries {
                enc_key(e, k);
                enc_attr(e, v, budget);
            }
        }
        SAttr::Tag(t, v) => {
            e.tag(*t);
            enc_attr(e, v, budget);
        }
        SAttr::IndefText(parts) => {
            e.text_indef();
            for p in parts {
                e.text(p);
            }
            e.brk();
        }
        SAttr::IndefBytes(parts) => {
            e.bytes_indef();
            for p in parts {
                e.bytes(p);
            }
            e.brk();
        }
        SAttr::IndefArray(items) => {
            e.arr_indef();
            for i in items {
                enc_attr(e, i, budget);
            }
            e.brk();
        }
        SAttr::IndefMap(entries) => {
            e.map_indef();
            for (k, v) in entries {
                enc_key(e, k);
                enc_attr(e, v, budget);
            }
            e.brk();
        }
        SAttr::Deep(n) => {
            e.nested_arrays(*n as usize, false);
        }
        SAttr::Raw(b) => drop(e.raw(b)),
    }
}

fn dim(d: SDim) -> u64 {
    match d {
        SDim::Small(n) => n as u64 % 8,
        SDim::Mid(n) => n as u64,
        SDim::Huge(n) => n,
        SDim::Pow2(p) => 1u64.checked_shl(p as u32 % 64).unwrap_or(0),
    }
}

fn role_name(r: &SRole) -> String {
    match r {
        SRole::Data => "data".into(),
        SRole::Values => "values".into(),
        SRole::Indices => "indices".into(),
        SRole::Indptr => "indptr".into(),
        SRole::Coords => "coords".into(),
        SRole::Packed => "packed_weight".into(),
        SRole::Scales => "scales".into(),
        SRole::Zeros => "zeros".into(),
        SRole::Other(s) => s.clone(),
    }
}

fn make_blobs(blobs: &[SBlob]) -> (Vec<u8>, Vec<Blob>) {
    let mut region = vec![0u8; 8];
    let mut out = Vec::new();
    let mut total = 0usize;
    for b in blobs.iter().take(64) {
        let (stored, content) = match b {
            SBlob::Bytes(v) => (v.clone(), v.clone()),
            SBlob::Indices(v) => {
                let s: Vec<u8> = v.iter().flat_map(|&x| (x as u64).to_le_bytes()).collect();
                (s.clone(), s)
            }
            SBlob::ZstdRaw(v) => (zstd_raw_frame(v), v.clone()),
            SBlob::ZstdRle(byte, n, declared) => {
                let n = *n as u64;
                let declared = declared.map_or(n, |d| d as u64);
                (zstd_rle_frame(*byte, n, declared), vec![*byte; n as usize])
            }
            SBlob::Garbage(n) => {
                let v: Vec<u8> = (0..*n as usize % 4096).map(|i| (i * 31 % 251) as u8).collect();
                (v.clone(), v)
            }
        };
        total += stored.len();
        if total > 1 << 20 {
            break;
        }
        let off = region.len().next_multiple_of(64);
        region.resize(off, 0);
        region.extend_from_slice(&stored);
        out.push(Blob { offset: off as u64, stored, content });
    }
    (region, out)
}

/// Encode the described file. Returns the file and, per object, what was encoded.
pub(super) fn build_structured(d: &SFile) -> (Vec<u8>, Vec<Expect>) {
    let (mut region, blobs) = make_blobs(&d.blobs);
    let manifest_start_guess = region.len() as u64; // manifest follows the blobs
    let mut e = Cbor::default();
    let mut expects = Vec::new();
    let mut budget = 4096usize;
    let objects: Vec<&SObject> = d.objects.iter().take(256).collect();

    let mut names: Vec<String> = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        let n = match &o.name {
            SName::Index(k) => format!("t{k}"),
            SName::Text(s) => s.clone(),
            SName::Empty => String::new(),
            SName::SameAsPrevious => names.last().cloned().unwrap_or_else(|| format!("o{i}")),
        };
        names.push(n);
    }

    if !d.v0 {
        let root_len = (!matches!(d.version, SVersion::Missing)) as u64
            + d.root_attrs.is_some() as u64
            + 1
            + d.root_extra.is_some() as u64;
        e.map(root_len);
        // root: version, attributes, objects, extra
        match &d.version {
            SVersion::V1_2 => drop(e.text("version").text("1.2.0")),
            SVersion::V1_1 => drop(e.text("version").text("1.1.0")),
            SVersion::V1_0 => drop(e.text("version").text("1.0.0")),
            SVersion::Num(a, b, c) => {
                let s = match c {
                    Some(c) => format!("{a}.{b}.{c}"),
                    None => format!("{a}.{b}"),
                };
                e.text("version").text(&s);
            }
            SVersion::Text(s) => drop(e.text("version").text(s)),
            SVersion::NotText(n) => drop(e.text("version").uint(*n)),
            SVersion::Missing => {}
        }
        if let Some(a) = &d.root_attrs {
            e.text("attributes").map(a.len() as u64);
            for (k, v) in a {
                enc_key(&mut e, k);
                enc_attr(&mut e, v, &mut budget);
            }
        }
        e.text("objects").map(objects.len() as u64);
    } else {
        e.array(objects.len() as u64);
    }

    let legacy = d.v0 || matches!(d.version, SVersion::V1_1 | SVersion::V1_0);
    for (i, o) in objects.iter().enumerate() {
        let dims: Option<Vec<u64>> = o.shape.as_ref().map(|s| s.iter().take(8).map(|&x| dim(x)).collect());
        let numel = dims.as_ref().map_or(Some(1), |ds| ds.iter().try_fold(1u64, |a, &x| a.checked_mul(x)));
        let mut exp = Expect { name: names[i].clone(), dims: dims.clone(), comps: Vec::new(), content: Vec::new() };

        // Resolve each component's fields.
        struct C {
            role: String,
            dtype: Option<String>,
            width: u64,
            ltype: Option<String>,
            offset: Option<u64>,
            length: Option<u64>,
            ulen: Option<u64>,
            encoding: Option<String>,
            digest: Option<String>,
        }
        let mut cs = Vec::new();
        for c in o.comps.iter().take(8) {
            let (dtype, width) = match &c.dtype {
                None => (None, 1),
                Some(SDType::Known(k)) => {
                    let k = *k as usize % 13;
                    let w = DType::ALL[k].width();
                    (Some(if d.v0 { V0_DTYPES[k] } else { DTYPES[k] }.to_string()), w)
                }
                Some(SDType::V11(k)) => {
                    let k = *k as usize % 5;
                    (Some(V11_DTYPES[k].to_string()), [1, 1, 4, 8, 1][k])
                }
                Some(SDType::V0(k)) => (Some(V0_DTYPES[*k as usize % 13].to_string()), DType::ALL[*k as usize % 13].width()),
                Some(SDType::Text(s)) => (Some(s.clone()), 1),
                Some(SDType::NotText(_)) => (None, 1),
            };
            let ltype = c.ltype.as_ref().map(|t| match t {
                SLType::Known(k) => LTYPES[*k as usize % 6].to_string(),
                SLType::Other(s) => s.clone(),
            });
            let ratio = match ltype.as_deref() {
                Some("complex64" | "complex128") => 2,
                _ => 1,
            };
            let blob = match c.offset {
                Some(SOff::Blob(k)) if !blobs.is_empty() => Some(&blobs[k as usize % blobs.len()]),
                _ => None,
            };
            let offset = c.offset.map(|o| match o {
                SOff::Blob(_) => blob.map_or(64, |b| b.offset),
                SOff::Aligned(k) => k as u64 * 64,
                SOff::Raw(x) => x,
                SOff::ManifestStart => manifest_start_guess,
            });
            let implied = numel.and_then(|n| n.checked_mul(width * ratio)).unwrap_or(u64::MAX);
            let resolve = |l: SLen, zstd_stored: bool| match l {
                SLen::Blob => blob.map_or(0, |b| if zstd_stored { b.stored.len() } else { b.content.len() } as u64),
                SLen::Implied => implied,
                SLen::Small(n) => n as u64,
                SLen::Raw(x) => x,
            };
            let length = c.length.map(|l| resolve(l, true));
            let ulen = c.ulen.map(|l| resolve(l, false));
            let encoding = c.encoding.as_ref().map(|x| match x {
                SEnc::Raw => "raw".to_string(),
                SEnc::Zstd => "zstd".to_string(),
                SEnc::Text(s) => s.clone(),
            });
            let digest = c.digest.as_ref().map(|g| {
                let bytes = blob.map_or(&[][..], |b| {
                    let l = length.unwrap_or(0).min(b.stored.len() as u64) as usize;
                    &b.stored[..l]
                });
                match g {
                    SDigest::Crc32c => format!("crc32c:0x{:08X}", crc32c_bitwise(bytes)),
                    SDigest::Crc32cWrong => format!("crc32c:0x{:x}", crc32c_bitwise(bytes) ^ 1),
                    SDigest::Sha256 => {
                        use sha2::Digest as _;
                        let mut s = String::from("sha256:");
                        for b in sha2::Sha256::digest(bytes) {
                            let _ = write!(s, "{b:02x}");
                        }
                        s
                    }
                    SDigest::Text(s) => s.clone(),
                }
            });
            cs.push(C { role: role_name(&c.role), dtype, width, ltype, offset, length, ulen, encoding, digest });
        }

        if d.v0 {
            // A v0.1 tensor map: the first component's fields (if any).
            let c = cs.first();
            let mut fields: Vec<(&str, Vec<u8>)> = Vec::new();
            let t = |s: &str| {
                let mut x = Cbor::default();
                x.text(s);
                x.0
            };
            let u = |n: u64| {
                let mut x = Cbor::default();
                x.uint(n);
                x.0
            };
            fields.push(("name", t(&names[i])));
            if let Some(c) = c {
                if let Some(off) = c.offset {
                    fields.push(("offset", u(off)));
                }
                if let Some(l) = c.length {
                    fields.push(("size", u(l)));
                }
                if let Some(dt) = &c.dtype {
                    fields.push(("dtype", t(dt)));
                }
                if let Some(enc) = &c.encoding {
                    fields.push(("encoding", t(enc)));
                }
                if let Some(g) = &c.digest {
                    fields.push(("checksum", t(g)));
                }
                if let Some(big) = o.comps[0].endian {
                    fields.push(("data_endianness", t(if big { "big" } else { "little" })));
                }
                exp.comps.push(("data".into(), c.offset.unwrap_or(0), c.length.unwrap_or(0)));
            }
            if let Some(ds) = &dims {
                let mut x = Cbor::default();
                x.array(ds.len() as u64);
                for &v in ds {
                    x.uint(v);
                }
                fields.push(("shape", x.0));
            }
            let mut extra = Vec::new();
            if let Some(a) = &o.extra {
                let mut x = Cbor::default();
                enc_attr(&mut x, a, &mut budget);
                extra = x.0;
            }
            e.map(fields.len() as u64 + !extra.is_empty() as u64);
            for (k, v) in &fields {
                e.text(k).raw(v);
            }
            if !extra.is_empty() {
                e.text("custom").raw(&extra);
            }
            expects.push(exp);
            continue;
        }

        e.text(&names[i]);
        let n_fields = o.shape.is_some() as u64
            + o.format.is_some() as u64
            + o.attrs.is_some() as u64
            + 1
            + o.extra.is_some() as u64;
        if o.indefinite {
            e.0.push(0xbf);
        } else {
            e.map(n_fields);
        }
        if let Some(ds) = &dims {
            e.text("shape").array(ds.len() as u64);
            for &v in ds {
                e.uint(v);
            }
        }
        if let Some(f) = &o.format {
            e.text("format");
            match f {
                SFormat::Dense => drop(e.text("dense")),
                SFormat::Csr => drop(e.text("sparse_csr")),
                SFormat::Coo => drop(e.text("sparse_coo")),
                SFormat::Quantized => drop(e.text("quantized_group")),
                SFormat::Other(s) => drop(e.text(s)),
                SFormat::NotText(n) => drop(e.uint(*n as u64)),
            }
        }
        if let Some(a) = &o.attrs {
            e.text("attributes").map(a.len() as u64);
            for (k, v) in a {
                enc_key(&mut e, k);
                enc_attr(&mut e, v, &mut budget);
            }
        }
        e.text("components").map(cs.len() as u64);
        for (c, sc) in cs.iter().zip(o.comps.iter()) {
            e.text(&c.role);
            let n = c.dtype.is_some() as u64
                + (c.dtype.is_none() && matches!(sc.dtype, Some(SDType::NotText(_)))) as u64
                + c.ltype.is_some() as u64
                + c.offset.is_some() as u64
                + c.length.is_some() as u64
                + c.ulen.is_some() as u64
                + c.encoding.is_some() as u64
                + c.digest.is_some() as u64
                + sc.extra.is_some() as u64;
            e.map(n);
            if let Some(dt) = &c.dtype {
                e.text("dtype").text(dt);
            } else if let Some(SDType::NotText(k)) = sc.dtype {
                e.text("dtype").uint(k as u64);
            }
            if let Some(t) = &c.ltype {
                e.text("type").text(t);
            }
            if let Some(x) = c.offset {
                e.text("offset").uint(x);
            }
            if let Some(x) = c.length {
                e.text("length").uint(x);
            }
            if let Some(x) = c.ulen {
                e.text("uncompressed_length").uint(x);
            }
            if let Some(x) = &c.encoding {
                e.text("encoding").text(x);
            }
            if let Some(x) = &c.digest {
                e.text("digest").text(x);
            }
            if let Some(a) = &sc.extra {
                e.text("x-extra");
                enc_attr(&mut e, a, &mut budget);
            }
            let _ = c.width;
            exp.comps.push((c.role.clone(), c.offset.unwrap_or(0), c.length.unwrap_or(0)));
        }
        if let Some(a) = &o.extra {
            e.text("x-object");
            enc_attr(&mut e, a, &mut budget);
        }
        if o.indefinite {
            e.0.push(0xff);
        }
        expects.push(exp);
    }
    if !d.v0 {
        if let Some(a) = &d.root_extra {
            e.text("x-root");
            enc_attr(&mut e, a, &mut budget);
        }
    }
    let _ = legacy;

    let manifest = e.0;
    let mut file = region.split_off(0);
    file[..8].copy_from_slice(if d.v0 { b"ZTEN0001" } else { b"ZTEN1000" });
    file.extend_from_slice(&manifest);
    file.extend_from_slice(&(manifest.len() as u64).to_le_bytes());
    if !d.v0 {
        file.extend_from_slice(b"ZTEN1000");
    }
    if let Some((at, x)) = d.corrupt {
        let n = file.len();
        file[at as usize % n] ^= x;
    }
    (file, expects)
}

/// A file valid by construction: v1.2, dense objects with raw or zstd data,
/// correct lengths and digests, simple attributes.
pub(super) fn build_valid(d: &SFile) -> (Vec<u8>, Vec<Expect>) {
    let mut region = vec![0u8; 8];
    let mut e = Cbor::default();
    let objects: Vec<&SObject> = d.objects.iter().take(64).collect();
    let mut expects = Vec::new();
    let mut budget = 2048usize;
    let has_attrs = d.root_attrs.is_some();
    e.map(2 + has_attrs as u64);
    e.text("version").text("1.2.0");
    if let Some(a) = &d.root_attrs {
        // Unique text keys; values without maps (map keys could repeat).
        e.text("attributes").map(a.len() as u64);
        for (i, (_, v)) in a.iter().enumerate() {
            e.text(&format!("a{i}"));
            enc_simple_attr(&mut e, v, &mut budget, 0);
        }
    }
    e.text("objects").map(objects.len() as u64);
    for (i, o) in objects.iter().enumerate() {
        let k = o.comps.first().and_then(|c| match c.dtype {
            Some(SDType::Known(k)) => Some(k as usize % 13),
            _ => None,
        });
        let dt = DType::ALL[k.unwrap_or(1)];
        let dims: Vec<u64> = o.shape.as_deref().unwrap_or(&[]).iter().take(3).map(|&x| dim(x) % 9).collect();
        let numel: u64 = dims.iter().product();
        let n = (numel * dt.width()) as usize;
        // Content from the blob descriptions, repeated; bools as 0/1.
        let seed: Vec<u8> = d.blobs.get(i % d.blobs.len().max(1)).map_or(vec![i as u8], |b| match b {
            SBlob::Bytes(v) | SBlob::Indices(v) | SBlob::ZstdRaw(v) => v.clone(),
            SBlob::ZstdRle(b, _, _) => vec![*b],
            SBlob::Garbage(x) => x.to_le_bytes().to_vec(),
        });
        let seed = if seed.is_empty() { vec![7] } else { seed };
        let content: Vec<u8> = (0..n).map(|j| if dt == DType::Bool { seed[j % seed.len()] & 1 } else { seed[j % seed.len()] }).collect();
        let zstd = o.comps.first().is_some_and(|c| matches!(c.encoding, Some(SEnc::Zstd)));
        let stored = if zstd { zstd_raw_frame(&content) } else { content.clone() };
        let off = region.len().next_multiple_of(64);
        region.resize(off, 0);
        region.extend_from_slice(&stored);
        let digest = o.comps.first().and_then(|c| c.digest.as_ref()).map(|g| match g {
            SDigest::Sha256 => {
                use sha2::Digest as _;
                let mut s = String::from("sha256:");
                for b in sha2::Sha256::digest(&stored) {
                    let _ = write!(s, "{b:02X}");
                }
                s
            }
            _ => format!("crc32c:0x{:x}", crc32c_bitwise(&stored)),
        });
        let name = format!("{}#{i}", match &o.name {
            SName::Text(s) => s.as_str(),
            _ => "obj",
        });
        e.text(&name);
        e.map(3 + o.attrs.is_some() as u64);
        e.text("shape").array(dims.len() as u64);
        for &x in &dims {
            e.uint(x);
        }
        e.text("format").text("dense");
        if let Some(a) = &o.attrs {
            e.text("attributes").map(a.len() as u64);
            for (j, (_, v)) in a.iter().enumerate() {
                e.text(&format!("k{j}"));
                enc_simple_attr(&mut e, v, &mut budget, 0);
            }
        }
        e.text("components").map(1).text("data");
        e.map(4 + zstd as u64 + digest.is_some() as u64);
        e.text("dtype").text(dt.name());
        e.text("offset").uint(off as u64);
        e.text("length").uint(stored.len() as u64);
        if zstd {
            e.text("uncompressed_length").uint(n as u64);
        }
        e.text("encoding").text(if zstd { "zstd" } else { "raw" });
        if let Some(g) = &digest {
            e.text("digest").text(g);
        }
        expects.push(Expect {
            name,
            dims: Some(dims),
            comps: vec![("data".into(), off as u64, stored.len() as u64)],
            content: vec![Some(content)],
        });
    }
    let manifest = e.0;
    let mut file = region;
    file[..8].copy_from_slice(b"ZTEN1000");
    file.extend_from_slice(&manifest);
    file.extend_from_slice(&(manifest.len() as u64).to_le_bytes());
    file.extend_from_slice(b"ZTEN1000");
    (file, expects)
}

/// Attribute values that are always well-formed and free of duplicate keys.
fn enc_simple_attr(e: &mut Cbor, a: &SAttr, budget: &mut usize, depth: usize) {
    if *budget == 0 || depth > 16 {
        e.null();
        return;
    }
    *budget -= 1;
    match a {
        SAttr::Array(items) | SAttr::IndefArray(items) => {
            e.array(items.len() as u64);
            for i in items {
                enc_simple_attr(e, i, budget, depth + 1);
            }
        }
        SAttr::Map(entries) | SAttr::IndefMap(entries) => {
            e.map(entries.len() as u64);
            for (j, (_, v)) in entries.iter().enumerate() {
                e.uint(j as u64);
                enc_simple_attr(e, v, budget, depth + 1);
            }
        }
        SAttr::Tag(t, v) => {
            e.tag(*t);
            enc_simple_attr(e, v, budget, depth + 1);
        }
        SAttr::Deep(n) => {
            e.nested_arrays((*n as usize).min(32), false);
        }
        SAttr::Raw(b) => drop(e.bytes(b)),
        SAttr::Simple(s) if *s < 20 => drop(e.simple(*s)),
        SAttr::Simple(s) if *s < 32 => drop(e.null()),
        other => enc_attr(e, other, budget),
    }
}
