"""What a first-time user meets: `--help` and synopses, `shimmerd man`, configuration errors,
`sensors` and `run` on a machine without sensors or a display, refused outputs. The real
binary, in an empty umockdev testbed where a machine without devices is meant."""
import json
import os
import pathlib
import pty
import re
import shutil
import subprocess
import tty

import pytest

from support.harness import REPO, SHIMMERD, WAIT, drain_terminal, run_shimmerd

NOTICE = ["--set", "Log.level=notice"]


def usage_line(command):
    return run_shimmerd(command, "--help").stdout.splitlines()[0]


@pytest.mark.parametrize("command,synopsis", [
    ("render", "render --focal X,Y --out FILE.png [--config PATH] [--set Section.key=value]..."),
    ("replay", "replay TRACE.jsonl [--out PATH] [--from samples|frames] [--at fps|frames] [--print-size] "
               "[--set Section.key=value]..."),
    ("plot", "plot TRACE.jsonl --out FILE.svg"),
])
def test_synopsis_shows_required_options_without_brackets(command, synopsis):
    assert usage_line(command) == "Usage: shimmerd " + synopsis
    page = run_shimmerd("man", "shimmerd.8").stdout
    plain = re.sub(r"\\f[BIR]", "", page).replace("\\-", "-")
    assert "\nshimmerd " + synopsis + "\n" in plain, plain.split(".SH \"DESCRIPTION\"")[0]


def test_render_help_and_manual_say_config_has_no_default():
    """render reads only the built-in defaults unless --config is given."""
    line = [l for l in run_shimmerd("render", "--help").stdout.splitlines() if l.strip().startswith("--config")][0]
    assert "/etc/shimmerd" not in line and "built-in defaults only" in line, line
    page = run_shimmerd("man", "shimmerd.8").stdout
    render = page.split('.SS "render"', 1)[1].split(".SS", 1)[0]
    assert "/etc/shimmerd" not in render and "built\\-in defaults only" in render, render
    run_section = page.split('.SS "run"', 1)[1].split(".SS", 1)[0]
    assert "/etc/shimmerd/shimmerd.conf" in run_section.replace("\\-", "-")


def test_man_takes_page_names_with_or_without_their_section():
    for name, full in [("shimmerd", "shimmerd.8"), ("shimmerd.conf", "shimmerd.conf.5")]:
        short, long = run_shimmerd("man", name), run_shimmerd("man", full)
        assert short.returncode == 0 and short.stdout == long.stdout and short.stdout.startswith(".\\\""), short.stderr
    r = run_shimmerd("man", "shimmerd.1")
    assert r.returncode == 64 and "shimmerd.8" in r.stderr


def test_manual_describes_drm_and_lists_the_devices_it_opens():
    page = run_shimmerd("man", "shimmerd").stdout.replace("\\-", "-")
    description = page.split('.SH "DESCRIPTION"', 1)[1].split(".SH", 1)[0]
    assert "DRM/KMS" in description
    files = page.split('.SH "FILES"', 1)[1].split(".SH", 1)[0]
    tags = re.findall(r"^\.TP\n\\fI(.*?)\\fR$", files, re.M)
    assert "auto" not in tags, tags
    for path in ["/dev/dri/card*", "/dev/fb0", "/dev/tty0", "/dev/input/event*"]:
        assert path in tags, (path, tags)


def test_version_takes_no_arguments():
    assert run_shimmerd("--version").returncode == 0
    r = run_shimmerd("--version", "extra")
    assert r.returncode == 64 and r.stdout == "" and '"extra"' in r.stderr, r.stderr


@pytest.mark.parametrize("text,line,mention", [
    (b"[Sensor]\nrate = 30 # thirty\n", 2, "inline comments are not supported; put the comment on its own line"),
    (b"[Sensor]\n\nrate = 3\xff0\n", 3, "not UTF-8"),
    (b"[Card]\nwidth = 0x10\n", 2, "Card.width = \"0x10\""),
])
def test_configuration_errors_name_file_line_and_why(tmp_path, text, line, mention):
    conf = tmp_path / "s.conf"
    conf.write_bytes(text)
    r = run_shimmerd("check-config", "--config", str(conf))
    assert r.returncode == 78, r.stdout
    assert r.stderr.startswith("shimmerd: %s:%d: " % (conf, line)) and mention in r.stderr, r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr


def test_sensors_on_a_machine_without_iio_says_so_plainly(bed_factory):
    bed = bed_factory()
    r = bed.run("sensors")
    # Exit 69 (EX_UNAVAILABLE), so a script can tell: nothing usable is there.
    assert r.returncode == 69, r.stderr
    assert r.stderr == ("shimmerd: sensors: no usable accelerometer: no IIO devices (/sys/bus/iio/devices is absent)"
                        "\n"), r.stderr
    assert "why: no IIO devices (/sys/bus/iio/devices is absent)" in r.stdout, r.stdout
    assert "errno" not in r.stdout and "libiio cannot build" not in r.stdout, r.stdout
    r = bed.run("sensors", "--json")
    assert r.returncode == 69 and json.loads(r.stdout)["selected"] is None, r.stdout


def test_run_without_a_display_says_where_frames_go_and_what_was_shown(bed_factory, shm_name):
    bed = bed_factory()
    r = bed.run("run", *NOTICE, "--set", "Sink.name=" + shm_name, "--duration", "1")
    assert r.returncode == 0, r.stderr
    auto = [l for l in r.stderr.splitlines() if "Sink.type = auto" in l]
    assert len(auto) == 1 and auto[0].endswith("; the frames go to /dev/shm/%s for shimmerd view" % shm_name), auto
    assert re.search(r"stopped after 1 frame and 0 samples$", r.stderr, re.M), r.stderr

    r = bed.run("run", *NOTICE, "--set", "Sink.type=drm", "--duration", "1")
    assert r.returncode == 0, r.stderr
    assert re.search(r"stopped after 1 frame and 0 samples; 1 frame not shown \(no display was attached\)$",
                     r.stderr, re.M), r.stderr


@pytest.mark.parametrize("args,accepted", [
    (["render", "--focal", "175,233", "--out", "card.jpg"], "*.png"),
    (["plot", "trace.jsonl", "--out", "p.png"], "*.svg"),
])
def test_outputs_with_another_format_s_extension_are_refused(tmp_path, args, accepted):
    (tmp_path / "trace.jsonl").write_text("")
    r = run_shimmerd(*args, cwd=tmp_path)
    assert r.returncode == 64 and accepted in r.stderr and args[-1] in r.stderr, r.stderr
    assert len(r.stderr.splitlines()) == 1 and list(p.name for p in tmp_path.iterdir()) == ["trace.jsonl"]


def run_on_a_terminal(bed, *args):
    """shimmerd with its stdout on a pseudo-terminal, which is drained; (status, stderr, bytes written).
    "TTY" in args is the terminal's name."""
    controller, terminal = pty.openpty()
    tty.setraw(terminal)
    args = [a.replace("TTY", os.ttyname(terminal)) for a in args]
    p = subprocess.Popen([SHIMMERD, *args], stdout=terminal, stderr=subprocess.PIPE, env=bed.env)
    os.close(terminal)
    written = len(drain_terminal(controller))
    return p.wait(timeout=WAIT), p.stderr.read().decode(), written


@pytest.mark.usefixtures("realtime")     # the frame in flight at the stop must drain within 0.5 s
def test_raw_frames_are_not_written_to_a_terminal_unless_named(bed_factory):
    bed = bed_factory()
    status, err, written = run_on_a_terminal(bed, "run", *NOTICE, "--set", "Sink.type=raw", "--duration", "1")
    assert status == 64 and written == 0, err
    assert len(err.splitlines()) == 1 and "standard output is a terminal" in err and "Sink.path=$(tty)" in err, err
    status, err, written = run_on_a_terminal(bed, "run", *NOTICE, "--set", "Sink.type=raw", "--set", "Sink.path=TTY",
                                             "--duration", "1")
    assert status == 0 and written == 700 * 467 * 4, (err, written)


@pytest.mark.parametrize("setting", ["Sink.type=shm", "Sink.path=elsewhere"])
def test_demo_refuses_another_sink_up_front(tmp_path, setting):
    r = run_shimmerd("demo", "--out", str(tmp_path / "demo"), "--set", setting)
    assert r.returncode == 78 and r.stdout == "", r.stdout
    assert len(r.stderr.splitlines()) == 1 and "--set " + setting in r.stderr and "png sink" in r.stderr, r.stderr


@pytest.mark.parametrize("lines,line,run_status", [
    (["[Card]", "width = 10000", "scale = 16"], 2, 78),
    (["[Trace]", "path = /nonexistent/trace.jsonl"], 2, 73),
    (["[Sensor]", "device = trace:/nonexistent/recording.jsonl"], 2, 66),
])
def test_check_config_refuses_what_run_refuses_with_the_same_line(bed_factory, lines, line, run_status):
    bed = bed_factory()
    # In the testbed's directory: a short path, which the line names whole (a location of
    # more than 80 characters is abbreviated).
    conf = pathlib.Path(bed.root) / "s.conf"
    conf.write_text("\n".join(lines + ["[Sink]", "type = null"]) + "\n")
    checked = bed.run("check-config", "--config", str(conf))
    started = bed.run("run", "--config", str(conf), "--duration", "1")
    assert checked.returncode == 78 and checked.stdout == "", checked.stdout
    assert started.returncode == run_status, started.stderr
    assert checked.stderr == started.stderr and len(checked.stderr.splitlines()) == 1, (checked.stderr, started.stderr)
    assert "(%s:%d)" % (conf, line) in checked.stderr, checked.stderr


def documented_defaults():
    """Section.key -> default, from `check-config --documented` (the shipped file's source)."""
    keys, section = {}, None
    for line in run_shimmerd("check-config", "--documented").stdout.splitlines():
        if m := re.match(r"^\[(\w+)\]$", line):
            section = m.group(1)
        elif m := re.match(r"^#(\w+) = (.*)$", line):
            keys["%s.%s" % (section, m.group(1))] = m.group(2)
    return keys


def test_readme_synopses_and_stated_defaults_are_the_program_s():
    readme = open(os.path.join(REPO, "README.md")).read()
    running = readme.split("\n## Running\n", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^  (\S+)  ", run_shimmerd("--help").stdout.split("Commands:\n", 1)[1].split("\n\n", 1)[0],
                          re.M)
    listed = {}
    for line in running.splitlines():
        if m := re.match(r"^    shimmerd ([a-z][a-z-]*)\b(.*?)(?:\s{2,}\(.*\))?$", line):
            listed[m.group(1)] = "shimmerd " + m.group(1) + m.group(2)
    assert sorted(listed) == sorted(commands), (sorted(listed), commands)
    for command, synopsis in listed.items():
        assert "Usage: " + synopsis == usage_line(command), command
    # Every "`Section.key = value` (the default)" or "The default, `Section.key = value`" of
    # the product's documents is the key table's default.
    defaults = documented_defaults()
    stated = []
    docs = ["docs/" + f for f in sorted(os.listdir(os.path.join(REPO, "docs"))) if f.endswith(".md")]
    for name in ["README.md"] + docs:
        text = open(os.path.join(REPO, name)).read().replace("\n", " ")
        stated += [(name, k, v) for k, v in re.findall(r"[Tt]he default, `(\w+\.\w+) = ([^`]+)`", text)]
        stated += [(name, k, v) for k, v in re.findall(r"`(\w+\.\w+) = ([^`]+)` \((?:the )?default\)", text)]
    assert len(stated) >= 3, stated
    for name, key, value in stated:
        assert defaults[key] == value, (name, key, value, defaults[key])


def test_view_without_the_viewer_says_where_it_is_installed_and_how_to_build_it(tmp_path):
    """The daemon's binary alone (the package shimmerd without shimmerd-view, or a source
    build of the shimmerd product only): `view` names the places it looked, where the
    package puts the viewer and, in a SwiftPM build directory, the command that builds it."""
    for where, built in ((tmp_path / "usr" / "bin", False), (tmp_path / "src" / ".build" / "debug", True)):
        where.mkdir(parents=True)
        binary = where / "shimmerd"
        shutil.copy(SHIMMERD, binary)
        r = subprocess.run([str(binary), "view"], capture_output=True, text=True, timeout=WAIT)
        assert r.returncode == 69 and r.stderr.count("\n") == 1, r.stderr
        assert "view: no viewer executable (tried %s/shimmerd-view, %s/libexec/shimmerd/shimmerd-view)" \
            % (where, where.parent) in r.stderr, r.stderr
        assert "the Debian package shimmerd-view puts it in /usr/libexec/shimmerd/shimmerd-view" in r.stderr
        assert ("swift build --product shimmerd-view builds it in %s" % where in r.stderr) == built, r.stderr
