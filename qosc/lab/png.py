"""A tiny pure-Python PNG plotter: line charts with axes, a legend and a 5x7 bitmap font.

Enough for benchmarks/dataplane.py's per-class throughput over time, without
matplotlib: an RGB canvas, lines, rectangles, text, written with zlib.
"""

from __future__ import annotations

import itertools
import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

Color = tuple[int, int, int]
WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)
GREY: Color = (215, 215, 215)
PALETTE: dict[str, Color] = {"ef": (200, 30, 30), "af": (30, 110, 200), "be": (40, 150, 40), "lbe": (150, 90, 190),
                             "other": (120, 120, 120)}

_FONT = {
    "0": (14, 17, 19, 21, 25, 17, 14), "1": (4, 12, 4, 4, 4, 4, 14), "2": (14, 17, 1, 2, 4, 8, 31),
    "3": (31, 2, 4, 2, 1, 17, 14), "4": (2, 6, 10, 18, 31, 2, 2), "5": (31, 16, 30, 1, 1, 17, 14),
    "6": (6, 8, 16, 30, 17, 17, 14), "7": (31, 1, 2, 4, 8, 8, 8), "8": (14, 17, 17, 14, 17, 17, 14),
    "9": (14, 17, 17, 15, 1, 2, 12), "A": (14, 17, 17, 17, 31, 17, 17), "B": (30, 17, 17, 30, 17, 17, 30),
    "C": (14, 17, 16, 16, 16, 17, 14), "D": (28, 18, 17, 17, 17, 18, 28), "E": (31, 16, 16, 30, 16, 16, 31),
    "F": (31, 16, 16, 30, 16, 16, 16), "G": (14, 17, 16, 23, 17, 17, 15), "H": (17, 17, 17, 31, 17, 17, 17),
    "I": (14, 4, 4, 4, 4, 4, 14), "J": (7, 2, 2, 2, 2, 18, 12), "K": (17, 18, 20, 24, 20, 18, 17),
    "L": (16, 16, 16, 16, 16, 16, 31), "M": (17, 27, 21, 21, 17, 17, 17), "N": (17, 17, 25, 21, 19, 17, 17),
    "O": (14, 17, 17, 17, 17, 17, 14), "P": (30, 17, 17, 30, 16, 16, 16), "Q": (14, 17, 17, 17, 21, 18, 13),
    "R": (30, 17, 17, 30, 20, 18, 17), "S": (15, 16, 16, 14, 1, 1, 30), "T": (31, 4, 4, 4, 4, 4, 4),
    "U": (17, 17, 17, 17, 17, 17, 14), "V": (17, 17, 17, 17, 17, 10, 4), "W": (17, 17, 17, 21, 21, 21, 10),
    "X": (17, 17, 10, 4, 10, 17, 17), "Y": (17, 17, 17, 10, 4, 4, 4), "Z": (31, 1, 2, 4, 8, 16, 31),
    " ": (0,) * 7, ".": (0, 0, 0, 0, 0, 12, 12), ",": (0, 0, 0, 0, 12, 4, 8), ":": (0, 12, 12, 0, 12, 12, 0),
    "%": (24, 25, 2, 4, 8, 19, 3), "/": (0, 1, 2, 4, 8, 16, 0), "(": (2, 4, 8, 8, 8, 4, 2),
    ")": (8, 4, 2, 2, 2, 4, 8), "-": (0, 0, 0, 31, 0, 0, 0), "+": (0, 4, 4, 31, 4, 4, 0),
    "_": (0, 0, 0, 0, 0, 0, 31), "=": (0, 0, 31, 0, 31, 0, 0),
}


class Canvas:
    def __init__(self, width: int, height: int, background: Color = WHITE) -> None:
        self.width, self.height = width, height
        self.rows = [bytearray(bytes(background) * width) for _ in range(height)]

    def pixel(self, x: int, y: int, color: Color) -> None:
        if 0 <= x < self.width and 0 <= y < self.height:
            self.rows[y][3 * x:3 * x + 3] = bytes(color)

    def rect(self, x0: int, y0: int, x1: int, y1: int, color: Color) -> None:
        for y in range(max(0, y0), min(self.height, y1 + 1)):
            for x in range(max(0, x0), min(self.width, x1 + 1)):
                self.rows[y][3 * x:3 * x + 3] = bytes(color)

    def line(self, x0: int, y0: int, x1: int, y1: int, color: Color, width: int = 1) -> None:
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx, sy = (1 if x0 < x1 else -1), (1 if y0 < y1 else -1)
        err = dx + dy
        half = width // 2
        while True:
            self.rect(x0 - half, y0 - half, x0 - half + width - 1, y0 - half + width - 1, color)
            if x0 == x1 and y0 == y1:
                return
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x0 += sx
            if e2 <= dx:
                err += dx
                y0 += sy

    def text(self, x: int, y: int, text: str, color: Color = BLACK, scale: int = 2) -> int:
        """Draw text with its top-left at (x, y); returns the x after it."""
        for ch in text.upper():
            glyph = _FONT.get(ch, _FONT[" "])
            for row, bits in enumerate(glyph):
                for col in range(5):
                    if bits & (16 >> col):
                        self.rect(x + col * scale, y + row * scale, x + col * scale + scale - 1,
                                  y + row * scale + scale - 1, color)
            x += 6 * scale
        return x

    def png(self) -> bytes:
        raw = b"".join(b"\0" + bytes(row) for row in self.rows)

        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + \
            chunk(b"IEND", b"")


def plot_panels(panels: Sequence[tuple[str, dict[str, list[tuple[float, float]]]]], path: Path | str,
                y_max: float = 100.0, x_max: float | None = None, y_label: str = "MBIT/S") -> None:
    """One line chart per panel, stacked: (title, {series name: [(t, value)]})."""
    width, panel_h, left, right, top = 960, 240, 80, 150, 40
    canvas = Canvas(width, top + panel_h * len(panels) + 30)
    x_max = x_max or max((t for _, series in panels for pts in series.values() for t, _ in pts), default=1.0)
    for i, (title, series) in enumerate(panels):
        y0 = top + i * panel_h
        plot_top, plot_bottom = y0 + 24, y0 + panel_h - 40
        plot_right = width - right
        canvas.text(left, y0 + 4, f"{title}   ({y_label} OVER SECONDS)", scale=2)
        for frac in (0, 0.25, 0.5, 0.75, 1.0):
            y = round(plot_bottom - frac * (plot_bottom - plot_top))
            canvas.line(left, y, plot_right, y, GREY)
            canvas.text(left - 50, y - 6, f"{y_max * frac:g}", scale=2)
        step = 2 if x_max <= 24 else 5
        t = 0
        while t <= x_max + 1e-9:
            x = left + round(t / x_max * (plot_right - left))
            canvas.line(x, plot_bottom, x, plot_bottom + 4, BLACK)
            canvas.text(x - 6, plot_bottom + 8, f"{t:g}", scale=2)
            t += step
        canvas.line(left, plot_top, left, plot_bottom, BLACK)
        canvas.line(left, plot_bottom, plot_right, plot_bottom, BLACK)
        for n, (name, pts) in enumerate(series.items()):
            color = PALETTE.get(name, PALETTE["other"])
            coords = [(left + round(t / x_max * (plot_right - left)),
                       round(plot_bottom - min(v, y_max) / y_max * (plot_bottom - plot_top))) for t, v in pts]
            for (xa, ya), (xb, yb) in itertools.pairwise(coords):
                canvas.line(xa, ya, xb, yb, color, width=2)
            ly = plot_top + n * 22
            canvas.rect(plot_right + 12, ly + 4, plot_right + 32, ly + 8, color)
            canvas.text(plot_right + 38, ly, name, color=color, scale=2)
    Path(path).write_bytes(canvas.png())
