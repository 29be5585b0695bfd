// The Mini App: draws the game the server sends, for the viewer (a player's own checkers at
// the bottom, their own numbers), lets the mover walk the server's tree of legal steps
// locally, by tapping or by dragging checkers (with undo), and sends the whole turn once.
// It decides nothing: every request carries Telegram's initData, and the server checks
// each turn with the engine.  Its words come with the state, from the bot's catalogs.
import { drawBoard } from "./board.js";
import { unpackTree } from "./tree.js";

const tg = window.Telegram && window.Telegram.WebApp;
const query = new URLSearchParams(location.search);
const game = query.get("game") || (tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param) || "";
const $ = (id) => document.getElementById(id);
const at = (version) => Boolean(tg && tg.isVersionAtLeast && tg.isVersionAtLeast(version));

let state = null;     // the last state from the server
let path = [];        // the steps played locally: [{step, node, from, to}]
let source = null;    // a tapped cell whose targets are shown
let busy = false;
let note = null;      // a reason or a hint, shown until the next tap or change
let menuOpen = false;
let dialog = null;    // an in-page confirmation: {text, ok, run}
let polling = 0;
let clockAt = 0;      // when the state's clock was read (performance.now())
let board = null;     // what drawBoard returned

async function api(name, body = {}) {
  window.nardyRequests = (window.nardyRequests || 0) + 1;  // read by the benchmark
  const response = await fetch(`api/${name}`, {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ initData: tg ? tg.initData : "", game, packed: true, ...body }),
  });
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (data.tree) data.tree = unpackTree(data.tree);  // sent packed: tree.js
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

// the turn tree as [{cells, bar, off, complete, steps}] (api() unpacked the wire form)
function treeOf(s) { return s.tree || null; }

function text(key) { return (state && state.texts && state.texts[key]) || key; }
function label(name) { return (state.labels && state.labels[name]) || text(name); }
function node() { return state.nodes[path.length ? path[path.length - 1].node : 0]; }
function haptic(kind, value) {
  const feedback = tg && tg.HapticFeedback;
  if (!feedback) return;
  if (kind === "select" && feedback.selectionChanged) feedback.selectionChanged();
  else if (kind === "notify" && feedback.notificationOccurred) feedback.notificationOccurred(value);
  else if (kind === "impact" && feedback.impactOccurred) feedback.impactOccurred(value);
}

function show(next) {
  const before = state;
  // the unsent steps stay while the game is the same (a /board repost moves only the board)
  const moved = !before || (next.play || next.version) !== (before.play || before.version);
  next.nodes = treeOf(next);
  state = next;
  clockAt = performance.now();
  if (moved) { path = []; source = null; note = null; dialog = null; menuOpen = false; }
  document.body.dataset.version = String(state.version);
  document.body.dataset.status = state.status;
  document.body.dataset.you = state.you === null ? "" : String(state.you);
  document.documentElement.lang = state.lang || "en";
  render();
  // the rematch (or the match's next game) began while the result was open: a player
  // goes on into it, as the chat's board does (the game as played is unchanged: not
  // `moved`)
  if (before && state.you !== null && state.result && state.result.next && before.result
      && !before.result.next) {
    follow(state.result.next);
  }
  if (!before || !moved) return;
  const mine = state.you !== null && state.to_act === state.you;
  const theirs = state.last && state.last.side !== state.you;
  const fresh = JSON.stringify(state.last) !== JSON.stringify(before.last);
  if (theirs && fresh && board) {  // the opponent's turn, arrived live: played again
    document.body.dataset.animated = String(board.animate(state.last.moves, state.last.hits));
  }
  if (mine && before.to_act !== state.you) {
    haptic("impact", "medium");
    document.body.dataset.cue = String(Number(document.body.dataset.cue || 0) + 1);
  }
  if (state.result && !before.result) {
    haptic("notify", state.result.winner === state.you ? "success" : "warning");
  }

}

function render() {
  const here = state.nodes ? node() : state;
  const sources = new Set(), targets = new Set();
  if (state.nodes && !busy) {
    for (const s of here.steps) {
      sources.add(s.from);
      if (source !== null && s.from === source) targets.add(s.to);
    }
  }
  const dice = state.dice.map(([value, isUsed]) => [value, isUsed]);
  for (const { step } of path) {  // the dice used locally: the first unused face of each
    const face = dice.find(([value, isUsed]) => value === step[2] && !isUsed);
    if (face) face[1] = true;
  }
  const mover = state.to_act === null ? state.viewer : state.to_act;
  board = drawBoard($("board"), {
    ...here, numbers: state.numbers, dice, cube: state.cube, viewer: state.viewer, mover,
    sources, targets, chosen: source, last: path.length ? null : state.last,
    // the last turn's dice beside the board until the next roll; a blocked roll's always
    lastDice: !state.nodes || (state.last && !state.last.moves.length), blocked: text("no_move"), height: boardHeight(),
  }, { tap, drag, press });
  players();
  status();
  controls();
  result();
  overlay();
}

// the board's height in its own units (360 wide): what the phone leaves for it under the
// bars, two lines of status and the buttons (measured: 204 px with the page's buttons, 144
// with Telegram's), so that the whole game fits on one screen with no third of it empty
function boardHeight() {
  const width = Math.min(window.innerWidth, 560);
  document.body.classList.toggle("narrow", width < 360);
  const below = useTelegramButtons() ? 150 : 212;
  return ((window.innerHeight - below) / width) * 360;
}

// ---- the player bars: name, colour, pips, borne off, score, cube, clock, whose turn ----

function players() {
  const bottom = state.viewer, top = 1 - bottom;
  for (const [id, side] of [["top", top], ["bottom", bottom]]) {
    const p = state.players[side], bar = $(id);
    bar.dataset.side = side;
    bar.classList.toggle("acting", state.to_act === side);
    bar.classList.toggle("mine", state.you === side);
    const parts = [span("disc", "", { side }), span("name", p.name)];
    if (state.you === side) parts.push(span("you", text("you")));
    const facts = [];
    if (p.score !== null) facts.push(span("score", `${p.score}/${state.match_length}`));
    if (state.cube && state.cube.owner === side) facts.push(span("cube-own", `${state.cube.value}`));
    if (state.clock && state.to_act === side) facts.push(span("clock", clockText()));
    if (state.last && state.last.side === side && state.last.dice.length && !state.result) {
      // the dice of this player's last turn, beside their name
      facts.push(span("roll", "", {}, state.last.dice.map((v) => span("face", String(v)))));
    }
    const narrow = document.body.classList.contains("narrow");
    facts.push(span("pips", narrow ? `${p.pips}` : `${p.pips} ${text("pips")}`));
    if (p.off) facts.push(span("off", `⤓${p.off}`));
    bar.replaceChildren(...parts, span("facts", "", {}, facts));
  }
}

function span(kind, content, data = {}, children = []) {
  const node = document.createElement("span");
  node.className = kind;
  if (content) node.textContent = content;
  for (const [key, value] of Object.entries(data)) {
    if (key === "title") node.title = value; else node.dataset[key] = value;
  }
  node.append(...children);
  return node;
}

function clockText() {
  const c = state.clock;
  if (c.paused) return "⏸";
  const left = Math.max(0, c.left - (performance.now() - clockAt) / 1000);
  const m = Math.floor(left / 60), h = Math.floor(m / 60), d = Math.floor(h / 24);
  const fill = (key, values) => text(key).replace(/\{(\w)\}/g, (_, k) => values[k]);
  if (d) return fill("clock_days", { d, h: h % 24 });
  if (h) return fill("clock_hours", { h, m: String(m % 60).padStart(2, "0") });
  return `${m}:${String(Math.floor(left % 60)).padStart(2, "0")}`;
}

setInterval(() => {
  const clock = document.querySelector(".acting .clock");
  if (clock && state && state.clock) clock.textContent = clockText();
}, 1000);

// ---- what happened and what to do ----

function status() {
  const lines = [];
  const mine = state.you !== null && state.to_act === state.you;
  if (note) lines.push(["note", note]);
  else if (state.you === null && state.status === "active") lines.push(["", text("watching")]);
  if (!note && state.prompt) lines.push([mine ? "cue" : "wait", state.prompt]);
  for (const line of state.notes || []) lines.push(["wait", line]);
  if (state.last && !state.result) lines.push(["last", state.last.text]);
  $("status").replaceChildren(...lines.map(([kind, line]) => {
    const p = document.createElement("p");
    p.className = kind;
    p.textContent = line;
    return p;
  }));
  document.body.classList.toggle("my-turn", mine);
}

// ---- the controls: one primary action (Telegram's MainButton, else in the page), the
// second beside it (SecondaryButton, else in the page), the rare ones in the ⋯ menu ----

function primaryActions() {
  if (busy || !state || state.result) return [];
  if (state.nodes) {
    return [{ name: "confirm", text: text("confirm"), enabled: node().complete, run: submit },
            { name: "undo", text: text("undo"), enabled: path.length > 0, run: undo }];
  }
  const a = state.actions, found = [];
  const add = (name, run) => { if (a.includes(name)) found.push({ name, text: label(name), enabled: true, run }); };
  add("roll", () => act("roll"));
  add("take", () => act("take"));
  add("accept", () => act("accept"));
  add("double", () => ask(label("double"), label("double"), () => act("double"), false));
  add("pass", () => ask(label("pass"), label("pass"), () => act("pass"), true));
  add("decline", () => act("decline"));
  add("beaver", () => act("beaver"));
  return found;
}

let telegramRun = { main: null, second: null };

function telegramButton(kind, spec) {
  const button = kind === "main" ? tg.MainButton : tg.SecondaryButton;
  telegramRun[kind] = spec && spec.enabled ? spec.run : null;
  if (!spec) { button.hide(); return; }
  const params = { text: spec.text, is_visible: true, is_active: spec.enabled };
  if (kind === "second") params.position = "left";
  if (button.setParams) button.setParams(params); else { button.setText(spec.text); button.show(); }
}

function useTelegramButtons() { return Boolean(tg && tg.MainButton && at("6.0")); }

function controls() {
  const actions = primaryActions();
  const list = [];
  let shown = actions;
  if (useTelegramButtons() && busy) {  // sent: the button spins until the answer
    if (tg.MainButton.showProgress) tg.MainButton.showProgress(false);
    telegramRun.main = telegramRun.second = null;
    shown = [];
  } else if (useTelegramButtons()) {
    if (tg.MainButton.hideProgress) tg.MainButton.hideProgress();
    telegramButton("main", actions[0]);
    if (tg.SecondaryButton && at("7.10")) {
      telegramButton("second", actions[1]);
      shown = actions.slice(2);
    } else shown = actions.slice(1);
  }
  shown.forEach((spec, index) => {
    const b = document.createElement("button");
    b.textContent = spec.text;
    b.dataset.action = spec.name;
    b.disabled = !spec.enabled || busy;
    b.className = index === 0 && !useTelegramButtons() ? "primary" : "secondary";
    b.addEventListener("click", spec.run);
    list.push(b);
  });
  // the rarely used: hint, resign (its cost named), the chat's board
  const rare = [];
  if (state.actions.includes("hint")) rare.push({ name: "hint", text: label("hint"), run: hint });
  for (const r of state.resign || []) {
    rare.push({ name: `resign-${r.level}`, text: r.label, danger: true,
                run: () => ask(text("resign_title"), r.ask, () => act("resign", { level: r.level }),
                               true, text("resign_yes")) });
  }
  if (state.board_link) rare.push({ name: "to-board", text: text("to_board"), run: openBoard });
  const more = document.createElement("button");
  more.textContent = "⋯";
  more.className = "more";
  more.dataset.action = "menu";
  more.title = text("menu");
  more.hidden = !rare.length;
  more.addEventListener("click", () => { menuOpen = !menuOpen; overlay(); });
  $("controls").replaceChildren(...list);
  $("more-slot").replaceChildren(more);
  $("menu").replaceChildren(...rare.map((spec) => {
    const b = document.createElement("button");
    b.textContent = spec.text;
    b.dataset.action = spec.name;
    if (spec.danger) b.className = "danger";
    b.addEventListener("click", () => { menuOpen = false; overlay(); spec.run(); });
    return b;
  }), (() => {
    const b = document.createElement("button");
    b.textContent = text("cancel");
    b.dataset.action = "menu-close";
    b.addEventListener("click", () => { menuOpen = false; overlay(); });
    return b;
  })());
}

if (tg && tg.MainButton && tg.MainButton.onClick) {
  tg.MainButton.onClick(() => telegramRun.main && telegramRun.main());
}
if (tg && tg.SecondaryButton && tg.SecondaryButton.onClick) {
  tg.SecondaryButton.onClick(() => telegramRun.second && telegramRun.second());
}

// a confirmation: Telegram's popup where there is one, else in the page
function ask(title, message, run, destructive = false, yes = null) {
  const ok = yes || title;
  if (tg && tg.showPopup && at("6.2")) {
    tg.showPopup({ title: title.slice(0, 64), message: message.slice(0, 256), buttons: [
      { id: "ok", type: destructive ? "destructive" : "default", text: ok.slice(0, 64) },
      { type: "cancel" }] }, (id) => { if (id === "ok") run(); });
    return;
  }
  dialog = { title, message, ok, run, destructive };
  overlay();
}

function overlay() {
  $("menu").hidden = !menuOpen;
  const box = $("dialog");
  box.hidden = !dialog;
  if (!dialog) return;
  const title = document.createElement("h2");
  title.textContent = dialog.title;
  const message = document.createElement("p");
  message.textContent = dialog.message !== dialog.title ? dialog.message : "";
  const yes = document.createElement("button");
  yes.textContent = dialog.ok;
  yes.dataset.action = "popup-ok";
  yes.className = dialog.destructive ? "danger" : "primary";
  const no = document.createElement("button");
  no.textContent = text("cancel");
  no.dataset.action = "popup-cancel";
  const run = dialog.run;
  yes.addEventListener("click", () => { dialog = null; overlay(); run(); });
  no.addEventListener("click", () => { dialog = null; overlay(); });
  const row = document.createElement("div");
  row.className = "row";
  row.append(no, yes);
  box.replaceChildren(title, message, row);
}

// ---- moving: tap, or drag; an illegal one says why ----

function press(cell) {
  if (!state.nodes || busy) return [];
  return node().steps.filter((s) => s.from === cell).map((s) => s.to);
}

function play(chosen) {
  path.push({ step: chosen.step, node: chosen.next });
  source = null;
  note = null;
  haptic("select");
  render();
}

function tap(cell) {
  if (!state.nodes || busy) return;
  const steps = node().steps;
  if (source !== null) {
    const chosen = steps.find((s) => s.from === source && s.to === cell);
    if (chosen) { play(chosen); return; }
  }
  if (steps.some((s) => s.from === cell)) {
    note = null;
    source = source === cell ? null : cell;
  } else if (source !== null) {
    refuse(source, cell);
    source = null;
  } else if (own(cell)) refuse(cell, null);
  else source = null;
  render();
}

// a checker dragged from one cell to another: the step, if the server's tree has it here;
// else the checker goes back and the reason is said
function drag(from, to) {
  if (!state.nodes || busy) return;
  if (from === null || to === null) { render(); return; }
  const chosen = node().steps.find((s) => s.from === from && s.to === to);
  if (chosen) { play(chosen); return; }
  refuse(from, to);
  source = null;
  render();
}

function own(cell) {
  const here = node(), me = state.to_act;
  if (cell === "bar") return here.bar[me] > 0;
  if (cell === "off") return false;
  const [side, count] = here.cells[cell - 1];
  return side === me && count > 0;
}

// Why a step from `from` to `to` is not in the tree, in words (the tree is the rule; these
// only name the likeliest reason for the player).
function reason(from, to) {
  const here = node(), me = state.to_act;
  const steps = here.steps;
  if (!steps.length) return text("more_steps");
  if (here.bar[me] > 0 && from !== "bar") return text("bar_first");
  if (!own(from)) return text("not_yours");
  if (!steps.some((s) => s.from === from)) {
    if (from === 24 && state.variant === "long" && path.some((p) => p.step[0] === 24)) {
      return text("head");
    }
    return text("cannot_move");
  }
  if (to === "off") {
    const outside = here.cells.some(([side, count], i) => side === me && count && i >= 6);
    return outside || here.bar[me] ? text("home_first") : text("no_die");
  }
  if (to === null || to === "bar") return text("no_die");
  const [side, count] = here.cells[to - 1];
  const blocking = state.variant === "long" ? 1 : 2;
  if (side !== me && side >= 0 && count >= blocking) return text("blocked");
  const distance = (from === "bar" ? 25 : from) - to;
  const dice = state.dice.map(([v]) => v);
  if (distance <= 0 || !dice.some((v) => v === distance)) {
    const sums = dice.length === 2 ? [dice[0] + dice[1]] : [];
    if (!sums.includes(distance)) return text("no_die");
  }
  return text("rules");
}

function refuse(from, to) {
  note = reason(from, to);
  haptic("notify", "error");
  document.body.dataset.refused = String(Number(document.body.dataset.refused || 0) + 1);
}

function undo() { path.pop(); source = null; note = null; render(); }

async function run(work) {
  busy = true; $("error").textContent = ""; render();
  try { await work(); } catch (error) { $("error").textContent = error.message; }
  busy = false; render();
}

function submit() {
  const steps = path.map((p) => p.step);
  return run(async () => show(await api("turn", { version: state.version, play: state.play, steps })));
}

function act(action, extra = {}) {
  return run(async () => show(await api("action", { version: state.version, play: state.play, action, ...extra })));
}

function hint() {
  return run(async () => { note = (await api("hint")).hint; });
}

function follow(next) { location.search = `?game=${encodeURIComponent(next)}`; }

function openBoard() {
  if (state.board_link && tg && tg.openTelegramLink) tg.openTelegramLink(state.board_link);
  else if (tg && tg.close) tg.close();
}

// ---- the result ----

function result() {
  const r = state.result, box = $("result");
  box.hidden = !r;
  if (!r) return;
  // who won, as the server words it for this viewer (webstate.py _headline); then how
  const title = document.createElement("h2");
  title.textContent = r.title;
  title.className = state.you !== null && r.winner === state.you ? "won" : "lost";
  const offer = r.offer;
  const said = offer ? [offer.line] : (state.notes || []);
  const lines = [r.how, r.match, r.booked, ...said].filter(Boolean).map((line) => {
    const p = document.createElement("p");
    p.textContent = line;
    return p;
  });
  if (r.waits_start) lines.push(Object.assign(document.createElement("p"),
                                              { textContent: text("start_in_chat") }));
  const row = document.createElement("div");
  row.className = "row";
  const button = (name, caption, run, primary = false) => {
    const b = document.createElement("button");
    b.textContent = caption;
    b.dataset.action = name;
    if (primary) b.className = "primary";
    b.disabled = busy;
    b.addEventListener("click", run);
    return b;
  };
  const link = (name, caption) => button(name, caption, openBoard);
  // the offer of the next game is made and answered here, as on the chat's board
  // (the same rule on the server); New game (a lobby is the group's) and Analysis open
  // the game's board in the chat
  if (r.next) {  // the next game has begun (a rematch accepted): open it here
    row.append(button("next-game", text("next_game"), () => follow(r.next), true));
  } else if (r.waits_start) {  // against the computer: its ▶ Start is a tap in the chat
    row.append(link("to-board", text("to_board")));
  } else if (offer && offer.mine) {  // waiting for the opponent: the offer may be taken back
    row.append(button("withdraw", text("withdraw"), () => act("withdraw")));
  } else if (offer) {  // the opponent offers: accept here, or in the chat where its tap
    // is the new match's dice entropy (the line says so)
    const accept = offer.accept === "app"
      ? button("accept", text("accept"), () => act("accept"), true)
      : link("accept-in-chat", text("accept_in_chat"));
    accept.className = "primary";
    row.append(accept, button("decline", text("decline"), () => act("decline")));
  } else if (r.rematch) {
    row.append(button("rematch", r.rematch_label || text("rematch"), () => act("rematch"), true));
  }
  row.append(link("new-game", text("new_game")));
  if (r.winner !== null) row.append(button("analysis", "📊 " + text("analysis"), analysis));
  const parts = [title, ...lines, row];
  if (r.dice) {
    const details = document.createElement("details");
    details.id = "verify";
    const summary = document.createElement("summary");
    summary.textContent = "🎲 " + text("verify");
    const pre = document.createElement("p");
    pre.className = "seed";
    pre.textContent = r.dice;
    details.append(summary, pre);
    parts.push(details);
  }
  box.replaceChildren(...parts);
}

// ---- the analysis: each player's figures, computed by the bot as 📊 in the chat ----

let analysed = null;   // null: closed; {loading} | {error} | {data} while its sheet is open

async function analysis() {
  analysed = { loading: true };
  drawAnalysis();
  try {
    analysed = { data: (await api("analysis")).analysis };
  } catch (error) {
    analysed = { error: error.message };
  }
  drawAnalysis();
}

function drawAnalysis() {
  const box = $("analysis");
  box.hidden = !analysed;
  if (!analysed) return;
  const add = (tag, content, kind) => {
    const node = document.createElement(tag);
    node.textContent = content;
    if (kind) node.className = kind;
    return node;
  };
  const parts = [add("h2", "📊 " + text("analysis"))];
  if (analysed.loading) parts.push(add("p", text("analysing")));
  if (analysed.error) parts.push(add("p", analysed.error, "note"));
  if (analysed.data) {
    for (const p of analysed.data.players) {
      const who = add("h3", "");
      who.dataset.side = p.side;
      who.append(span("disc", "", { side: p.side }), add("span", p.name));
      const worst = document.createElement("ol");
      worst.append(...p.worst.map((line) => add("li", line)));
      parts.push(who, ...p.lines.map((line) => add("p", line)), worst);
    }
    parts.push(add("p", analysed.data.footnote, "footnote"));
  }
  const close = add("button", text("close"));
  close.dataset.action = "analysis-close";
  close.addEventListener("click", () => { analysed = null; drawAnalysis(); });
  box.replaceChildren(...parts, close);
}

// ---- theme, live updates, start ----

function theme() {
  if (!tg) return;
  const params = tg.themeParams || {};
  for (const [key, value] of Object.entries(params)) {
    document.documentElement.style.setProperty(`--tg-theme-${key.replace(/_/g, "-")}`, value);
  }
  document.body.dataset.scheme = tg.colorScheme || "light";
}

// live: a long poll that answers when the stored version changes (any worker's save)
async function poll() {
  const mine = ++polling;
  while (mine === polling) {
    if (busy) {  // a turn is on its way: its answer brings the new state
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      const next = await api("state", { after: state.version });
      if (next.version !== state.version && !busy) show(next);
    } catch (error) {
      $("error").textContent = error.message;
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

async function start() {
  if (tg) {
    tg.ready && tg.ready();
    tg.expand && tg.expand();
    // a checker dragged down must not close the app
    if (at("7.7") && tg.disableVerticalSwipes) tg.disableVerticalSwipes();
    theme();
    tg.onEvent && tg.onEvent("themeChanged", () => { theme(); if (state) render(); });
  }
  try {
    show(await api("state"));
    poll();
  } catch (error) {
    $("error").textContent = error.message;
  }
}

start();
window.addEventListener("resize", () => { if (state) render(); });
