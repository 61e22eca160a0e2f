#!/usr/bin/env python3
"""Run a fuzz campaign: each target in turn until it has used a CPU budget.

    nice -n 19 python3 fuzz/campaign.py [--cpu 1800] [--chunk 600] [target ...]

The targets must be built first (`cargo +nightly fuzz build -a`, which puts
them in $CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release/); they are copied
to a private directory so that a rebuild during the campaign changes nothing.

Each target runs libFuzzer in one process (one job, one worker) in chunks of
`--chunk` wall seconds, resuming from its working corpus
(fuzz/corpus-full/<target>, seeded by fuzz/corpus/<target>), until the CPU
time of its runs (user + sys, from rusage) reaches `--cpu` seconds. The
machine is shared, so wall time and CPU time differ.

Flags: -rss_limit_mb=2048 -timeout=1 (an input slower than 1 s is a
finding), -print_final_stats=1. Crashes, timeouts and OOMs land in
fuzz/artifacts/<target>/; the campaign restarts the target after one.

Writes fuzz/logs/<target>.log (libFuzzer output) and fuzz/logs/summary.json.
"""
import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TRIPLE = "x86_64-unknown-linux-gnu"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cpu", type=float, default=1800)
    ap.add_argument("--chunk", type=int, default=600)
    ap.add_argument("--known", default=os.environ.get("ZT_FUZZ_KNOWN", ""),
                    help="reported findings the harness should tolerate (see harness/mod.rs `known`)")
    ap.add_argument("targets", nargs="*",
                    default=["open_walk", "tail_only", "legacy_v0", "structured", "writer_roundtrip"])
    a = ap.parse_args()
    tdir = os.environ.get("CARGO_TARGET_DIR", os.path.join(HERE, "target"))
    bindir = "/tmp/ztensor-fuzz-bin"
    os.makedirs(bindir, exist_ok=True)
    logs = os.path.join(HERE, "logs")
    os.makedirs(logs, exist_ok=True)
    summary_path = os.path.join(logs, "summary.json")
    summary = json.load(open(summary_path)) if os.path.exists(summary_path) else {}
    for t in a.targets:
        src = os.path.join(tdir, TRIPLE, "release", t)
        exe = os.path.join(bindir, t)
        work = os.path.join(HERE, "corpus-full", t)
        seeds = os.path.join(HERE, "corpus", t)
        art = os.path.join(HERE, "artifacts", t)
        os.makedirs(work, exist_ok=True)
        os.makedirs(art, exist_ok=True)
        s = summary.get(t, {"cpu_s": 0.0, "wall_s": 0.0, "execs": 0, "runs": 0, "crashes": 0})
        log = open(os.path.join(logs, t + ".log"), "a")
        while s["cpu_s"] < a.cpu:
            # A rebuilt target (harness fix) is picked up at the next chunk.
            shutil.copy2(src, exe)
            cmd = [exe, "-artifact_prefix=" + art + "/", "-max_total_time=%d" % a.chunk,
                   "-rss_limit_mb=2048", "-timeout=1", "-print_final_stats=1", work, seeds]
            log.write("\n### %s\n### ZT_FUZZ_KNOWN=%s %s\n" % (time.strftime("%F %T"), a.known, " ".join(cmd)))
            log.flush()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            w0 = time.time()
            env = dict(os.environ, ZT_FUZZ_KNOWN=a.known)
            p = subprocess.run(cmd, stdout=log, stderr=subprocess.PIPE, cwd=HERE, text=True, errors="replace",
                               env=env)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            log.write(p.stderr)
            log.flush()
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            s["cpu_s"] += cpu
            s["wall_s"] += time.time() - w0
            s["runs"] += 1
            m = re.findall(r"stat::number_of_executed_units: (\d+)", p.stderr)
            if m:
                s["execs"] += int(m[-1])
            m = re.findall(r"stat::peak_rss_mb: (\d+)", p.stderr)
            if m:
                s["peak_rss_mb"] = max(s.get("peak_rss_mb", 0), int(m[-1]))
            lines = [l for l in p.stderr.splitlines() if re.match(r"#\d+\s", l) and "cov:" in l]
            if lines:
                s["last_line"] = lines[-1]
                cov = re.search(r"cov: (\d+) ft: (\d+)", lines[-1])
                if cov:
                    s["cov"], s["ft"] = int(cov.group(1)), int(cov.group(2))
                corp = re.search(r"corp: (\d+)/(\S+)", lines[-1])
                if corp:
                    s["corpus"] = corp.group(1) + "/" + corp.group(2)
            if p.returncode != 0:
                s["crashes"] += 1
                s.setdefault("artifacts", [])
                for l in p.stderr.splitlines():
                    if "Test unit written to" in l or "artifact_prefix" in l and "Test unit" in l:
                        s["artifacts"].append(l.strip())
                print("%s: exit %d (see logs/%s.log)" % (t, p.returncode, t), flush=True)
                if s["crashes"] >= 20:
                    print("%s: too many crashes, moving on" % t, flush=True)
                    break
            save(summary_path, t, s)
            print("%s: cpu %.0f s, wall %.0f s, execs %d, %s" % (t, s["cpu_s"], s["wall_s"], s["execs"],
                                                               s.get("last_line", "")), flush=True)
    return 0


def save(path, target, stats):
    """Update one target's entry, so that campaigns can run side by side."""
    import fcntl
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        summary = json.load(open(path)) if os.path.exists(path) else {}
        summary[target] = stats
        tmp = path + ".tmp"
        json.dump(summary, open(tmp, "w"), indent=1)
        os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
