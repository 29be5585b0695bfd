// The Mini App: draws the game the server sends, lets the mover walk the server's tree of
// legal steps locally, by tapping or by dragging checkers (with undo), and sends the whole
// turn once.  It decides nothing: every request carries Telegram's initData, and the
// server checks each turn with the engine.
import { drawBoard } from "./board.js";
import { unpackTree } from "./tree.js";

const tg = window.Telegram && window.Telegram.WebApp;
const query = new URLSearchParams(location.search);
const game = query.get("game") || (tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param) || "";
const $ = (id) => document.getElementById(id);

let state = null;     // the last state from the server
let path = [];        // the steps played locally: [{step, node}]
let source = null;    // a tapped cell whose targets are shown
let sure = null;      // an action waiting for its second tap
let busy = false;
let note = null;      // a hint shown until the next tap or change
let polling = 0;

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

function text(key) { return (state && state.texts && state.texts[key]) || key; }
function node() { return state.tree[path.length ? path[path.length - 1].node : 0]; }

function show(next) {
  // the unsent steps stay while the game is the same (a /board repost moves only the board)
  const moved = !state || (next.play || next.version) !== (state.play || state.version);
  state = next;
  if (moved) { path = []; source = null; sure = null; note = null; }
  document.body.dataset.version = String(state.version);
  document.body.dataset.status = state.status;
  render();
}

function render() {
  const here = state.tree ? node() : state;
  const sources = new Set(), targets = new Set();
  if (state.tree) {
    for (const s of here.steps) {
      sources.add(s.from);
      if (source !== null && s.from === source) targets.add(s.to);
    }
  }
  const used = state.tree ? path.length : 0;
  const dice = state.dice.map(([value, isUsed]) => [value, isUsed]);
  // the dice used locally: the first unused face of each step's die
  for (const { step } of path) {
    const face = dice.find(([value, isUsed]) => value === step[2] && !isUsed);
    if (face) face[1] = true;
  }
  drawBoard($("board"), { ...here, numbers: state.numbers, dice, cube: state.cube,
                          viewer: state.viewer, mover: state.to_act, sources, targets },
            tap, drag);
  const marks = ["○", "●"];
  $("names").replaceChildren(...[0, 1].map((side) => {
    const span = document.createElement("span");
    span.textContent = `${marks[side]} ${state.names[side]}` +
      (state.score ? ` · ${state.score[side]}/${state.match_length}` : "") +
      (state.to_act === side ? " ◀" : "");
    span.dataset.side = side;
    return span;
  }));
  $("caption").textContent = state.caption;
  $("message").textContent = note || (state.you === null ? text("watching")
    : state.tree ? text("your_move") : "");
  controls(used);
}

function button(label, name, action, enabled = true) {
  const b = document.createElement("button");
  b.textContent = label;
  b.dataset.action = name;
  b.disabled = !enabled || busy;
  if (sure === name) b.classList.add("sure");
  b.addEventListener("click", action);
  return b;
}

function confirmFirst(name, run) {
  return () => {
    if (sure !== name) { sure = name; render(); $("message").textContent = text("sure"); return; }
    sure = null;
    run();
  };
}

function controls(used) {
  const list = [];
  if (state.tree) {
    list.push(button(text("undo"), "undo", undo, used > 0));
    list.push(button(text("confirm"), "confirm", submit, node().complete));
  }
  for (const name of state.actions) {
    if (name === "hint") list.push(button("💡 " + text("hint"), name, hint));
    else if (name === "resign") {
      state.resign.forEach((label, index) => {
        const level = index + 1;
        list.push(button(label, `resign-${level}`,
          confirmFirst(`resign-${level}`, () => act("resign", { level }))));
      });
    } else if (name === "pass" || name === "double") {
      list.push(button(text(name), name, confirmFirst(name, () => act(name))));
    } else list.push(button(text(name), name, () => act(name)));
  }
  $("controls").replaceChildren(...list);
}

function tap(cell) {
  if (!state.tree || busy) return;
  note = null;
  const steps = node().steps;
  if (source !== null) {
    const chosen = steps.find((s) => s.from === source && s.to === cell);
    if (chosen) {
      path.push({ step: chosen.step, node: chosen.next });
      source = null;
      if (tg && tg.HapticFeedback) tg.HapticFeedback.selectionChanged();
      render();
      return;
    }
  }
  source = steps.some((s) => s.from === cell) && source !== cell ? cell : null;
  render();
}

// a checker dragged from one cell to another: the step, if the server's tree has it here;
// else the checker goes back (and its targets are shown, if it may move at all)
function drag(from, to) {
  if (!state.tree || busy) return;
  note = null;
  const steps = node().steps;
  const chosen = steps.find((s) => s.from === from && s.to === to);
  if (chosen) {
    path.push({ step: chosen.step, node: chosen.next });
    source = null;
    if (tg && tg.HapticFeedback) tg.HapticFeedback.selectionChanged();
  } else {
    source = steps.some((s) => s.from === from) ? from : null;
  }
  render();
}

function undo() { path.pop(); source = null; render(); }

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
  if (tg) { tg.ready(); tg.expand && tg.expand(); }
  try {
    show(await api("state"));
    poll();
  } catch (error) {
    $("error").textContent = error.message;
  }
}

start();
