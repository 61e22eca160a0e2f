#!/usr/bin/env python3
"""Write the small .zt samples the C examples are tested on (committed).

    python3 examples-c/samples/make_samples.py        # rewrites examples-c/samples/*.zt

Python standard library only. Three kinds of file:

- good/      valid files the reference fixtures do not cover (attributes of
             every CBOR kind, a zstd component of unknown decoded size, ...).
- hostile/open/   refused when opened: every example prints the error and
                  exits 1.
- hostile/data/   open fine (the manifest is sound) but their data is bad:
                  `inspect` succeeds; `load` and `engine --verify` exit 1.
"""

import hashlib
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.normpath(os.path.join(HERE, "..", "..", "tests", "fixtures"))
MAGIC = b"ZTEN1000"


# ------------------------------------------------------------------ CBOR


def head(major, n):
    if n < 24:
        return bytes([major << 5 | n])
    if n < 1 << 8:
        return bytes([major << 5 | 24, n])
    if n < 1 << 16:
        return bytes([major << 5 | 25]) + struct.pack(">H", n)
    if n < 1 << 32:
        return bytes([major << 5 | 26]) + struct.pack(">I", n)
    return bytes([major << 5 | 27]) + struct.pack(">Q", n)


class Raw(bytes):
    """Already-encoded CBOR, inserted as is."""


def cbor(v):
    if isinstance(v, Raw):
        return bytes(v)
    if v is None:
        return b"\xf6"
    if v is True:
        return b"\xf5"
    if v is False:
        return b"\xf4"
    if isinstance(v, int):
        return head(0, v) if v >= 0 else head(1, -1 - v)
    if isinstance(v, float):
        return b"\xfb" + struct.pack(">d", v)
    if isinstance(v, str):
        b = v.encode()
        return head(3, len(b)) + b
    if isinstance(v, bytes):
        return head(2, len(v)) + v
    if isinstance(v, list):
        return head(4, len(v)) + b"".join(cbor(x) for x in v)
    if isinstance(v, dict):
        return head(5, len(v)) + b"".join(cbor(k) + cbor(x) for k, x in v.items())
    raise TypeError(v)


# ------------------------------------------------------------------ files


class Blobs:
    """The data region: blobs at 64-aligned offsets after the 8-byte magic."""

    def __init__(self):
        self.buf = bytearray(MAGIC)

    def add(self, data):
        self.buf += b"\0" * (-len(self.buf) % 64)
        off = len(self.buf)
        self.buf += data
        return off


def v1_file(blobs, manifest):
    m = cbor(manifest) if not isinstance(manifest, bytes) else manifest
    return bytes(blobs.buf) + m + struct.pack("<Q", len(m)) + MAGIC


def comp(dtype, offset, length, **extra):
    c = {"dtype": dtype, "offset": offset, "length": length}
    c.update(extra)
    return c


def dense(shape, components, **extra):
    o = {"shape": shape, "format": "dense", "components": components}
    o.update(extra)
    return o


def root(objects, **extra):
    r = {"version": "1.2.0"}
    r.update(extra)
    r["objects"] = objects
    return r


def sha256(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


def f32(*xs):
    return struct.pack("<%df" % len(xs), *xs)


def simple_file():
    """One dense f32 [4] object called `w`."""
    b = Blobs()
    data = f32(1, 2, 3, 4)
    off = b.add(data)
    return b, off, data


def zstd_raw_frame(payload):
    """A valid zstd frame holding `payload` in one raw (uncompressed) block."""
    n = len(payload)
    fhd = 0x20  # single segment, FCS 1 byte (n < 256)
    assert n < 256
    block = ((n << 3) | (0 << 1) | 1).to_bytes(3, "little")  # last block, raw
    return b"\x28\xb5\x2f\xfd" + bytes([fhd, n]) + block + payload


def zstd_unknown_size_frame(payload):
    """A zstd frame without Frame_Content_Size (as the reference writes)."""
    n = len(payload)
    fhd = 0x00  # no FCS, window descriptor follows
    wd = 0x00  # window 1 KiB: enough for tiny payloads
    block = ((n << 3) | (0 << 1) | 1).to_bytes(3, "little")
    return b"\x28\xb5\x2f\xfd" + bytes([fhd, wd]) + block + payload


# ------------------------------------------------------------------ samples


def good():
    out = {}
    # Attributes of every CBOR kind, file-level and per object.
    b, off, data = simple_file()
    attrs = {
        "text": "hello",
        "uint": 42,
        "neg": -7,
        "big": 2**64 - 1,
        "float": 1.5,
        "bool": True,
        "null": None,
        "bytes": b"\x01\x02",
        "array": [1, "x"],
        "map": {"a": 1},
        "tagged": Raw(b"\xc1\x1a\x00\x01\x00\x00"),  # 1(65536)
        "chunked": Raw(b"\x7f\x62ab\x61c\xff"),  # (_ "ab", "c")
    }
    m = root(
        {"w": dense([4], {"data": comp("f32", off, 16, digest=sha256(data))}, attributes=attrs)},
        attributes={"framework": "c-examples", "layers": 1},
    )
    out["good/attributes_all_kinds.zt"] = v1_file(b, m)

    # v1.1 zstd component outside dense `data`: no declared decoded size.
    b = Blobs()
    vals = f32(1, 2)
    ind = struct.pack("<2Q", 0, 3)
    ptr = struct.pack("<3Q", 0, 1, 2)
    ov = b.add(vals)
    oi = b.add(zstd_unknown_size_frame(ind))
    op = b.add(ptr)
    m = {
        "version": "1.1.0",
        "objects": {
            "csr": {
                "shape": [2, 4],
                "format": "sparse_csr",
                "components": {
                    "values": comp("f32", ov, 8),
                    "indices": comp("u64", oi, len(zstd_unknown_size_frame(ind)), encoding="zstd"),
                    "indptr": comp("u64", op, 24),
                },
            }
        },
    }
    out["good/v1.1_zstd_unknown_size.zt"] = v1_file(b, m)
    return out


def hostile_open():
    out = {}
    base = open(os.path.join(FIXTURES, "v1.2", "dense_all_dtypes.zt"), "rb").read()
    out["hostile/open/empty_file.zt"] = b""
    out["hostile/open/bad_magic.zt"] = b"ZTEN9999" + base[8:]
    out["hostile/open/truncated.zt"] = base[: len(base) // 2]
    out["hostile/open/footer_only.zt"] = struct.pack("<Q", 0) + MAGIC
    huge = bytearray(base)
    huge[-16:-8] = struct.pack("<Q", 1 << 62)
    out["hostile/open/manifest_size_huge.zt"] = bytes(huge)

    b, off, data = simple_file()
    out["hostile/open/cbor_garbage.zt"] = v1_file(b, b"\xff\xfe\xfd\x1c\x00")
    out["hostile/open/cbor_truncated.zt"] = v1_file(b, cbor(root({"w": dense([4], {"data": comp("f32", off, 16)})}))[:-5])
    out["hostile/open/unsupported_version.zt"] = v1_file(
        b, root({"w": dense([4], {"data": comp("f32", off, 16)})}, version="2.0.0")
    )
    out["hostile/open/out_of_bounds.zt"] = v1_file(b, root({"w": dense([4], {"data": comp("f32", 1 << 40, 16)})}))
    out["hostile/open/misaligned.zt"] = v1_file(b, root({"w": dense([4], {"data": comp("f32", off + 4, 12)})}))
    out["hostile/open/length_mismatch.zt"] = v1_file(b, root({"w": dense([5], {"data": comp("f32", off, 16)})}))
    out["hostile/open/shape_overflow.zt"] = v1_file(
        b, root({"w": dense([2**32, 2**32, 16], {"data": comp("f32", off, 16)})})
    )
    out["hostile/open/unknown_dtype.zt"] = v1_file(b, root({"w": dense([4], {"data": comp("f128", off, 16)})}))
    # Duplicate object names: written by hand (a dict cannot hold them).
    obj = cbor(dense([4], {"data": comp("f32", off, 16)}))
    objects = head(5, 2) + cbor("w") + obj + cbor("w") + obj
    dup = head(5, 2) + cbor("version") + cbor("1.2.0") + cbor("objects") + objects
    out["hostile/open/duplicate_names.zt"] = v1_file(b, dup)
    # Partial overlap of two blobs.
    b2 = Blobs()
    o1 = b2.add(f32(*range(32)))
    out["hostile/open/overlap.zt"] = v1_file(
        b2,
        root(
            {
                "a": dense([32], {"data": comp("f32", o1, 128)}),
                "b": dense([16], {"data": comp("f32", o1 + 64, 64)}),
            }
        ),
    )
    # Attributes nested far deeper than any reader should follow.
    deep = b"\x81" * 100000 + b"\x00"
    out["hostile/open/deep_nesting.zt"] = v1_file(
        b, head(5, 2) + cbor("version") + cbor("1.2.0") + cbor("objects") + head(5, 1) + cbor("w")
        + head(5, 4) + cbor("shape") + cbor([4]) + cbor("format") + cbor("dense")
        + cbor("attributes") + head(5, 1) + cbor("deep") + deep
        + cbor("components") + cbor({"data": comp("f32", off, 16)})
    )
    # A CBOR length that claims far more bytes than there are.
    out["hostile/open/length_too_large.zt"] = v1_file(
        b, head(5, 2) + cbor("version") + cbor("1.2.0") + cbor("objects") + head(5, 1) + b"\x7b" + struct.pack(">Q", 1 << 60)
    )
    return out


def hostile_data():
    out = {}
    b, off, data = simple_file()
    bad = "sha256:" + "00" * 32
    out["hostile/data/digest_mismatch.zt"] = v1_file(b, root({"w": dense([4], {"data": comp("f32", off, 16, digest=bad)})}))

    b = Blobs()
    frame = b"\x28\xb5\x2f\xfd" + b"\x00\x00" + b"\xff" * 10
    o = b.add(frame)
    out["hostile/data/zstd_corrupt.zt"] = v1_file(
        b, root({"w": dense([4], {"data": comp("f32", o, len(frame), encoding="zstd", uncompressed_length=16)})})
    )

    # Declares 64 GiB from 16 stored bytes: must be refused before anyone allocates.
    b = Blobs()
    frame = zstd_raw_frame(b"\x00" * 7)
    o = b.add(frame)
    n = 1 << 36
    out["hostile/data/zstd_bomb.zt"] = v1_file(
        b, root({"w": dense([n], {"data": comp("u8", o, len(frame), encoding="zstd", uncompressed_length=n)})})
    )

    # zstd that decodes to fewer bytes than declared.
    b = Blobs()
    frame = zstd_raw_frame(f32(1, 2, 3))
    o = b.add(frame)
    out["hostile/data/zstd_short.zt"] = v1_file(
        b, root({"w": dense([4], {"data": comp("f32", o, len(frame), encoding="zstd", uncompressed_length=16)})})
    )

    # CSR whose column index is outside the shape.
    b = Blobs()
    ov = b.add(f32(1, 2))
    oi = b.add(struct.pack("<2Q", 0, 99))
    op = b.add(struct.pack("<3Q", 0, 1, 2))
    out["hostile/data/csr_index_out_of_range.zt"] = v1_file(
        b,
        root(
            {
                "csr": {
                    "shape": [2, 4],
                    "format": "sparse_csr",
                    "components": {
                        "values": comp("f32", ov, 8),
                        "indices": comp("u64", oi, 16),
                        "indptr": comp("u64", op, 24),
                    },
                }
            }
        ),
    )

    b = Blobs()
    o = b.add(b"\x00\x01\x02\x01")
    out["hostile/data/bool_not_0_or_1.zt"] = v1_file(b, root({"mask": dense([4], {"data": comp("bool", o, 4)})}))
    return out


def main():
    files = {}
    files.update(good())
    files.update(hostile_open())
    files.update(hostile_data())
    for rel, data in sorted(files.items()):
        path = os.path.join(HERE, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        print("%-45s %8d bytes" % (rel, len(data)))


if __name__ == "__main__":
    main()
