"""CPU time of the processes a benchmark runs, read from ``/proc`` (Linux).

A bot's CPU includes the processes it starts (the painter,
bot/present/painter.py): the figure the issues ask for is "main process plus
painter".
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def cpu_seconds(pid: int, *, children: bool) -> float:
    """CPU time (user + system) of process ``pid``, and of its live descendants
    with ``children``."""
    tick = os.sysconf("SC_CLK_TCK")
    stats = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # gone meanwhile
                continue
            stats[int(entry.name)] = (int(fields[1]), int(fields[11]) + int(fields[12]))
    family, total = {pid}, 0
    for each in sorted(stats):  # children have larger pids, apart from pid wrap-around
        parent, ticks = stats[each]
        if each == pid or (children and parent in family):
            family.add(each)
            total += ticks
    return total / tick


class CpuMeter:
    """CPU seconds used since it was made by named groups of processes: a name
    starting with ``bot`` counts its processes with their children (the
    painter); e.g. ``{"bot": [pid], "harness": [os.getpid()], "redis": [pid]}``."""

    def __init__(self, pids: Mapping[str, list[int]]) -> None:
        self.pids = dict(pids)
        self.start = {name: self._used(name) for name in self.pids}

    def _used(self, name: str) -> float:
        return sum(cpu_seconds(pid, children=name.startswith("bot")) for pid in self.pids[name])

    def used(self) -> dict[str, float]:
        """CPU seconds each group used since the meter was made."""
        return {name: self._used(name) - self.start[name] for name in self.pids}

    def per(self, count: int) -> str:
        """``bot 11.6, harness 2.2, ...``: CPU ms of each group per one of ``count``."""
        return ", ".join(f"{name} {seconds * 1000 / count:.1f}"
                         for name, seconds in self.used().items())
