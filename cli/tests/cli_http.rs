//! `zt info|cat|verify|convert URL` against a real HTTP server that honours
//! Range requests (lighttpd, installed by `.ci/run`), behind a counting
//! proxy of ours that records every request's Range header and the bytes
//! served; and against hand-written misbehaving servers (a connection
//! dropped mid-body, a 200 to a range request, lies about the length), each
//! of which must end zt with a clear message, bounded by its timeouts.
//!
//! Without lighttpd the real-server tests are skipped with a loud message,
//! except under `ZT_REQUIRE_C=1` (CI) or `ZT_STRICT=1`, where its absence
//! fails them.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use ztensor::write::Writer;
use ztensor::DType;

fn zt(args: &[&str]) -> Output {
    zt_env(args, &[])
}

fn zt_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_zt"));
    c.args(args);
    // zt honours proxy variables; the servers here are on this machine.
    for v in ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"] {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run zt")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

// ------------------------------------------------------------ the models

/// A model of `n` f32 tensors of `elems` elements each (`w0000`, `w0001`,
/// ...), in format `version` ("2" or "1.2"), with digests (v2: xxh3, the
/// writer's default; v1.2: crc32c, converted from the v2 file by zt).
fn model(path: &Path, version: &str, n: usize, elems: usize) {
    let v2 = path.with_extension("v2.tmp");
    let mut w = Writer::create(&v2).unwrap();
    for i in 0..n {
        let data: Vec<u8> = (0..elems * 4).map(|j| (i * 31 + j * 7) as u8).collect();
        w.add_dense(&format!("w{i:04}"), &[elems as u64], DType::F32, &data[..]).unwrap();
    }
    w.finish().unwrap();
    if version == "2" {
        std::fs::rename(&v2, path).unwrap();
        return;
    }
    let (from, to) = (v2.to_str().unwrap(), path.to_str().unwrap());
    let out = zt(&["convert", "-q", "--format-version", "1.2", "--digest", "crc32c", from, to]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::remove_file(&v2).unwrap();
}

/// The `[offset, offset + length)` of an object's `data` part, from `zt info --json`.
fn data_range(path: &Path, object: &str) -> (u64, u64) {
    let out = zt(&["info", "--json", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = doc["objects"].as_array().unwrap().iter().find(|o| o["name"] == object).unwrap();
    let d = &o["components"]["data"];
    let offset = d["offset"].as_u64().unwrap();
    (offset, offset + d["length"].as_u64().unwrap())
}

// ------------------------------------------------- lighttpd and the proxy

/// lighttpd's path, or `None` (loudly) when it is not installed and CI
/// does not require it.
fn lighttpd() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/local/sbin")])
        .map(|d| d.join("lighttpd"))
        .find(|p| p.is_file());
    if found.is_none() {
        let msg = "lighttpd not found (apt-get install lighttpd): the HTTP tests against a real server did NOT run";
        let required = ["ZT_REQUIRE_C", "ZT_STRICT"].iter().any(|v| std::env::var(v).as_deref() == Ok("1"));
        assert!(!required, "{msg}");
        eprintln!("!!!!!!!! WARNING: {msg} !!!!!!!!");
    }
    found
}

/// What the proxy saw: one entry per request (its Range header, if any),
/// and the bytes the server sent back (heads and bodies).
#[derive(Default)]
struct Seen {
    ranges: Vec<Option<String>>,
    bytes: u64,
    connections: usize,
}

/// lighttpd serving a directory, behind a counting proxy.
struct Server {
    child: Child,
    root: tempfile::TempDir,
    proxy: u16,
    seen: Arc<Mutex<Seen>>,
}

impl Server {
    fn start() -> Option<Server> {
        let exe = lighttpd()?;
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("www")).unwrap();
        // A free port, then lighttpd on it; tried again if another
        // process took the port in between (lighttpd then exits). No stat
        // cache: a file a test removes is gone at once.
        for _ in 0..20 {
            let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let conf = root.path().join("lighttpd.conf");
            std::fs::write(
                &conf,
                format!(
                    "server.document-root = \"{}\"\nserver.bind = \"127.0.0.1\"\nserver.port = {port}\n\
                     server.errorlog = \"{}\"\nserver.modules = ()\n\
                     server.stat-cache-engine = \"disable\"\n",
                    root.path().join("www").display(),
                    root.path().join("error.log").display()
                ),
            )
            .unwrap();
            let mut child = Command::new(&exe)
                .args(["-D", "-f"])
                .arg(&conf)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start lighttpd");
            // Ready once it accepts a connection; gone if it could not bind.
            loop {
                if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    let seen = Arc::new(Mutex::new(Seen::default()));
                    let proxy = proxy(port, seen.clone());
                    return Some(Server { child, root, proxy, seen });
                }
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                thread::sleep(std::time::Duration::from_millis(20));
            }
        }
        panic!("lighttpd did not start");
    }

    /// Put `src` on the server as `name`; its URL (through the proxy).
    fn serve(&self, src: &Path, name: &str) -> String {
        std::fs::copy(src, self.root.path().join("www").join(name)).unwrap();
        self.url(name)
    }

    fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/{name}", self.proxy)
    }

    /// What was seen since the last call.
    fn take(&self) -> Seen {
        std::mem::take(&mut *self.seen.lock().unwrap())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A proxy on a port of its own in front of `upstream`: every request
/// head is recorded before it is passed on, every byte of the answers
/// counted before it is passed back, so that the counts are complete once
/// zt has its answers.
fn proxy(upstream: u16, seen: Arc<Mutex<Seen>>) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    thread::spawn(move || {
        for client in l.incoming() {
            let Ok(client) = client else { continue };
            let Ok(server) = TcpStream::connect(("127.0.0.1", upstream)) else { continue };
            seen.lock().unwrap().connections += 1;
            let (c2, s2, seen2) = (client.try_clone().unwrap(), server.try_clone().unwrap(), seen.clone());
            thread::spawn(move || requests(client, server, &seen2));
            let seen3 = seen.clone();
            thread::spawn(move || answers(s2, c2, &seen3));
        }
    });
    port
}

fn requests(mut from: TcpStream, mut to: TcpStream, seen: &Mutex<Seen>) {
    let (mut buf, mut chunk) = (Vec::new(), [0u8; 4096]);
    while let Ok(n) = from.read(&mut chunk) {
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
        // Requests without bodies: each ends at its blank line.
        while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = text(&buf[..end]);
            let range = head.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("range").then(|| v.trim().to_owned())
            });
            seen.lock().unwrap().ranges.push(range);
            if to.write_all(&buf[..end + 4]).is_err() {
                return;
            }
            buf.drain(..end + 4);
        }
    }
    let _ = to.shutdown(Shutdown::Write);
}

fn answers(mut from: TcpStream, mut to: TcpStream, seen: &Mutex<Seen>) {
    let mut chunk = [0u8; 65536];
    while let Ok(n) = from.read(&mut chunk) {
        if n == 0 {
            break;
        }
        seen.lock().unwrap().bytes += n as u64;
        if to.write_all(&chunk[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Both);
}

/// A Range header's bytes as `[start, end)` in a file of `size` bytes.
fn range_of(header: &str, size: u64) -> (u64, u64) {
    let spec = header.strip_prefix("bytes=").expect("a bytes range");
    let (a, b) = spec.split_once('-').unwrap();
    match a {
        "" => (size - b.parse::<u64>().unwrap().min(size), size),
        _ => (a.parse().unwrap(), b.parse::<u64>().unwrap() + 1),
    }
}

// ------------------------------------------------------------ the tests

#[test]
fn info_lists_v2_and_v1_2_models_with_at_most_two_requests() {
    let Some(s) = Server::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    // (file, version, tensors, elements): small manifests (in the last
    // 64 KiB: one request), and large ones (two requests).
    let cases = [
        ("small-v2.zt", "2", 8, 1 << 16, 1),
        ("small-v12.zt", "1.2", 8, 1 << 16, 1),
        ("many-v2.zt", "2", 2000, 256, 2),
        ("many-v12.zt", "1.2", 2000, 256, 2),
    ];
    for (name, version, n, elems, requests) in cases {
        let local = dir.path().join(name);
        model(&local, version, n, elems);
        let size = std::fs::metadata(&local).unwrap().len();
        let url = s.serve(&local, name);
        s.take();
        for json in [false, true] {
            let mut args = vec!["info"];
            args.extend(json.then_some("--json"));
            let remote = zt(&[&args[..], &[url.as_str()]].concat());
            let seen = s.take();
            assert!(remote.status.success(), "{name}: {}", text(&remote.stderr));
            let here = zt(&[&args[..], &[local.to_str().unwrap()]].concat());
            // The same listing, under the URL instead of the path.
            assert_eq!(text(&remote.stdout), text(&here.stdout).replace(local.to_str().unwrap(), &url), "{name}");
            assert_eq!(seen.ranges.len(), requests, "{name}: {:?}", seen.ranges);
            assert!(seen.ranges.iter().all(Option::is_some), "{name}: every request is a range request");
            // The 64 KiB tail, the manifest when further back, and the heads.
            let manifest = size - range_of(seen.ranges.last().unwrap().as_ref().unwrap(), size).0;
            assert!(seen.bytes < (64 << 10) + manifest + 2048, "{name}: {} bytes of {size}", seen.bytes);
            assert!(seen.bytes * 4 < size, "{name}: {} bytes served of {size}", seen.bytes);
        }
    }
}

#[test]
fn an_empty_or_missing_file_is_reported_as_locally() {
    let Some(s) = Server::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.zt");
    std::fs::write(&empty, b"").unwrap();
    let url = s.serve(&empty, "empty.zt");
    let here = zt(&["info", empty.to_str().unwrap()]);
    assert_eq!(here.status.code(), Some(1));
    let remote = zt(&["info", &url]);
    assert_eq!(text(&remote.stderr), text(&here.stderr).replace(empty.to_str().unwrap(), &url));
    fails(&zt(&["verify", &s.url("missing.zt")]), &s.url("missing.zt"), "HTTP 404 Not Found");
    // Servers that answer an empty file's range with 416 (RFC 9110 §15.5.17).
    let url416 = misbehaving(Box::new(|_, _| {
        (b"HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */0\r\nContent-Length: 0\r\n\r\n".to_vec(), Next)
    }));
    let remote = zt(&["info", &url416]);
    assert_eq!(text(&remote.stderr), text(&here.stderr).replace(empty.to_str().unwrap(), &url416));
}

#[test]
fn a_whole_small_file_answering_a_range_request_is_read() {
    let (_d, _p, file) = big_model();
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small.zt");
    model(&small, "1.2", 2, 16); // v1.2: 64-byte alignment, a small file
    let bytes = std::fs::read(&small).unwrap();
    assert!(bytes.len() < 65536);
    let url = misbehaving(Box::new(move |_, _| (whole(&bytes), Next)));
    let remote = zt(&["cat", &url, "w0001"]);
    assert!(remote.status.success(), "{}", text(&remote.stderr));
    assert_eq!(remote.stdout, zt(&["cat", small.to_str().unwrap(), "w0001"]).stdout);
    // One byte more than the range asked for: refused.
    let big = file[..65537].to_vec();
    let url = misbehaving(Box::new(move |_, _| (whole(&big), Next)));
    fails(&zt(&["info", &url]), &url, "server does not support HTTP range requests");
}

#[test]
fn cat_reads_the_tail_and_the_object_only() {
    let Some(s) = Server::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (name, version) in [("m2.zt", "2"), ("m12.zt", "1.2")] {
        let local = dir.path().join(name);
        model(&local, version, 16, 1 << 16);
        let size = std::fs::metadata(&local).unwrap().len();
        let url = s.serve(&local, name);
        let (start, end) = data_range(&local, "w0003");
        s.take();
        let remote = zt(&["cat", &url, "w0003"]);
        let seen = s.take();
        assert!(remote.status.success(), "{name}: {}", text(&remote.stderr));
        let here = zt(&["cat", local.to_str().unwrap(), "w0003"]);
        assert!(here.status.success());
        assert_eq!(remote.stdout, here.stdout, "{name}");
        assert_eq!(remote.stdout.len() as u64, end - start);
        // The tail (the first request), then exactly the object's bytes.
        let ranges: Vec<(u64, u64)> = seen.ranges.iter().map(|r| range_of(r.as_ref().unwrap(), size)).collect();
        assert_eq!(ranges, [(size - (64 << 10), size), (start, end)], "{name}");
        // The second request reuses the first one's connection.
        assert_eq!(seen.connections, 1, "{name}");
        assert!(seen.bytes < (64 << 10) + (end - start) + 2048, "{name}: {} bytes", seen.bytes);
    }
}

#[test]
fn verify_reads_every_part_and_fails_a_corrupt_one() {
    let Some(s) = Server::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    for (name, version) in [("v2.zt", "2"), ("v12.zt", "1.2")] {
        let local = dir.path().join(name);
        model(&local, version, 4, 1 << 15);
        let url = s.serve(&local, name);
        let ok = zt(&["verify", &url]);
        assert!(ok.status.success(), "{name}: {}", text(&ok.stderr));
        assert!(text(&ok.stdout).starts_with(&format!("{url}: OK (4 objects, 4 components, 4 digests verified")));
        // One byte of w0002's data changed: its digest no longer matches.
        let mut bytes = std::fs::read(&local).unwrap();
        let (start, _) = data_range(&local, "w0002");
        bytes[start as usize + 5] ^= 0xff;
        let bad = dir.path().join(format!("bad-{name}"));
        std::fs::write(&bad, &bytes).unwrap();
        let url = s.serve(&bad, &format!("bad-{name}"));
        let out = zt(&["verify", &url]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = text(&out.stderr);
        assert!(err.contains(&url) && err.contains("w0002"), "{name}: {err}");
        assert_eq!(text(&out.stdout), format!("{url}: FAILED (1 problem)\n"));
        // cat checks the digest as it reads: nothing is written.
        let out = zt(&["cat", &url, "w0002"]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn convert_from_a_url_equals_the_local_conversion() {
    let Some(s) = Server::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let local = dir.path().join("in.zt");
    model(&local, "1.2", 6, 1 << 14);
    let url = s.serve(&local, "in.zt");
    for extra in [&[][..], &["--format-version", "1.2", "--compress"][..]] {
        let (a, b) = (dir.path().join("a.zt"), dir.path().join("b.zt"));
        let remote = zt(&[&["convert", "-q", &url, a.to_str().unwrap()][..], extra].concat());
        assert!(remote.status.success(), "{}", text(&remote.stderr));
        let here = zt(&[&["convert", "-q", local.to_str().unwrap(), b.to_str().unwrap()][..], extra].concat());
        assert!(here.status.success());
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap(), "{extra:?}");
    }
}

#[test]
fn v2_shards_are_found_beside_the_url() {
    let Some(s) = Server::start() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (single, root) = (dir.path().join("single.zt"), dir.path().join("sharded.zt"));
    model(&single, "2", 8, 1 << 14);
    let out = zt(&["convert", "-q", "--shard-size", "128K", single.to_str().unwrap(), root.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut shards = 0;
    for e in std::fs::read_dir(dir.path()).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name.starts_with("sharded") {
            s.serve(&dir.path().join(&name), &name);
            shards += usize::from(name != "sharded.zt");
        }
    }
    assert!(shards >= 2, "{shards} shards");
    let url = s.url("sharded.zt");
    for obj in ["w0000", "w0007"] {
        let remote = zt(&["cat", &url, obj]);
        assert!(remote.status.success(), "{}", text(&remote.stderr));
        assert_eq!(remote.stdout, zt(&["cat", single.to_str().unwrap(), obj]).stdout);
    }
    let ok = zt(&["verify", &url]);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    assert!(text(&ok.stderr).is_empty(), "{}", text(&ok.stderr));
    let a = dir.path().join("a.zt");
    let out = zt(&["convert", "-q", &url, a.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&single).unwrap());
    // The shard of w0007 gone from the server: its reads fail, verify
    // warns that the shard is not found, the other parts still read.
    let info = zt(&["info", "--json", root.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let o = doc["objects"].as_array().unwrap().iter().find(|o| o["name"] == "w0007").unwrap();
    let shard = o["components"]["data"]["shard"].as_str().expect("w0007 lies in a shard").to_owned();
    std::fs::remove_file(s.root.path().join("www").join(format!("sharded-{shard}.zt"))).unwrap();
    let out = zt(&["cat", &url, "w0007"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(&shard), "{}", text(&out.stderr));
    assert!(zt(&["cat", &url, "w0000"]).status.success());
    let out = zt(&["verify", &url]);
    assert_eq!(out.status.code(), Some(1));
    let warning = format!("zt: {url}: warning: shard {shard:?} not found beside the URL\n");
    assert!(text(&out.stderr).contains(&warning), "{}", text(&out.stderr));
}

// ------------------------------------------------- misbehaving servers

/// What a hand-written server does with its connection after an answer.
#[derive(Clone, Copy, PartialEq)]
enum Then {
    /// Read the next request.
    Next,
    /// Close it.
    Close,
    /// Keep it open without sending more, until the client gives up.
    Hold,
}
use Then::*;

/// How a hand-written server answers the `n`th request (from 0) with its
/// Range header: the bytes to send, and what then.
type Answer = dyn Fn(usize, Option<&str>) -> (Vec<u8>, Then) + Send + Sync;

/// A server on 127.0.0.1 answering as `answer` says; its URL.
fn misbehaving(answer: Box<Answer>) -> String {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let answer: Arc<Answer> = Arc::from(answer);
    let count = Arc::new(Mutex::new(0usize));
    thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(mut conn) = conn else { continue };
            let (answer, count) = (answer.clone(), count.clone());
            thread::spawn(move || {
                let (mut buf, mut chunk) = (Vec::new(), [0u8; 4096]);
                while let Ok(n) = conn.read(&mut chunk) {
                    if n == 0 {
                        return;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        let head = text(&buf[..end]);
                        buf.drain(..end + 4);
                        let range = head.lines().find_map(|l| {
                            let (k, v) = l.split_once(':')?;
                            k.eq_ignore_ascii_case("range").then(|| v.trim().to_owned())
                        });
                        let n = {
                            let mut c = count.lock().unwrap();
                            *c += 1;
                            *c - 1
                        };
                        let (bytes, then) = answer(n, range.as_deref());
                        let _ = conn.write_all(&bytes);
                        if then == Hold {
                            // Wait for the client to close (a read of 0 or an error).
                            let _ = conn.read(&mut [0u8; 1]);
                        }
                        if then != Next {
                            return;
                        }
                    }
                }
            });
        }
    });
    format!("http://127.0.0.1:{port}/model.zt")
}

/// A 206 answer to `range` over `file`, its Content-Range total `total`
/// and its body cut to `keep` bytes (headers still announcing all).
fn partial(file: &[u8], range: &str, total: u64, keep: usize) -> Vec<u8> {
    let (a, b) = range_of(range, file.len() as u64);
    let body = &file[a as usize..b as usize];
    let mut r = format!(
        "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes {a}-{}/{total}\r\nContent-Length: {}\r\n\r\n",
        b - 1,
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(&body[..keep.min(body.len())]);
    r
}

fn whole(file: &[u8]) -> Vec<u8> {
    let mut r = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", file.len()).into_bytes();
    r.extend_from_slice(file);
    r
}

/// A v2 model of 2 MiB whose manifest lies in its last 64 KiB.
fn big_model() -> (tempfile::TempDir, PathBuf, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.zt");
    model(&path, "2", 8, 1 << 16);
    let bytes = std::fs::read(&path).unwrap();
    (dir, path, bytes)
}

/// `zt ARGS URL ...` failed with exit 1 and one message naming the URL and saying `what`.
fn fails(out: &Output, url: &str, what: &str) {
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with(&format!("zt: {url}: ")) && err.contains(what), "wanted {what:?} in: {err}");
}

#[test]
fn a_connection_dropped_mid_body_is_an_error() {
    let (_d, _p, file) = big_model();
    let f = file.clone();
    let url = misbehaving(Box::new(move |_, r| (partial(&f, r.unwrap(), f.len() as u64, 1000), Close)));
    for cmd in [&["info"][..], &["verify"][..], &["cat", "w0001"][..]] {
        let (cmd, rest) = cmd.split_first().unwrap();
        fails(&zt(&[&[*cmd, url.as_str()][..], rest].concat()), &url, "ended after 1000 of 65536 bytes");
    }
    // The object's bytes dropped, after a whole tail.
    let f = file.clone();
    let url = misbehaving(Box::new(move |n, r| {
        match n {
            0 => (partial(&f, r.unwrap(), f.len() as u64, usize::MAX), Next),
            _ => (partial(&f, r.unwrap(), f.len() as u64, 10), Close),
        }
    }));
    fails(&zt(&["cat", &url, "w0001"]), &url, "ended after 10 of 262144 bytes");
    // A plain download (convert) cut short.
    let f = file.clone();
    let url = misbehaving(Box::new(move |_, _| (whole(&f)[..5000].to_vec(), Close)));
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("o.zt");
    fails(&zt(&["convert", "-q", &url, out.to_str().unwrap()]), &url, &format!(" of {} bytes", file.len()));
    assert!(!out.exists());
}

#[test]
fn a_server_without_range_support_is_refused_except_by_convert() {
    let (_d, path, file) = big_model();
    let f = file.clone();
    let url = misbehaving(Box::new(move |_, _| (whole(&f), Next)));
    for cmd in [&["info"][..], &["verify"][..], &["cat", "w0001"][..]] {
        let (cmd, rest) = cmd.split_first().unwrap();
        fails(&zt(&[&[*cmd, url.as_str()][..], rest].concat()), &url, "server does not support HTTP range requests");
    }
    let out_dir = tempfile::tempdir().unwrap();
    let (a, b) = (out_dir.path().join("a.zt"), out_dir.path().join("b.zt"));
    let out = zt(&["convert", "-q", &url, a.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(zt(&["convert", "-q", path.to_str().unwrap(), b.to_str().unwrap()]).status.success());
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}

#[test]
fn a_server_that_lies_about_the_length_is_an_error() {
    let (_d, _p, file) = big_model();
    let len = file.len() as u64;
    // The total changes between the first answer and the second.
    let f = file.clone();
    let url = misbehaving(Box::new(move |n, r| (partial(&f, r.unwrap(), len + n as u64, usize::MAX), Next)));
    let changed = format!("the file changed size between requests ({len} bytes, now {})", len + 1);
    fails(&zt(&["cat", &url, "w0001"]), &url, &changed);
    // A Content-Range other than the range asked for.
    let f = file.clone();
    let url = misbehaving(Box::new(move |_, _| (partial(&f, "bytes=0-65535", len, usize::MAX), Next)));
    fails(&zt(&["info", &url]), &url, "Content-Range (bytes 0-65535/");
    // A Content-Length longer than the body, the connection kept open:
    // the client's read timeout (1 s here) ends the wait.
    let f = file.clone();
    let url = misbehaving(Box::new(move |_, r| (partial(&f, r.unwrap(), len, 65000), Hold)));
    let out = zt_env(&["info", &url], &[("ZT_HTTP_TIMEOUT", "1")]);
    fails(&out, &url, "ended after 65000 of 65536 bytes");
    // A Content-Length that is not the Content-Range's.
    let f = file.clone();
    let url = misbehaving(Box::new(move |_, r| {
        let a = partial(&f, r.unwrap(), len, usize::MAX);
        (text(&a).replacen("Content-Length: 65536", "Content-Length: 70000", 1).into_bytes(), Next)
    }));
    fails(&zt(&["info", &url]), &url, "Content-Length (70000) does not match its Content-Range (65536 bytes)");
    // A body longer than its Content-Range, delimited by the connection's close.
    let f = file.clone();
    let url = misbehaving(Box::new(move |_, r| {
        let a = text(&partial(&f, r.unwrap(), len, 0)).replacen("Content-Length: 65536\r\n", "", 1);
        let mut a = a.into_bytes();
        a.extend_from_slice(&f[f.len() - 65536..]);
        a.extend_from_slice(b"and more");
        (a, Close)
    }));
    fails(&zt(&["info", &url]), &url, "the response is longer than the 65536 bytes announced");
    // An error status.
    let url = misbehaving(Box::new(|_, _| (b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".to_vec(), Next)));
    fails(&zt(&["info", &url]), &url, "HTTP 404 Not Found");
    fails(&zt(&["convert", "-q", &url, "/nonexistent-dir/o.zt"]), &url, "HTTP 404 Not Found");
}

#[test]
fn nothing_listens_is_an_error() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}/model.zt");
    fails(&zt(&["info", &url]), &url, "Connection refused");
}

#[test]
fn https_urls_go_through_tls() {
    // A plain-HTTP server answering a TLS client hello: the handshake fails.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://127.0.0.1:{}/model.zt", l.local_addr().unwrap().port());
    thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            let _ = c.read(&mut [0u8; 512]);
            let _ = c.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
        }
    });
    let out = zt(&["info", &url]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with(&format!("zt: {url}: ")), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains("HTTP 400"), "{}", text(&out.stderr));
}

/// What a private `TMPDIR` holds (zt's download directories and their files).
fn leftovers(tmp: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for e in std::fs::read_dir(tmp).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            all.extend(std::fs::read_dir(&p).unwrap().map(|f| f.unwrap().path()));
        }
        all.push(p);
    }
    all
}

#[test]
fn the_download_directory_is_removed_after_success_failure_and_signals() {
    let (_d, _p, file) = big_model();
    let tmp = tempfile::tempdir().unwrap();
    let env = [("TMPDIR", tmp.path().to_str().unwrap())];
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("o.zt");
    let f = file.clone();
    let url = misbehaving(Box::new(move |_, _| (whole(&f), Next)));
    assert!(zt_env(&["convert", "-q", &url, out.to_str().unwrap()], &env).status.success());
    assert_eq!(leftovers(tmp.path()), Vec::<PathBuf>::new());
    std::fs::remove_file(&out).unwrap();
    let f = file.clone();
    let url = misbehaving(Box::new(move |_, _| (whole(&f)[..100_000].to_vec(), Close)));
    assert_eq!(zt_env(&["convert", "-q", &url, out.to_str().unwrap()], &env).status.code(), Some(1));
    assert_eq!(leftovers(tmp.path()), Vec::<PathBuf>::new());
    assert!(!out.exists());
    // SIGTERM while the download waits for the rest of the body.
    let f = file.clone();
    let url = misbehaving(Box::new(move |_, _| (whole(&f)[..100_000].to_vec(), Hold)));
    let mut c = Command::new(env!("CARGO_BIN_EXE_zt"));
    c.args(["convert", "-q", &url, out.to_str().unwrap()]).env("TMPDIR", tmp.path()).env("ZT_HTTP_TIMEOUT", "30");
    let mut child = c.stderr(Stdio::null()).spawn().unwrap();
    // The downloaded file appears (or zt ends, by its timeout, and the assertion below fails).
    while leftovers(tmp.path()).len() < 2 && child.try_wait().unwrap().is_none() {
        thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(leftovers(tmp.path()).len(), 2, "the directory and the file being downloaded");
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert_eq!(leftovers(tmp.path()), Vec::<PathBuf>::new());
    assert!(!out.exists());
}
