//! `http://` and `https://` inputs: a [`Source`] that reads a file by HTTP
//! Range requests (RFC 9110 §14), behind `fs::Reader::from_source`, so
//! that `zt info URL` fetches the file's tail only and `zt cat URL OBJ` the
//! tail and that object's bytes; and a plain download for `zt convert`.
//!
//! Every response is checked against its request: a status other than
//! 206, a `Content-Range` that is not the range asked for, a total size
//! other than the first response's (the file changed between requests), a
//! body shorter than announced (the connection dropped) are errors naming
//! what was wrong. Connect and per-read timeouts bound every request.

use crate::progress::Progress;
use std::io::{self, Read, Write};
use std::path::Path;
use std::time::Duration;
use ztensor::source::{Source, SPECULATIVE_TAIL};

/// Seconds to wait for a connection, a response or each read of a body,
/// unless `ZT_HTTP_TIMEOUT` says otherwise.
const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// Whether a command-line input names an HTTP(S) resource.
pub fn is_url(p: &Path) -> bool {
    let s = p.to_str().unwrap_or("");
    let scheme = s.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    matches!(scheme.as_deref(), Some("http" | "https"))
}

/// The client every request goes through: no redirect is refused, no
/// status is turned into an error by the client (we name it ourselves).
fn agent() -> ureq::Agent {
    let secs = std::env::var("ZT_HTTP_TIMEOUT").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_TIMEOUT_SECS);
    let t = Some(Duration::from_secs(secs));
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_connect(t)
        .timeout_recv_response(t)
        .timeout_per_read(t)
        .user_agent(concat!("zt/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

fn err(msg: impl Into<String>) -> io::Error {
    io::Error::other(msg.into())
}

/// A transport failure (refused connection, timeout, TLS) in words.
fn transport(e: ureq::Error) -> io::Error {
    match e {
        ureq::Error::Io(e) => e,
        e => err(e.to_string()),
    }
}

/// A file at a URL, read by Range requests. Its size is the total of the
/// first response's `Content-Range`; that response (a suffix range, the
/// last [`SPECULATIVE_TAIL`] bytes) is kept, so that opening a reader over
/// it costs no further request when the manifest lies in those bytes.
pub struct HttpSource {
    agent: ureq::Agent,
    url: String,
    size: u64,
    /// The file's last bytes, from the first response.
    tail: Vec<u8>,
}

impl HttpSource {
    /// Ask for the file's last bytes; learn its size from the answer.
    pub fn open(url: &str) -> io::Result<HttpSource> {
        Self::open_with(agent(), url)
    }

    fn open_with(agent: ureq::Agent, url: &str) -> io::Result<HttpSource> {
        let want = format!("bytes=-{SPECULATIVE_TAIL}");
        let resp = range_get(&agent, url, &want)?;
        // An empty file has no last bytes to give: 416, `bytes */0`
        // (RFC 9110 §15.5.17); the reader then says it is too small.
        if resp.status().as_u16() == 416 && header(&resp, "content-range") == Some("bytes */0") {
            return Ok(HttpSource { agent, url: url.to_owned(), size: 0, tail: Vec::new() });
        }
        // A whole file no longer than the range asked for (servers answer an
        // empty file so) is all its bytes: no other request will be made.
        let whole = header(&resp, "content-length").and_then(|v| v.trim().parse::<u64>().ok());
        if let (200, Some(size @ 0..=SPECULATIVE_TAIL)) = (resp.status().as_u16(), whole) {
            let tail = read_body(resp, size)?;
            return Ok(HttpSource { agent, url: url.to_owned(), size, tail });
        }
        let (start, end, size) = content_range(&resp, &want)?;
        let n = SPECULATIVE_TAIL.min(size);
        if start != size - n || end + 1 != size {
            return Err(mismatch(&resp, &want));
        }
        let tail = read_body(resp, n)?;
        Ok(HttpSource { agent, url: url.to_owned(), size, tail })
    }
}

impl Source for HttpSource {
    fn size(&self) -> u64 {
        self.size
    }

    fn read_at(&self, offset: u64, out: &mut [u8]) -> io::Result<()> {
        let len = out.len() as u64;
        if len == 0 {
            return Ok(());
        }
        let end = offset.checked_add(len).filter(|&e| e <= self.size).ok_or(io::ErrorKind::UnexpectedEof)?;
        let tail_start = self.size - self.tail.len() as u64;
        if offset >= tail_start {
            let at = (offset - tail_start) as usize;
            out.copy_from_slice(&self.tail[at..at + out.len()]);
            return Ok(());
        }
        let want = format!("bytes={offset}-{}", end - 1);
        let resp = range_get(&self.agent, &self.url, &want)?;
        let (start, last, size) = content_range(&resp, &want)?;
        if size != self.size {
            return Err(err(format!("the file changed size between requests ({} bytes, now {size})", self.size)));
        }
        if start != offset || last + 1 != end {
            return Err(mismatch(&resp, &want));
        }
        out.copy_from_slice(&read_body(resp, len)?);
        Ok(())
    }

    /// A v2 shard: its positional name (Appendix B, `<stem>-<name>.zt`)
    /// beside the root's URL; the reader checks its size and footer.
    fn open_shard(&self, name: &str) -> io::Result<Box<dyn Source>> {
        let url = shard_url(&self.url, name).ok_or_else(|| err("no shard URL"))?;
        Ok(Box::new(Self::open_with(self.agent.clone(), &url)?))
    }
}

/// Appendix B's positional name of shard `name` beside the root at `url`:
/// the last path segment `STEM.zt` becomes `STEM-NAME.zt` (the query and
/// fragment are dropped: they belong to the root's URL).
pub fn shard_url(url: &str, name: &str) -> Option<String> {
    let base = url.split(['?', '#']).next()?;
    let slash = base.rfind('/')?;
    let (dir, file) = base.split_at(slash + 1);
    let stem = file.strip_suffix(".zt").unwrap_or(file);
    if stem.is_empty() || dir.ends_with("//") {
        return None;
    }
    Some(format!("{dir}{stem}-{}.zt", escape(name)))
}

/// Percent-encode what is not an unreserved URL character (RFC 3986 §2.3).
fn escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn range_get(agent: &ureq::Agent, url: &str, range: &str) -> io::Result<ureq::http::Response<ureq::Body>> {
    agent.get(url).header("Range", range).call().map_err(transport)
}

/// The `Content-Range: bytes FIRST-LAST/SIZE` of a 206 answer to `want`.
fn content_range(resp: &ureq::http::Response<ureq::Body>, want: &str) -> io::Result<(u64, u64, u64)> {
    let status = resp.status();
    if status.as_u16() == 200 {
        let msg = "server does not support HTTP range requests (it answered a range request with the whole file)";
        return Err(err(msg));
    }
    if status.as_u16() != 206 {
        return Err(err(format!("HTTP {status}")));
    }
    let parsed = header(resp, "content-range").and_then(|v| {
        let (first, rest) = v.strip_prefix("bytes ")?.split_once('-')?;
        let (last, size) = rest.split_once('/')?;
        let (first, last, size) = (first.trim().parse().ok()?, last.trim().parse().ok()?, size.trim().parse().ok()?);
        (first <= last && last < size).then_some((first, last, size))
    });
    parsed.ok_or_else(|| mismatch(resp, want))
}

fn header<'r>(resp: &'r ureq::http::Response<ureq::Body>, name: &str) -> Option<&'r str> {
    resp.headers().get(name).and_then(|v| v.to_str().ok())
}

fn mismatch(resp: &ureq::http::Response<ureq::Body>, want: &str) -> io::Error {
    let got = header(resp, "content-range").unwrap_or("none");
    err(format!("the server's Content-Range ({got}) does not match the request ({want})"))
}

/// Exactly `len` bytes of a body; a `Content-Length` other than `len` or a
/// body that ends early is an error.
fn read_body(resp: ureq::http::Response<ureq::Body>, len: u64) -> io::Result<Vec<u8>> {
    if let Some(n) = header(&resp, "content-length").and_then(|v| v.trim().parse::<u64>().ok()) {
        if n != len {
            let msg = format!("the server's Content-Length ({n}) does not match its Content-Range ({len} bytes)");
            return Err(err(msg));
        }
    }
    let mut body = resp.into_body();
    let mut r = body.with_config().limit(len).reader();
    let mut v = vec![0u8; len as usize];
    let mut got = 0;
    while got < v.len() {
        match r.read(&mut v[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(dropped(got as u64, len, &e)),
        }
    }
    if (got as u64) < len {
        return Err(err(format!("the response ended after {got} of {len} bytes (the connection closed)")));
    }
    // Read to the body's end: the connection then goes back to the pool
    // for the next request (no new TCP and TLS handshake), and a body
    // longer than announced is caught.
    match r.read(&mut [0u8; 1]) {
        Ok(0) => Ok(v),
        Ok(_) => Err(err(format!("the response is longer than the {len} bytes announced"))),
        Err(e) => Err(io::Error::new(e.kind(), format!("the response is longer than the {len} bytes announced: {e}"))),
    }
}

fn dropped(got: u64, len: u64, e: &io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("the response ended after {got} of {len} bytes: {e}"))
}

/// Download `url` into `dest` with one plain GET (no Range: `zt convert`
/// reads every byte anyway, and servers without Range support serve it
/// too), a progress bar on stderr unless `quiet`. Returns the bytes written.
pub fn download(url: &str, dest: &mut std::fs::File, quiet: bool) -> io::Result<u64> {
    let resp = agent().get(url).call().map_err(transport)?;
    let status = resp.status();
    if status.as_u16() != 200 {
        return Err(err(format!("HTTP {status}")));
    }
    let declared = header(&resp, "content-length").and_then(|v| v.trim().parse::<u64>().ok());
    let progress = match quiet {
        true => Progress::hidden(declared.unwrap_or(0)),
        false => Progress::new(declared.unwrap_or(0)),
    };
    let mut body = resp.into_body();
    let mut r = body.with_config().limit(u64::MAX).reader();
    let mut buf = vec![0u8; 1 << 20];
    let mut got = 0u64;
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(dropped(got, declared.unwrap_or(got), &e)),
        };
        dest.write_all(&buf[..n])?;
        got += n as u64;
        progress.add(n as u64);
    }
    match declared {
        Some(n) if n != got => Err(err(format!("the response ended after {got} of {n} bytes (the connection closed)"))),
        _ => Ok(got),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_told_from_paths() {
        for u in ["http://h/x.zt", "HTTPS://h:8/a/b.zt?sig=1"] {
            assert!(is_url(Path::new(u)), "{u}");
        }
        for p in ["x.zt", "-", "ftp://h/x.zt", "http:/x", "dir/http://x"] {
            assert!(!is_url(Path::new(p)), "{p}");
        }
    }

    #[test]
    fn shards_are_named_beside_the_root() {
        let s = |u, n| shard_url(u, n);
        assert_eq!(s("http://h/d/model.zt", "a").as_deref(), Some("http://h/d/model-a.zt"));
        assert_eq!(s("https://h/m.zt?X-Sig=1#f", "00001").as_deref(), Some("https://h/m-00001.zt"));
        assert_eq!(s("http://h/d/m.zt", "a b/c").as_deref(), Some("http://h/d/m-a%20b%2Fc.zt"));
        assert_eq!(s("http://h/d/", "a"), None);
    }
}
