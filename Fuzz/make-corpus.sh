#!/usr/bin/env bash
# Regenerates the committed seed corpora in Fuzz/corpus/ from the repository's own inputs:
# the shipped configuration, check-config's output, the umockdev fixtures' attributes,
# scan types and recorded scans, and a short trace of `shimmerd demo`. Run once after a
# format change; scripts/fuzz.sh only reads these (new inputs go to .build-fuzz/corpus/).
set -euo pipefail
cd "$(dirname "$0")/.."
fixtures=Tests/IntegrationTests/fixtures
out=Fuzz/corpus
rm -rf "$out"
mkdir -p "$out"/{configuration,mount-matrix,sysfs-number,scan-decoder,trace-reader,shm-header}
swift build --product shimmerd 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\]' || true
shimmerd="$(swift build --show-bin-path)/shimmerd"

# Configuration: the documented file (every key, commented), the effective values in
# check-config's syntax, and the test suite's small configurations.
cp config/shimmerd.conf "$out/configuration/documented.conf"
"$shimmerd" check-config --config config/shimmerd.conf > "$out/configuration/check-config.conf"
printf '[Sensor]\ndevice = iio:device0\nmount_matrix = 0, 1, 0; -1, 0, 0; 0, 0, 1\ntrace_speed = max\n\n[Card]\nheight = auto\norigin = 175,233.333\n' > "$out/configuration/sensor-card.conf"
printf '; drop-in\n[sink]\nTYPE = shm\nname = shimmer\nmode = 0640\nposition = 10,20\n[Trace]\npath = /var/log/shimmerd/trace.jsonl\nmax_size = 64M\nmax_files = 3\n' > "$out/configuration/dropin.conf"
printf '[Attitude]\nbaseline_samples = 10\nfilter = none\nmin_cutoff = 1e0\nbeta = 0.5\n[Mapper]\nclamp = no\n[Log]\nlevel = debug\n' > "$out/configuration/attitude.conf"
printf '[Card]\nwidth = -5\n' > "$out/configuration/bad-value.conf"

# Mount matrices: every one in the fixtures (sysfs attributes and udev's ACCEL_MOUNT_MATRIX).
n=0
grep -hE '^(A: (in_accel_)?mount_matrix|E: ACCEL_MOUNT_MATRIX)=' "$fixtures"/*.umockdev | sed -E 's/^[AE]: [^=]*=//; s/\\n$//' | sort -u |
while IFS= read -r m; do n=$((n + 1)); printf '%s\n' "$m" > "$out/mount-matrix/fixture-$n"; done
printf '0.5, 0, 0; 0, 1e0, 0; 0, 0, -1.000' > "$out/mount-matrix/decimals"

# Sysfs numbers: every numeric attribute value of the fixtures, as the kernel ends it.
grep -hE '^A: [a-z_/0-9]+=[-+0-9. e]+\\n$' "$fixtures"/*.umockdev | sed -E 's/^A: [^=]*=//; s/\\n$//' | sort -u |
while IFS= read -r v; do printf '%s\n' "$v" > "$out/sysfs-number/$(printf '%s' "$v" | md5sum | cut -c1-12)"; done

# Scan decoder: each fixture's scan types in channel order, a NUL, then its first scans.
for f in "$fixtures"/*.umockdev; do
  base=$(basename "$f" .umockdev)
  types=$(grep -oE 'scan_elements/in_[a-z0-9_]+_type=[^\\]+' "$f" | sed 's/.*=//' | head -8)
  [ -n "$types" ] || continue
  scans=$(ls "$fixtures/$base".*.scans.bin 2>/dev/null | head -1 || true)
  { printf '%s' "$types"; printf '\0'; [ -z "$scans" ] || head -c 48 "$scans"; } > "$out/scan-decoder/$base"
done
printf 'le:s16/16X3>>0\nbe:u10/16>>6\nle:S64/64>>0\0\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\021\022\023\024\025\026\027\030' > "$out/scan-decoder/repeat"

# Traces: the first lines of a demo run (header, readings, baseline, samples, frames).
tmp=$(mktemp -d)
"$shimmerd" demo --out "$tmp/demo" --set Sink.fps=5 >/dev/null 2>&1
head -n 12 "$tmp/demo/trace.jsonl" > "$out/trace-reader/demo-head.jsonl"
grep -m 3 '"type":"frame"' "$tmp/demo/trace.jsonl" > "$out/trace-reader/frames.jsonl"
grep -m 3 '"type":"sample"' "$tmp/demo/trace.jsonl" > "$out/trace-reader/samples.jsonl"
grep -m 2 '"type":"reading"' "$tmp/demo/trace.jsonl" > "$out/trace-reader/readings.jsonl" || true
rm -rf "$tmp"
printf '{"type":"temperature","t":0.55,"celsius":41.5}\n\n{"type":"baseline","t":0.1,"up":[0,-1,0]}\r\n{"type":"sample","t":0.5,"seq":0,"accel":[0,-9.8' > "$out/trace-reader/unknown-crlf-truncated.jsonl"
printf '{"type":"recapture","t":1.25,"reason":"SIGUSR1"}\n{"reason":"the accelerometer attached again","t":3.5,"type":"recapture"}\n' > "$out/trace-reader/recapture.jsonl"
find "$out" -type f | sort | sed 's/^/  /'

# Shared-memory segments (the whole file is the input): a valid 8 x 8 one with a frame,
# and the headers docs/RELIABILITY.md lists as attacks on readers.
python3 - "$out/shm-header" <<'PY'
import struct, sys
def seg(name, width=8, height=8, stride=None, count=3, offset=4096, size=4096, frame=1, length=None):
    stride = width * 4 if stride is None else stride
    h = bytearray(128)
    struct.pack_into("<4sIIIIIIIQQQQffI", h, 0, b"SHMR", 1, 128, width, height, stride, 0x34325258, count,
                     offset, size, frame, 0, 175.0, 233.3, 0)
    n = offset + count * size if length is None else length
    open(sys.argv[1] + "/" + name, "wb").write(bytes(h) + bytes(min(n, 1 << 16) - 128))
seg("valid-8x8")
seg("no-frame", frame=0)
seg("width-2p30", width=1 << 30, stride=4096)
seg("buffer-size-2p63", size=1 << 63, length=4096)
seg("count-times-size", count=1 << 31, size=1 << 40, length=4096)
seg("16000x16000", width=16000, height=16000, length=4096)
seg("short-file", length=8192)
PY
