"""A small progress display on stderr: a bar on a terminal, plain lines elsewhere."""

from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int | None = None, label: str = "", stream=None, enabled: bool = True):
        self.total = total
        self.done = 0
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.start = time.monotonic()
        self._last = 0.0

    def message(self, text: str) -> None:
        """Show what is happening now (used by long benchmark steps)."""
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.start
        if self.tty:
            self.stream.write(f"\r\033[K[{elapsed:6.1f}s] {text}")
        else:
            self.stream.write(f"[{elapsed:6.1f}s] {text}\n")
        self.stream.flush()

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled or not self.total:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and self.done < self.total:
            return
        self._last = now
        frac = self.done / self.total
        width = 30
        bar = "#" * int(frac * width) + "-" * (width - int(frac * width))
        line = f"{self.label} [{bar}] {self.done}/{self.total}"
        if self.tty:
            self.stream.write("\r\033[K" + line)
        elif self.done == self.total:
            self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\r\033[K")
            self.stream.flush()
