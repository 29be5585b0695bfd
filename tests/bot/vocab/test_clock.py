"""Deadline arithmetic (bot/vocab/clock.py): time controls, the stages of a deadline,
restarts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.vocab import clock
from bot.vocab.clock import (
    DAY,
    HOUR,
    LAST_CALL,
    REMINDED,
    TIMED_OUT,
    TimeControlError,
    due_stage,
    events,
    first_wake,
    format_time_control,
    new_deadline,
    next_wake,
    parse_time_control,
)

limits = st.integers(clock.MIN_LIMIT // HOUR,
                     clock.MAX_LIMIT // HOUR).map(lambda h: h * HOUR)
times = st.floats(0, 4e9, allow_nan=False)


@given(limits)
def test_format_reads_back(limit: int) -> None:
    assert parse_time_control(format_time_control(limit)) == limit


@pytest.mark.parametrize("text", ["", "12", "h", "0h", "1.5d", "-1d", "15d", "337h", "30m",
                                  "1w", "12 h", "1d2h"])
def test_bad_time_controls_are_refused(text: str) -> None:
    with pytest.raises(TimeControlError):
        parse_time_control(text)


def test_presets_parse_and_none_means_no_clock() -> None:
    assert [parse_time_control(w) for w in ("1h", "12h", "1d", "3d",
                                            "7d")] == list(clock.PRESETS)
    assert {parse_time_control(w) for w in ("none", "OFF", "no", "0")} == {None}


@given(limits, times)
def test_stages_come_in_order_before_the_deadline(limit: int, deadline: float) -> None:
    timeline = events(deadline, limit)
    at = [t for t, _ in timeline]
    stages = [s for _, s in timeline]
    assert at == sorted(at) and len(set(at)) == len(at)
    assert stages[-2:] == [LAST_CALL, TIMED_OUT] and stages in ([REMINDED, LAST_CALL, TIMED_OUT],
                                                                 [LAST_CALL, TIMED_OUT])
    assert at[-1] == deadline
    start = deadline - limit
    # no reminder in the first hour of a period, the last call at most 3 hours early
    # (to the microsecond: start and the stages are sums of floats, rounded differently)
    assert at[0] >= start + min(HOUR, limit * 3 / 4) - 1e-6
    assert deadline - at[-2] <= 3 * HOUR + 1e-6


@given(limits, times, st.floats(0, 2, allow_nan=False), st.integers(0, 3))
def test_due_stage_and_next_wake_agree(limit: int, deadline: float, fraction: float,
                                       done: int) -> None:
    now = deadline - limit + fraction * limit
    stage = due_stage(deadline, limit, done, now)
    wake = next_wake(deadline, limit, done)
    if done == TIMED_OUT:
        assert stage is None and wake is None
        return
    assert wake is not None
    # something is due exactly when the next wake-up has come
    assert (stage is not None) == (wake <= now)
    if stage is not None:
        assert stage > done
        assert (stage == TIMED_OUT) == (now >= deadline)  # a late wake-up skips to the timeout
        assert due_stage(deadline, limit, stage, now) is None  # acted: nothing more due now


def test_a_day_reminds_at_12_and_21_hours_and_an_hour_only_15_minutes_before() -> None:
    assert [(t / HOUR, s) for t, s in events(DAY, DAY)] == [(12, 1), (21, 2), (24, 3)]
    assert [(t / 60, s) for t, s in events(HOUR, HOUR)] == [(45, 2), (60, 3)]
    assert [(t / HOUR, s) for t, s in events(7 * DAY, 7 * DAY)] == [(84, 1), (165, 2), (168, 3)]
    assert first_wake(DAY, DAY) == 12 * HOUR


@given(st.none() | times, st.none() | limits, times, st.booleans(), st.booleans())
def test_new_deadline(current: float | None, limit: int | None, now: float, running: bool,
                      restart: bool) -> None:
    deadline = new_deadline(current, limit, now, running=running, restart=restart)
    if limit is None or not running:
        assert deadline is None
    elif restart or current is None:
        assert deadline == now + limit
    else:
        assert deadline == current


def test_test_clock_offset_is_read_from_the_file_each_time(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "clock"
    monkeypatch.delenv(clock.TEST_CLOCK_ENV, raising=False)
    real = clock.now()
    monkeypatch.setenv(clock.TEST_CLOCK_ENV, str(path))
    assert abs(clock.now() - real) < 5  # no file yet: no offset
    clock.set_test_offset(path, 3 * DAY)
    assert 3 * DAY - 5 < clock.now() - real < 3 * DAY + 5
    clock.set_test_offset(path, 0)
    assert abs(clock.now() - real) < 5
