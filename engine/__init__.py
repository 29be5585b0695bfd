"""nardy's rules engine: long nardy and backgammon, pure Python, no I/O."""

from engine.position import (
    BAR,
    CHECKERS,
    HEAD,
    OFF,
    Dice,
    EngineError,
    IllegalStepError,
    InvalidDiceError,
    InvalidPositionError,
    Position,
    RandomSource,
    Side,
    Step,
    Variant,
    opponent_point,
)
from engine.turns import Turn, TurnInProgress, apply_step, end_turn, legal_turns

__all__ = [
    "BAR",
    "CHECKERS",
    "HEAD",
    "OFF",
    "Dice",
    "EngineError",
    "IllegalStepError",
    "InvalidDiceError",
    "InvalidPositionError",
    "Position",
    "RandomSource",
    "Side",
    "Step",
    "Turn",
    "TurnInProgress",
    "Variant",
    "apply_step",
    "end_turn",
    "legal_turns",
    "opponent_point",
]
