//! Raw CBOR, item by item (chainable), on minicbor's `Encoder`: the one CBOR
//! builder of the integration tests (`tests/common`) and the fuzz harness
//! (`fuzz/harness`), which include this file with `#[path]`.
//!
//! Besides well-formed items it writes what an encoder should refuse to:
//! non-minimal heads, non-UTF-8 text, stray breaks, unclosed indefinite
//! items, claimed lengths with no data behind them (`raw` writes anything).
#![allow(dead_code)]

use minicbor::data::{Int, Tag};
use minicbor::Encoder;

const INTO_VEC: &str = "CBOR into a Vec";

/// CBOR bytes under construction.
#[derive(Clone, Debug, Default)]
pub struct Cbor(pub Vec<u8>);

impl Cbor {
    pub fn new() -> Self {
        Cbor(Vec::new())
    }

    /// An encoder appending to the bytes (a `Vec`: writing cannot fail,
    /// hence the `expect(INTO_VEC)` after each call).
    fn e(&mut self) -> Encoder<&mut Vec<u8>> {
        Encoder::new(&mut self.0)
    }

    /// An item head of major type `major` with a minimal-width argument.
    pub fn head(&mut self, major: u8, n: u64) -> &mut Self {
        match major {
            0 => self.uint(n),
            1 => self.nint(n),
            2 => {
                self.e().bytes_len(n).expect(INTO_VEC);
                self
            }
            3 => {
                // minicbor writes no bare text head: a byte-string head, its
                // major type then set to 3 (0b010 -> 0b011).
                let at = self.0.len();
                self.e().bytes_len(n).expect(INTO_VEC);
                self.0[at] |= 0x20;
                self
            }
            4 => self.arr(n),
            5 => self.map(n),
            6 => self.tag(n),
            _ => panic!("head: major type {major} takes no argument here"),
        }
    }

    /// An item head with an 8-byte argument, whatever its value (non-minimal).
    pub fn head8(&mut self, major: u8, n: u64) -> &mut Self {
        self.0.push(major << 5 | 27);
        self.0.extend(n.to_be_bytes());
        self
    }

    pub fn uint(&mut self, n: u64) -> &mut Self {
        self.e().u64(n).expect(INTO_VEC);
        self
    }

    /// Negative integer `-1 - n`.
    pub fn nint(&mut self, n: u64) -> &mut Self {
        self.e().int(Int::try_from(-1 - n as i128).expect("CBOR integer")).expect(INTO_VEC);
        self
    }

    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.e().bytes(b).expect(INTO_VEC);
        self
    }

    pub fn text(&mut self, s: &str) -> &mut Self {
        self.e().str(s).expect(INTO_VEC);
        self
    }

    /// A text string whose payload may be anything (e.g. invalid UTF-8).
    pub fn text_bytes(&mut self, b: &[u8]) -> &mut Self {
        self.head(3, b.len() as u64).raw(b)
    }

    /// Definite array head.
    pub fn arr(&mut self, n: u64) -> &mut Self {
        self.e().array(n).expect(INTO_VEC);
        self
    }

    /// Definite array head (the fuzz harness's name).
    pub fn array(&mut self, n: u64) -> &mut Self {
        self.arr(n)
    }

    /// Definite map head (`n` pairs).
    pub fn map(&mut self, n: u64) -> &mut Self {
        self.e().map(n).expect(INTO_VEC);
        self
    }

    pub fn tag(&mut self, t: u64) -> &mut Self {
        self.e().tag(Tag::new(t)).expect(INTO_VEC);
        self
    }

    /// Indefinite-length byte string start (`0x5f`).
    pub fn bytes_indef(&mut self) -> &mut Self {
        self.e().begin_bytes().expect(INTO_VEC);
        self
    }

    /// Indefinite-length text string start (`0x7f`).
    pub fn text_indef(&mut self) -> &mut Self {
        self.e().begin_str().expect(INTO_VEC);
        self
    }

    /// Indefinite-length array start (`0x9f`).
    pub fn arr_indef(&mut self) -> &mut Self {
        self.e().begin_array().expect(INTO_VEC);
        self
    }

    /// Indefinite-length map start (`0xbf`).
    pub fn map_indef(&mut self) -> &mut Self {
        self.e().begin_map().expect(INTO_VEC);
        self
    }

    /// Break (`0xff`).
    pub fn brk(&mut self) -> &mut Self {
        self.e().end().expect(INTO_VEC);
        self
    }

    pub fn null(&mut self) -> &mut Self {
        self.e().null().expect(INTO_VEC);
        self
    }

    pub fn undefined(&mut self) -> &mut Self {
        self.e().undefined().expect(INTO_VEC);
        self
    }

    pub fn bool(&mut self, b: bool) -> &mut Self {
        self.e().bool(b).expect(INTO_VEC);
        self
    }

    /// A simple value: one byte under 20, else `0xf8` and the byte (so
    /// 20..=31 come in the malformed two-byte form).
    pub fn simple(&mut self, s: u8) -> &mut Self {
        if s < 20 {
            self.raw(&[0xe0 | s])
        } else {
            self.raw(&[0xf8, s])
        }
    }

    /// A half float, given as its bits (minicbor's `f16` converts from f32).
    pub fn f16_bits(&mut self, h: u16) -> &mut Self {
        self.raw(&[0xf9]).raw(&h.to_be_bytes())
    }

    pub fn f32(&mut self, x: f32) -> &mut Self {
        self.e().f32(x).expect(INTO_VEC);
        self
    }

    pub fn f64(&mut self, x: f64) -> &mut Self {
        self.e().f64(x).expect(INTO_VEC);
        self
    }

    /// Arbitrary bytes.
    pub fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }

    /// `depth` nested one-element arrays (`0x81`, or `0x9f` when
    /// `indefinite`, closed by breaks) around the integer 0.
    pub fn nested_arrays(&mut self, depth: usize, indefinite: bool) -> &mut Self {
        let open = if indefinite { 0x9f } else { 0x81 };
        self.0.extend(std::iter::repeat(open).take(depth));
        self.0.push(0x00);
        if indefinite {
            self.0.extend(std::iter::repeat(0xff).take(depth));
        }
        self
    }

    /// The bytes so far (the builder is left empty).
    pub fn build(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.0)
    }

    /// The builder so far, by value (this one is left empty).
    pub fn take(&mut self) -> Cbor {
        std::mem::take(self)
    }
}
