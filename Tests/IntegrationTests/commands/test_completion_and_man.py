"""`shimmerd completion bash` driven the way bash drives it, `shimmerd completion zsh` in
an interactive zsh, and the manual pages of `shimmerd man` checked by groff.

Completion: the script is sourced into a real bash, the function `complete -p shimmerd`
names is called with COMP_LINE, COMP_POINT, COMP_WORDS and COMP_CWORD as bash sets them
at a <Tab>, and COMPREPLY is what bash would offer. The expected candidates come from the
program's own tables (`shimmerd --help`, `check-config --documented`), so the test holds
whatever commands, options and keys are added later."""
import os
import pty
import re
import select
import subprocess
import time

import pytest

from support.harness import SHIMMERD, WAIT

COMPLETION_DRIVER = r'''
source "$1"
line=$2
COMP_LINE=$line
COMP_POINT=${#line}
# COMP_WORDS as bash splits them: at blanks, and "=" and ":" (COMP_WORDBREAKS) are words.
read -ra COMP_WORDS <<< "$(sed -E 's/([=:])/ \1 /g' <<< "$line")"
[[ $line == *[[:space:]] || $line == *[=:] ]] && COMP_WORDS+=("")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
spec=$(complete -p shimmerd)
function=$(sed -E 's/.*-F ([^ ]+) .*/\1/' <<< "$spec")
"$function" shimmerd "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
'''


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("completion") / "shimmerd"
    r = subprocess.run([SHIMMERD, "completion", "bash"], capture_output=True, text=True, check=True)
    path.write_text(r.stdout)
    return str(path)


@pytest.fixture
def complete(script, tmp_path):
    """The candidates bash offers for LINE (the cursor at its end), run in tmp_path."""
    def run(line):
        r = subprocess.run(["bash", "-c", COMPLETION_DRIVER, "driver", script, line], capture_output=True, text=True,
                           cwd=tmp_path, check=True)
        assert r.stderr == "", r.stderr
        return [c for c in r.stdout.split("\n") if c]
    return run


def help_text(*args):
    return subprocess.run([SHIMMERD, *args, "--help"], capture_output=True, text=True, check=True).stdout


def commands():
    """Command names from `shimmerd --help`."""
    text = help_text()
    block = text.split("Commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.strip()]


def options(command):
    """Option names from `shimmerd COMMAND --help`."""
    return re.findall(r"^  (--[a-z-]+)", help_text(command), re.M)


def documented_keys():
    """Section.key and default of every key, from `check-config --documented`."""
    text = subprocess.run([SHIMMERD, "check-config", "--documented"], capture_output=True, text=True,
                          check=True).stdout
    keys, section = {}, None
    for line in text.splitlines():
        if m := re.match(r"^\[(\w+)\]$", line):
            section = m.group(1)
        elif m := re.match(r"^#(\w+) = (.*)$", line):
            keys["%s.%s" % (section, m.group(1))] = m.group(2)
    return keys


def test_commands_complete_from_the_first_word(complete):
    assert complete("shimmerd ") == commands()
    assert complete("shimmerd re") == [c for c in commands() if c.startswith("re")]


@pytest.mark.parametrize("command", commands())
def test_each_command_completes_its_own_options(complete, command):
    assert sorted(complete("shimmerd %s --" % command)) == sorted(options(command))


def test_options_without_a_command_are_the_default_commands(complete):
    assert sorted(complete("shimmerd --")) == sorted(options("run") + ["--version"])


def test_set_completes_every_key_then_the_words_it_accepts(complete, tmp_path):
    keys = documented_keys()
    assert sorted(complete("shimmerd run --set ")) == sorted(k + "=" for k in keys)
    # bash splits at "=": the candidates are what follows it.
    assert complete("shimmerd run --set Sink.type=") == ["auto", "drm", "framebuffer", "shm", "raw", "png", "null"]
    assert complete("shimmerd run --set Sink.type=s") == ["shm"]
    assert complete("shimmerd monitor --set=Log.level=w") == ["warning"]
    assert complete("shimmerd run --set Mapper.clamp=") == ["true", "false"]
    # ... and at ":": "iio:" goes on with "device".
    assert complete("shimmerd run --set Sensor.device=ii") == ["iio:device"]
    assert complete("shimmerd run --set Sensor.device=iio:") == ["device"]
    # Every word offered is a value the parser accepts, or the start of one ("iio:device").
    # check-config also makes run's checks: the files a value names (trace:0, trace:x) exist
    # here, and Sink.path is a directory, as Sink.type = png needs. Exit 69 is a valid
    # configuration whose display (Sink.type = drm, framebuffer) this machine lacks.
    empty = tmp_path / "empty.conf"
    empty.write_text("")
    for name in ("0", "x"):
        (tmp_path / name).write_text("")
    for key in keys:
        for word in complete("shimmerd run --set %s=" % key):
            accepted = [subprocess.run([SHIMMERD, "check-config", "--config", str(empty), "--set", "Sink.path=frames",
                                        "--set", "%s=%s" % (key, v)],
                                       capture_output=True, cwd=tmp_path).returncode in (0, 69)
                        for v in (word, word + "0", word + "x")]
            assert any(accepted), (key, word)


def test_option_values_files_and_positionals(complete, tmp_path):
    for name in ["trace.jsonl", "card.png", "notes.txt"]:
        (tmp_path / name).write_text("")
    (tmp_path / "frames").mkdir()
    assert sorted(complete("shimmerd render --out ")) == ["card.png", "frames"]
    assert sorted(complete("shimmerd plot ")) == ["frames", "trace.jsonl"]
    assert sorted(complete("shimmerd run --config ")) == ["card.png", "frames", "notes.txt", "trace.jsonl"]
    assert complete("shimmerd demo --out ") == ["frames"]
    assert complete("shimmerd bench --kernel ") == ["auto", "baseline", "avx2"]
    assert complete("shimmerd replay --from f") == ["frames"]
    assert complete("shimmerd man ") == ["shimmerd.8", "shimmerd.conf.5"]
    assert complete("shimmerd completion ") == ["bash", "zsh"]
    assert complete("shimmerd render --focal ") == []


def test_zsh_script_is_valid_zsh():
    text = subprocess.run([SHIMMERD, "completion", "zsh"], capture_output=True, text=True, check=True).stdout
    assert text.startswith("#compdef shimmerd\n")
    r = subprocess.run(["zsh", "-n"], input=text, capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def zsh_tab(line, fpath, cwd, expected):
    """What an interactive zsh (compinit, the script in its fpath as `_shimmerd`) shows
    after LINE and a <Tab>, read from its terminal until EXPECTED appears or WAIT passes."""
    master, slave = pty.openpty()
    env = {"PATH": os.environ["PATH"], "HOME": str(fpath), "TERM": "dumb"}
    shell = subprocess.Popen(["zsh", "-f", "-i"], stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd)
    os.close(slave)

    def read_until(text):
        out, end = "", time.monotonic() + WAIT
        while text not in out and time.monotonic() < end:
            if select.select([master], [], [], 0.05)[0]:
                try:
                    out += os.read(master, 4096).decode(errors="replace")
                except OSError:
                    break
        return out

    try:
        os.write(master, ("fpath=(%s $fpath); autoload -Uz compinit; compinit -u -D; PS1='> '; print COMP''INIT\n"
                          % fpath).encode())
        read_until("COMPINIT")
        os.write(master, (line + "\t").encode())
        return read_until(expected)
    finally:
        shell.kill()
        shell.wait()
        os.close(master)


@pytest.mark.parametrize("line, completed", [
    ("shimmerd ma", "shimmerd man "),
    ("shimmerd man shimmerd.c", "shimmerd man shimmerd.conf.5 "),
    ("shimmerd render --o", "shimmerd render --out "),
    ("shimmerd run --set Sink.ty", "shimmerd run --set Sink.type="),
    ("shimmerd run --set Sink.type=s", "shimmerd run --set Sink.type=shm "),
    ("shimmerd bench --kernel av", "shimmerd bench --kernel avx2 "),
    ("shimmerd plot tr", "shimmerd plot trace.jsonl "),
])
def test_zsh_completes_through_compinit(tmp_path, line, completed):
    fpath = tmp_path / "fpath"
    fpath.mkdir()
    script = subprocess.run([SHIMMERD, "completion", "zsh"], capture_output=True, text=True, check=True).stdout
    (fpath / "_shimmerd").write_text(script)
    work = tmp_path / "work"
    work.mkdir()
    for name in ["trace.jsonl", "notes.txt"]:
        (work / name).write_text("")
    shown = zsh_tab(line, fpath, work, completed)
    assert completed in shown, repr(shown)


def rendered(page):
    """`shimmerd man PAGE` as man shows it, on lines 1000 columns wide, without bold and
    underline overstrikes."""
    source = subprocess.run([SHIMMERD, "man", page], capture_output=True, text=True, check=True).stdout
    shown = subprocess.run(["man", "-l", "-"], input=source, capture_output=True, text=True,
                           env=dict(os.environ, MANWIDTH="1000", LC_ALL="C.UTF-8"))
    assert shown.returncode == 0 and shown.stderr == "", shown.stderr
    return re.sub(r".\x08", "", shown.stdout)


@pytest.mark.parametrize("page", ["shimmerd.8", "shimmerd.conf.5"])
def test_manual_pages_are_warning_free_roff(page):
    text = subprocess.run([SHIMMERD, "man", page], capture_output=True, text=True, check=True).stdout
    r = subprocess.run(["groff", "-man", "-ww", "-z"], input=text, capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    shown = rendered(page)
    for section in ["NAME", "SYNOPSIS", "DESCRIPTION", "SEE ALSO"]:
        assert re.search(r"^%s$" % section, shown, re.M), section


def test_daemon_page_lists_every_command_and_option_of_help():
    shown = rendered("shimmerd.8")
    for command in commands():
        assert re.search(r"^   %s$" % re.escape(command), shown, re.M), command
        block = re.split(r"\n   \S", shown.split("\n   %s\n" % command, 1)[1], maxsplit=1)[0]
        for option in options(command):
            assert re.search(r"^       %s\b" % re.escape(option), block, re.M), (command, option)


def test_configuration_page_lists_every_key_with_its_default():
    shown = rendered("shimmerd.conf.5")
    for key, default in documented_keys().items():
        section, name = key.split(".", 1)
        block = re.split(r"\n\S", shown.split("\n[%s] SECTION\n" % section, 1)[1], maxsplit=1)[0]
        assert re.search(r"^       %s = %s$" % (re.escape(name), re.escape(default or "(empty)")), block, re.M), key
