"""A progress bar for waits: tqdm when it is installed, else one line redrawn on stderr."""
from __future__ import annotations

import sys
from typing import TextIO

try:  # optional (Debian python3-tqdm)
    from tqdm import tqdm as _tqdm
except ImportError:  # pragma: no cover - depends on the machine
    _tqdm = None


class Progress:
    """Shows done/total and a status word; a no-op when not enabled."""

    def __init__(self, description: str, enabled: bool = True, stream: TextIO | None = None,
                 plain: bool = False) -> None:
        self.description = description
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self._bar = None
        self._plain = plain or _tqdm is None
        self._last = ""

    def update(self, done: float, total: float, status: str = "") -> None:
        if not self.enabled:
            return
        if not self._plain:
            if self._bar is None:
                self._bar = _tqdm(total=total, desc=self.description, file=self.stream, leave=True)
            self._bar.total = total
            self._bar.n = done
            self._bar.set_postfix_str(status, refresh=False)
            self._bar.refresh()
            return
        width = 30
        filled = int(width * done / total) if total else 0
        line = f"\r{self.description} [{'#' * filled}{'.' * (width - filled)}] {done:g}/{total:g} {status}"
        if line != self._last:
            self.stream.write(line)
            self.stream.flush()
            self._last = line

    def close(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
        elif self._last:
            self.stream.write("\n")
            self.stream.flush()
