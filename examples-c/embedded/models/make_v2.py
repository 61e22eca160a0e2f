"""Writes the v2 models the firmware (examples-c/embedded/) reads from flash,
with upstream's own writer (PyPI ztensor==2.1.2), and expect_v2.h: what the
firmware must find in them. Deterministic; the outputs are committed.

    PYTHON=/work/main/target/zt-ref-venv-2.1.2/bin/python   # any venv with ztensor==2.1.2, numpy
    $PYTHON examples-c/embedded/models/make_v2.py

- v2.zt: `ztensor.Writer(path)`, canonical (§6.3: 64 KiB placement, an
  xxh3 digest on every part): a dense f32 and a dense i8 tensor and a
  `zt.quant_group/1` object (4-bit, implied zero point 8), so opening runs
  that profile's metadata rules (spec v2 profiles/quant_group);
- v2_hostile_digest.zt: v2.zt with one byte of `embed.weight`'s data
  flipped (opens: the manifest does not cover the data, §6.1; zt_verify
  reports the xxh3 mismatch);
- v2_hostile_hash.zt: v2.zt with the footer's manifest hash off by one bit
  (§2.3, §3.6.2: open refuses it)."""

import os
import struct
import sys

import numpy as np
import ztensor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "fixtures", "v2"))
from zt2 import dec, read_manifest  # noqa: E402

rng = np.random.default_rng(20261129)


def fnv1a(b):
    """FNV-1a, 32 bits: the firmware computes the same over each part."""
    h = 0x811C9DC5
    for x in b:
        h = ((h ^ x) * 0x01000193) & 0xFFFFFFFF
    return h


# name -> (shape, layout, {part: (dtype, bytes)}, attributes); canonical form
# wants the objects in name order, which this is.
OBJECTS = {
    "embed.weight": ([4, 8], "dense", {"data": ("f32", rng.standard_normal(32).astype(np.float32).tobytes())}, None),
    # zt.quant_group/1, as the profile's bias-8 worked point: shape [64, 2],
    # axis 0, groups of 32: 2 groups x 2 lanes = 4 scales; 128 4-bit codes
    # in 16 u32 words.
    "head.qweight": ([64, 2], "zt.quant_group/1", {
        "data": ("u32", rng.integers(0, 2**32, 16, dtype=np.uint32).tobytes()),
        "scales": ("f32", rng.random(4).astype(np.float32).tobytes()),
    }, {"bits": 4, "group_size": 32, "axis": 0,
        "packing": {"word": "u32", "order": "lsb_first", "per_word": 8},
        "scale_form": "f32_factors", "zero_point": {"form": "implied", "value": 8}}),
    "head.scale": ([16], "dense", {"data": ("i8", rng.integers(-128, 128, 16, dtype=np.int8).tobytes())}, None),
}


def main():
    path = os.path.join(HERE, "v2.zt")
    w = ztensor.Writer(path)
    for name, (shape, layout, parts, attributes) in OBJECTS.items():
        if layout == "dense":
            dtype, data = parts["data"]
            w.add(name, data, shape, dtype)
        else:
            w.add_object(name, shape, {p: {"dtype": d, "data": b} for p, (d, b) in parts.items()},
                         layout=layout, attributes=attributes)
    w.finish()
    good = open(path, "rb").read()
    manifest = dec(read_manifest(good)[0])[0]

    # What the firmware checks: each part's place and stored bytes.
    rows = []
    for name, (shape, layout, parts, _) in OBJECTS.items():
        for part, (dtype, data) in parts.items():
            off, length = manifest["objects"][name]["parts"][part]["blob"]
            assert good[off:off + length] == data and manifest["objects"][name]["parts"][part]["digest"][:5] == "xxh3:"
            rows.append((name, part, len(data), fnv1a(data)))

    bad = bytearray(good)
    off, length = manifest["objects"]["embed.weight"]["parts"]["data"]["blob"]
    bad[off + length // 2] ^= 0x01
    open(os.path.join(HERE, "v2_hostile_digest.zt"), "wb").write(bad)

    bad = bytearray(good)
    mh_at = len(bad) - 40 + 16  # footer: offset, length, hash (u64 LE each), ...
    mh = struct.unpack_from("<Q", bad, mh_at)[0]
    struct.pack_into("<Q", bad, mh_at, mh ^ 1)
    open(os.path.join(HERE, "v2_hostile_hash.zt"), "wb").write(bad)

    with open(os.path.join(HERE, "expect_v2.h"), "w") as h:
        h.write("/* Written by make_v2.py: what the firmware must find in v2.zt. */\n")
        h.write("#define EXPECT_V2_OBJECTS %d\n" % len(OBJECTS))
        h.write("#define EXPECT_V2_PARTS %d\n" % len(rows))
        h.write("#define EXPECT_V2_BYTES %d\n" % len(good))
        h.write("typedef struct { const char *name, *layout; uint32_t ndim, numel, parts; } expect_v2_object;\n")
        # In the manifest's order, which zt_object_at follows: deterministic
        # CBOR sorts map keys by their encoding, shorter first (§3.1).
        h.write("static const expect_v2_object expect_v2_objects[EXPECT_V2_OBJECTS] = {\n")
        for name in manifest["objects"]:
            shape, layout, parts, _ = OBJECTS[name]
            h.write('    {"%s", "%s", %d, %d, %d},\n' % (name, layout, len(shape), int(np.prod(shape)), len(parts)))
        h.write("};\n")
        h.write("typedef struct { const char *object, *part; uint32_t length, fnv1a; } expect_v2_part;\n")
        h.write("static const expect_v2_part expect_v2_parts[EXPECT_V2_PARTS] = {\n")
        for name, part, n, f in rows:
            h.write('    {"%s", "%s", %d, 0x%08xu},\n' % (name, part, n, f))
        h.write("};\n")


if __name__ == "__main__":
    main()
