"""`shimmerd run` on the bmc150 with a trace, tilted to show that the sink answers: the
runs of the fault, reload and hostile-environment tests."""
import json
import re

from support.harness import BMC150, Device, close_to, pose, read_trace, trace_text, wait_trace

QUIET = ["--set", "Sensor.mode=poll", "--set", "Sensor.rate=30", "--set", "Sink.fps=30",
         "--set", "Attitude.filter=none", "--set", "Attitude.baseline_samples=3"]


def trace_snapshot(path):
    """The trace's whole lines now: what must survive the fault byte for byte."""
    text = trace_text(path)
    return text[:text.rfind("\n") + 1]


def check_trace_intact(path, before):
    text = trace_text(path)
    assert text.startswith(before), "the trace written before the fault changed"
    assert text.endswith("\n"), "the trace ends in a partial line"
    seq = None
    for n, line in enumerate(text.split("\n")[:-1], 1):
        r = json.loads(line)          # every line is whole JSON
        if r["type"] == "header":
            seq = None                # a (re)built pipeline counts from 0 again
        elif r["type"] == "sample":
            assert r["seq"] == (0 if seq is None else seq + 1), "line %d: sample %d after %s" % (n, r["seq"], seq)
            seq = r["seq"]
    return [json.loads(line) for line in text.split("\n")[:-1]]


class Run:
    """shimmerd run on the bmc150 with a trace. `tilt` waits for the sample of a new pose
    and a frame drawn after it; `answer` for the sample and the sink's answer to it (a
    `frame` or a `dropped` record, or a log line). With `config`, an empty configuration
    file in tmp_path (`conf`), which a test may rewrite and reload."""

    def __init__(self, bed, tmp_path, *extra, dev=None, prefix=(), config=True):
        self.bed = bed
        self.dev = dev or Device(BMC150)
        self.trace = str(tmp_path / "trace.jsonl")
        self.conf = tmp_path / "shimmerd.conf" if config else None
        if config and not self.conf.exists():
            self.conf.write_text("")
        self.roll = 0.0
        bed.set_raw(self.dev, self.dev.raw_for(pose(0, 0)))
        configuration = ["--config", str(self.conf)] if config else []
        self.d = bed.spawn("run", *configuration, *QUIET, "--set", "Trace.path=" + self.trace, *extra, prefix=prefix)
        self.wait(lambda r: r["type"] == "baseline", "baseline")

    def wait(self, predicate, what, start=0):
        return wait_trace(self.trace, predicate, what, self.d, start)

    def wait_baseline(self, start):
        """A baseline record at or after index `start` (after a reload or re-attach: a
        tilt made before it would become the baseline and move nothing)."""
        return self.wait(lambda r: r["type"] == "baseline", "a new baseline", start)

    def frames(self):
        return [r for r in read_trace(self.trace) if r["type"] == "frame"]

    def _new_pose(self, what):
        """Sets a pose unlike the one held, and waits for its sample: (index, sample)."""
        self.roll = -0.1 if self.roll > 0 else 0.1 + 0.01 * len(self.frames()) % 0.05
        raw = self.dev.raw_for(pose(self.roll, 0.02))
        # Only records traced from now on: the same pose may have been held before.
        start = len(read_trace(self.trace))
        self.bed.set_raw(self.dev, raw)
        got = self.dev.accel_of(raw)
        return self.wait(lambda r: r["type"] == "sample" and close_to(r["accel"], got, 1e-6),
                         "the sample of roll %.3f (%s)" % (self.roll, what), start)

    def tilt(self, what="frames"):
        """A new pose: waits for its sample, then for a frame drawn after it."""
        i, s = self._new_pose(what)
        self.wait(lambda r: r["type"] == "frame" and r["t"] >= s["t"], "a frame after it (%s)" % what, i)
        return s

    def answer(self, what="frames", or_log=None):
        """The sink's answer to a new pose; with `or_log`, a log line matching it counts
        as the answer too (a frame the sink failed to write leaves no record): then None."""
        i, s = self._new_pose(what)
        logged = (lambda: any(re.search(or_log, line) for line in self.d.logs)) if or_log else (lambda: False)
        answer = self.wait(lambda r: logged() or (r["type"] in ("frame", "dropped") and r["t"] >= s["t"]),
                           "the sink's answer (%s)" % what, i)[1]
        return None if logged() else answer

    def lines(self, pattern, start=0):
        rx = re.compile(pattern)
        return [line for line in self.d.logs[start:] if rx.search(line)]

    def stop(self):
        assert self.d.poll() is None, "shimmerd exited (%s); log:\n%s" % (self.d.poll(), "\n".join(self.d.logs[-20:]))
        assert self.d.stop() == 0, "\n".join(self.d.logs[-20:])
