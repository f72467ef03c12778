"""The real shimmerd binary's `render`, `check-config` and top-level command line.

Exit codes and messages are contracts (shimmerd(8), `shimmerd --help`); a bad input must never
leave an empty or partial PNG behind.
"""
import os

import pytest

from support.harness import run_shimmerd
from support.images import png_rgba, png_size


def test_version_and_help():
    r = run_shimmerd("--version")
    assert r.returncode == 0 and r.stdout.startswith("shimmerd ")
    r = run_shimmerd("--help")
    assert r.returncode == 0 and "render" in r.stdout and "check-config" in r.stdout
    r = run_shimmerd("render", "--help")
    assert r.returncode == 0 and "--focal X,Y" in r.stdout


def test_render_default_card(tmp_path):
    out = tmp_path / "card.png"
    r = run_shimmerd("render", "--focal", "175,233.333", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert png_size(out) == (700, 467)
    w, h, rows = png_rgba(out)
    # Corners are transparent (the PNG writer leaves outside the rounded card to the viewer),
    # the middle of the card is opaque black, the top dot of row 0 is colored.
    assert rows[0][3] == 0 and rows[h - 1][(w - 1) * 4 + 3] == 0
    assert rows[90][350 * 4:350 * 4 + 4] == b"\x00\x00\x00\xff"
    x, y = 350 - 5, int((233.333 - 40) * 2)   # left of the arrow's stem in the top dot
    r_, g_, b_, a_ = rows[y][x * 4:x * 4 + 4]
    assert a_ == 255 and g_ > 150 and g_ > b_, (r_, g_, b_)


def test_render_size_and_scale_from_set(tmp_path):
    out = tmp_path / "small.png"
    r = run_shimmerd("render", "--focal", "0,0", "--out", str(out),
                     "--set", "Card.width=200", "--set", "Card.scale=1.5")
    assert r.returncode == 0, r.stderr
    assert png_size(out) == (300, 200)


@pytest.mark.parametrize("args,code,mention", [
    (["--focal", "nan,1"], 64, "finite"),
    (["--focal", "inf,1"], 64, "finite"),
    (["--focal", "1"], 64, "X,Y"),
    (["--focal", "1,1", "--set", "Card.width=0"], 78, "Card.width"),
    (["--focal", "1,1", "--set", "Card.width=-10"], 78, "Card.width"),
    (["--focal", "1,1", "--set", "Card.height=nan"], 78, "Card.height"),
    (["--focal", "1,1", "--set", "Card.scale=inf"], 78, "Card.scale"),
    (["--focal", "1,1", "--set", "Card.colour=red"], 78, "unknown key"),
    (["--focal", "1,1", "--set", "Card.width"], 64, "Section.key=value"),
    (["--focal", "1,1", "--bogus"], 64, "--bogus"),
])
def test_render_bad_input(tmp_path, args, code, mention):
    out = tmp_path / "x.png"
    r = run_shimmerd("render", *args, "--out", str(out))
    assert r.returncode == code, r.stderr
    assert mention in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not out.exists(), "no PNG may be written for bad input"


def test_render_unwritable_output(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    for target in ["/nonexistent-dir/x.png", str(locked / "x.png")]:
        if target.startswith(str(locked)):
            if os.geteuid() == 0:
                # root ignores directory modes; a path through a regular file fails for everyone
                (tmp_path / "file").write_text("")
                target = str(tmp_path / "file" / "x.png")
            else:
                locked.chmod(0o500)
        r = run_shimmerd("render", "--focal", "1,1", "--out", target)
        assert r.returncode == 73, r.stderr
        assert target in r.stderr
    assert list(locked.iterdir()) == []


def test_render_keeps_an_existing_file_when_it_fails(tmp_path):
    out = tmp_path / "keep.png"
    out.write_bytes(b"old")
    r = run_shimmerd("render", "--focal", "nan,1", "--out", str(out))
    assert r.returncode == 64 and out.read_bytes() == b"old"


def test_check_config(tmp_path):
    conf = tmp_path / "s.conf"
    conf.write_text("[Sink]\ntype = null\n")
    r = run_shimmerd("check-config", "--config", str(conf))
    assert r.returncode == 0 and "type = null" in r.stdout
    conf.write_text("[Sink]\n\ntype = window\n")
    r = run_shimmerd("check-config", "--config", str(conf))
    assert r.returncode == 78 and f"{conf}:3" in r.stderr
    r = run_shimmerd("check-config", "--config", str(tmp_path / "missing.conf"))
    assert r.returncode == 66
