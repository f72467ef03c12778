"""`shimmerd bench --json` smoke: relations that hold on any machine, never
absolute times. The numbers themselves are in docs/PERFORMANCE.md."""
import json
import os
import pty
import re
import subprocess

from support.harness import SHIMMERD, drain_terminal


def test_bench_relations():
    r = subprocess.run([SHIMMERD, "bench", "--json", "--frames", "20"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    targets = {t["target"]: t for t in json.loads(r.stdout)}
    assert set(targets) == {"scale1", "scale2", "fb1920x1080", "drm1920x1080"}
    assert (targets["fb1920x1080"]["width"], targets["fb1920x1080"]["height"]) == (1920, 1080)
    assert (targets["drm1920x1080"]["width"], targets["drm1920x1080"]["height"]) == (1920, 1080)
    for name, t in targets.items():
        cases = {c["name"]: c for c in t["cases"]}
        assert t["checksums_match"], "%s: incremental pixels differ from a full render" % name
        assert t["dots"] == 175
        full = cases["full"]
        assert full["dots_repainted_per_frame"] == 175
        # A frame with no color change writes nothing and looks nothing up.
        assert cases["none"]["pixels_written_per_frame"] == 0 and cases["none"]["dots_repainted_per_frame"] == 0
        assert cases["none"]["table_hits_per_frame"] == 0
        # Every dot changing writes exactly the dot pixels, no more; incremental frames write
        # no more than a full redraw, which also writes the static layer.
        assert cases["all"]["dots_repainted_per_frame"] == 175
        assert cases["all"]["pixels_written_per_frame"] == t["dot_pixels"]
        # The cold case is the same frames after a cache eviction: the same work.
        assert cases["cold"]["dots_repainted_per_frame"] == 175
        assert cases["cold"]["pixels_written_per_frame"] == t["dot_pixels"]
        assert t["memcpy_cold"]["min"] <= t["memcpy_cold"]["median"]
        # The idle case is the same frames again, each after a sleep, with its memcpy floor
        # after the same sleep and the thread's CPU time per frame.
        idle = cases["idle"]
        assert idle["frames"] == 20
        assert idle["dots_repainted_per_frame"] == 175
        assert idle["pixels_written_per_frame"] == t["dot_pixels"]
        assert idle["thread_cpu_ns"]["min"] <= idle["thread_cpu_ns"]["median"] <= idle["thread_cpu_ns"]["p90"]
        assert t["memcpy_idle"]["min"] <= t["memcpy_idle"]["median"]
        assert "thread_cpu_ns" not in cases["all"]
        for c in ("move1", "move10", "all", "cold", "idle"):
            assert cases[c]["pixels_written_per_frame"] <= full["pixels_written_per_frame"]
            assert cases[c]["dots_repainted_per_frame"] <= full["dots_repainted_per_frame"]
        assert cases["move1"]["dots_repainted_per_frame"] < cases["move10"]["dots_repainted_per_frame"]
        # Two lookups per repainted dot, all answered by the dense table after warm-up.
        assert cases["all"]["table_hits_per_frame"] + cases["all"]["table_misses_per_frame"] == 2 * 175
        for c in cases.values():
            assert c["ns"]["min"] <= c["ns"]["median"] <= c["ns"]["p90"]
    # The 1920 x 1080 targets paint the same dots as the card at scale 2.
    assert targets["fb1920x1080"]["dot_pixels"] == targets["scale2"]["dot_pixels"]
    assert targets["drm1920x1080"]["dot_pixels"] == targets["scale2"]["dot_pixels"]
    # The dumb-buffer-sized target copies changed card rows into its scanout buffers (the
    # DRM sink's path): none when nothing changed, at most the card's rows, and its
    # checksums cover both buffers. The other targets have no scanout copy.
    drm = {c["name"]: c for c in targets["drm1920x1080"]["cases"]}
    card_rows = targets["scale2"]["height"]
    assert drm["none"]["scanout_rows_per_frame"] == 0
    for c in ("move1", "move10", "all", "cold", "idle"):
        assert 0 < drm[c]["scanout_rows_per_frame"] <= card_rows
    for name in ("scale1", "scale2", "fb1920x1080"):
        assert all(c.get("scanout_rows_per_frame") is None for c in targets[name]["cases"])


def test_bench_shows_progress_on_a_terminal_and_ends_with_a_summary():
    """Progress goes to stderr only when it is a terminal; the text report's last line is
    the summary. (No JSON here: stdout is a pipe, stderr the terminal.)"""
    controller, terminal = pty.openpty()
    p = subprocess.Popen([SHIMMERD, "bench", "--frames", "2"], stdout=subprocess.PIPE, stderr=terminal)
    os.close(terminal)
    shown = drain_terminal(controller)
    out = p.stdout.read().decode()
    assert p.wait(timeout=600) == 0
    steps = re.findall(rb"\r\[[# ]{40}\] (\d+)/(\d+) rounds", shown)
    assert steps and steps[-1][0] == steps[-1][1], shown[-200:]
    last = out.rstrip("\n").splitlines()[-1]
    assert re.match(r"summary: at 700 x 467 px a frame in which every dot changes colour costs [\d.]+ us", last), last

    r = subprocess.run([SHIMMERD, "bench", "--frames", "2"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and r.stderr == "", r.stderr
