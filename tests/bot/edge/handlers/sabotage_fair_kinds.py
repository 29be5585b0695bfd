"""Each fix of issue 25 undone in turn: which tests of test_fair_kinds.py fail.

Run ``python tests/bot/edge/handlers/sabotage_fair_kinds.py [S3 S7 …]`` in a clean work
tree: each entry of :data:`SABOTAGES` replaces one piece of the bot's code by
what it was before its fix (or breaks it), runs the tests of each kind of
game, prints the ones that failed and puts the file back.  Not collected by
pytest (it edits the source tree).
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[4]
TESTS = "tests/bot/edge/handlers/test_fair_kinds.py"
KINDS = ["test_a_group_lobby", "test_a_game_against_the_computer_waits_for_start",
         "test_a_rematch_against_the_computer_waits_for_start",
         "test_a_matchs_next_game_keeps_the_first_games_tap",
         "test_an_invitation_waits_for_a_players_start",
         "test_a_tournament_game_waits_for_a_players_start",
         "test_an_inline_game_waits_for_start_after_the_second_join",
         "test_an_inline_player_who_never_started_the_bot_keeps_it_by_verify",
         "test_an_inline_rematch_keeps_its_commitment_before_the_accepting_tap",
         "test_grinding_seeds_after_the_entropy_cannot_give_a_verified_game",
         "test_a_game_against_the_computer_costs_the_group_one_message",
         "test_a_game_against_the_computer_for_someone_without_a_private_chat",
         "test_a_rematch_offer_between_people_is_kept_in_their_private_chats",
         "test_a_lobby_between_people_keeps_it_in_the_lobby_whoever_started_the_bot",
         "test_a_lobby_costs_the_group_one_message_less_to_the_first_turn",
         "test_play_the_bot_on_a_lobby_keeps_the_lobby",
         "test_seed_words_are_confirmed_in_the_reply_not_edited_into_the_lobby"]
FAIR = "bot/edge/handlers/board.py"  # the commitment's messages
SABOTAGES: dict[str, list[tuple[str, str, str]]] = {
    "S1 no never-edited commitment message": [(
        FAIR, "    state = fresh_commitment(old, new)\n", "    return\n")],
    "S2 tap id not mixed in": [(
        "bot/rules/dice.py",
        "        items = (*items[:MAX_ITEMS - 1], str(EntropyItem(label, tap_id[:256])))\n",
        "        pass\n")],
    "S3 computer game rolls at /new (its update id)": [(
        "bot/edge/handlers/commands.py",
        "lobby = computer.seat_computer(lobby, seat, person)",
        "lobby = computer.seat_computer(lobby, seat, person, "
        "get_dealer(context).tapped(str(update.update_id)))")],
    "S4 computer rematch starts at once": [(
        "bot/rules/aftergame.py",
        "if table.match_over and any(computer_level(p.user_id) is not None for p in "
        "record.players):", "if False:")],
    "S5 a match's next game gets new dice": [(
        "bot/rules/aftergame.py",
        "        state = record.dice if record.dice is not None else committed(dealer)",
        "        state = committed(dealer)")],
    "S6 invitation starts at /start (its update id)": [(
        "bot/edge/handlers/invite.py", "    language = pick_language(user.language_code)\n",
        "    from bot.rules.lobby import start_game\n"
        "    lobby = start_game(lobby, get_dealer(context).tapped(str(update.update_id)))\n"
        "    language = pick_language(user.language_code)\n")],
    "S7 inline second Join starts the game": [(
        "bot/rules/lobby.py", "starts = len(players) == 2 and not record.is_inline",
        "starts = len(players) == 2")],
    "S8 inline kept message after the redraw": [(
        FAIR,
        "        await keep_inline(context, tr, old, new, user_id)  # before its Start or "
        "Accept\n        await edit(context, tr, new)\n",
        "        await edit(context, tr, new)\n"
        "        await keep_inline(context, tr, old, new, user_id)\n")],
    "S9 inline rematch offer not kept": [(
        FAIR, "    elif fresh_commitment(old, new) is not None:", "    elif False:")],
    "S10 tournament game's commitment only on its board": [(
        "bot/edge/handlers/tournament.py", "            await announce(context, tr, None, game)\n",
        "")],
    "S11 a group's game kept nowhere when its tappers started the bot (issue 35)": [(
        FAIR, "    if not (awaits_start(new) or new.next_dice is state):\n        return False\n",
        "    if awaits_start(new) or new.next_dice is state:\n        return True\n")],
    "S12 a lobby between people kept in its commander's private chat only": [
        (FAIR, "(new.is_inline and not to) or people_lobby(new):", "(new.is_inline and not to):"),
        (FAIR, "    if not (awaits_start(new) or new.next_dice is state):\n        return False\n",
         ""),
        (FAIR, "    people = [p.user_id for p in new.players if computer_level(p.user_id) "
               "is None]\n",
         "    people = [p.user_id for p in new.players if computer_level(p.user_id) is None] "
         "or [new.created_by]\n")],
    "S13 the seating tap turns the lobby into the game (issue 35)": [(
        "bot/rules/lobby.py", "    if label == JOIN_LABEL and not record.is_inline:\n",
        "    if False:\n")],
    "S14 /seed words edited into the lobby": [(
        "bot/edge/handlers/dice.py", "    if people_lobby(saved):\n", "    if False:\n")],
}


def run(name: str, edits: list[tuple[str, str, str]]) -> list[str]:
    saved = {}
    for path, old, new in edits:
        text = (ROOT / path).read_text()
        assert old in text, (name, path)
        saved.setdefault(path, text)  # the original, before any edit of this run
        (ROOT / path).write_text(text.replace(old, new, 1))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout=240",
             "-rf", TESTS, "-k", " or ".join(KINDS)],
            cwd=ROOT, capture_output=True, text=True, check=False)
    finally:
        for path, text in saved.items():
            (ROOT / path).write_text(text)
    lines = done.stdout.splitlines()
    print(name, "->", lines[-1] if lines else done.stderr[-300:], flush=True)
    return sorted({line.split("::")[1].split(" ")[0] for line in lines
                   if line.startswith("FAILED")})


def main(only: list[str]) -> None:
    failed = {name: run(name, edits) for name, edits in SABOTAGES.items()
              if not only or any(name.startswith(prefix + " ") for prefix in only)}
    print(json.dumps(failed, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
