"""Screenshots of an X display for the viewer tests: `xwd` (x11-apps) writes the window's
pixels in X Window Dump format, read here with the standard library (no ImageMagick), and
written back out as PNG for people (docs/viewer.png)."""
import struct
import subprocess
import zlib


class Shot:
    """An RGB screenshot: `width`, `height`, and `pixel(x, y)` -> (r, g, b)."""

    def __init__(self, width, height, rgb):
        self.width, self.height, self.rgb = width, height, rgb

    def pixel(self, x, y):
        o = (y * self.width + x) * 3
        return tuple(self.rgb[o:o + 3])

    def crop(self, x0, y0, w, h):
        out = bytearray()
        for y in range(y0, y0 + h):
            out += self.rgb[(y * self.width + x0) * 3:(y * self.width + x0 + w) * 3]
        return Shot(w, h, bytes(out))

    def png(self):
        raw = b"".join(b"\0" + self.rgb[y * self.width * 3:(y + 1) * self.width * 3] for y in range(self.height))

        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def parse_xwd(data):
    """A ZPixmap XWD of depth 24 (what Xvfb -screen 0 WxHx24 gives). xwd may call the
    pixels 24 bits while storing them in 32-bit units: bytes_per_line decides."""
    fields = struct.unpack(">25I", data[:100])
    header_size, version, pixmap_format, depth, width, height = fields[:6]
    byte_order, bytes_per_line = fields[7], fields[12]
    red_mask, green_mask, blue_mask = fields[14:17]
    ncolors = fields[19]
    assert version == 7 and pixmap_format == 2 and depth == 24 and bytes_per_line >= width * 4, fields
    start = header_size + ncolors * 12
    order = "<" if byte_order == 0 else ">"

    def shift(mask):
        return (mask & -mask).bit_length() - 1
    rs, gs, bs = shift(red_mask), shift(green_mask), shift(blue_mask)
    rgb = bytearray(width * height * 3)
    for y in range(height):
        row = struct.unpack_from(order + "%dI" % width, data, start + y * bytes_per_line)
        o = y * width * 3
        for v in row:
            rgb[o] = (v >> rs) & 0xFF
            rgb[o + 1] = (v >> gs) & 0xFF
            rgb[o + 2] = (v >> bs) & 0xFF
            o += 3
    return Shot(width, height, bytes(rgb))


def window(display, window_id, env=None):
    """The window's contents now (`xwd -id`)."""
    r = subprocess.run(["xwd", "-silent", "-id", str(window_id), "-display", display], capture_output=True,
                       env=env, timeout=30)
    assert r.returncode == 0, r.stderr
    return parse_xwd(r.stdout)
