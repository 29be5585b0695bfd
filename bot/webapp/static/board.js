// The board as an SVG, laid out as the bot's picture (bot/present/render/view.py cell_of):
// the viewer's points 13..24 along the top from left to right, 12..1 along the bottom,
// the bar in the middle, the borne-off tray on the right.  Pure drawing: it decides nothing.
// Layers, bottom to top: the wood, the points, the highlights (lit points, landing rings,
// where the last turn's checkers came from), the candidates' touch areas (invisible), the
// checkers, rings *around* checkers (the last turn's), the hit areas (transparent).  So a
// highlight never recolours a checker.
const NS = "http://www.w3.org/2000/svg";
export const W = 360;
let H = 400;                                // set by each drawing (the phone's height)
const NUM = 14;                             // the bands above and below the field (numbers)
const TRAY = 26, BAR = 24, GAP = 4;
const FIELD = W - 2 * 4 - TRAY - GAP;       // from x=4 to the tray
const CW = (FIELD - BAR) / 12;              // one point's width
const R = CW / 2 - 0.8;                     // a checker's radius
let HALF, DEPTH, STACK;                      // one half of the field, a triangle, a stack
function resize(height) {
  H = Math.round(Math.min(640, Math.max(330, height || 400)));
  HALF = (H - 2 * NUM) / 2;
  DEPTH = HALF - 26;
  STACK = HALF - 14;
}
resize(400);
const TRAY_X = W - 4 - TRAY;
const BAR_X = 4 + 6 * CW;                   // the bar's left edge
const SLICE = 7;                            // a borne-off checker seen edge-on
export const TOUCH = 44;                    // px: the least a finger's target may be (HIG)

function el(name, attrs, parent) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

export function cellOf(label) {            // [row, column] as view.py's cell_of
  return label > 12 ? [0, label - 13] : [1, 12 - label];
}

function columnX(column) {
  return 4 + column * CW + (column >= 6 ? BAR : 0);
}

// where the i-th checker (from the edge) of a stack of n stands on a cell, for `side`
// (the bar and the tray keep each side on its own half); [x, y]
function spot(cell, side, i, n, top) {
  if (cell === "bar") {
    const x = BAR_X + BAR / 2, away = 14 + R + i * (2 * R + 1);
    return [x, side === top ? H / 2 - away : H / 2 + away];
  }
  if (cell === "off") {
    const x = TRAY_X + TRAY / 2, from = NUM + 4 + i * (SLICE + 1) + SLICE / 2;
    return [x, side === top ? from : H - from];
  }
  const [row, column] = cellOf(cell);
  const step = n > 1 ? Math.min(2 * R, (STACK - 2 * R) / (n - 1)) : 2 * R;
  const x = columnX(column) + CW / 2, along = R + 1 + i * step;
  return [x, row === 0 ? NUM + along : H - NUM - along];
}

// the checkers on a cell: [side, count] for a point, by side for the bar and the tray
function onCell(view, cell) {
  if (cell === "bar" || cell === "off") {
    const bottom = view.viewer, top = 1 - bottom;
    return [[top, view[cell][top]], [bottom, view[cell][bottom]]];
  }
  const [side, count] = view.cells[cell - 1];
  return count ? [[side, count]] : [];
}

function die(parent, x, y, value, used, size = 26) {
  const g = el("g", { class: "dice" }, parent);
  el("rect", { x, y, width: size, height: size, rx: 5, class: used ? "die used" : "die",
               "data-die": value }, g);
  const k = size / 22;
  const spots = { 1: [[11, 11]], 2: [[6, 6], [16, 16]], 3: [[6, 6], [11, 11], [16, 16]],
    4: [[6, 6], [16, 6], [6, 16], [16, 16]], 5: [[6, 6], [16, 6], [11, 11], [6, 16], [16, 16]],
    6: [[6, 5], [16, 5], [6, 11], [16, 11], [6, 17], [16, 17]] }[value] || [];
  for (const [dx, dy] of spots) {
    el("circle", { cx: x + dx * k, cy: y + dy * k, r: 2.3 * k, class: "pip" }, g);
  }
}

function triangle(column, row) {
  const x = columnX(column), cx = x + CW / 2;
  const base = row === 0 ? NUM : H - NUM, tip = row === 0 ? NUM + DEPTH : H - NUM - DEPTH;
  return `${x},${base} ${x + CW},${base} ${cx},${tip}`;
}

// Light a cell under its checkers: "source" (may move), "chosen" (picked up), "target"
// (may go there: the point tinted and a ring where the checker would land).
function light(layer, view, cell, kind, mover) {
  if (cell === "bar" || cell === "off") {
    const x = cell === "bar" ? BAR_X : TRAY_X, width = cell === "bar" ? BAR : TRAY;
    el("rect", { x, y: NUM, width, height: H - 2 * NUM, class: `lit-${kind}`,
                 "data-lit": `${kind}:${cell}` }, layer);
    return;
  }
  const [row, column] = cellOf(cell);
  el("polygon", { points: triangle(column, row), class: `lit-${kind}`,
                  "data-lit": `${kind}:${cell}` }, layer);
  if (kind === "target") {
    const [side, count] = view.cells[cell - 1];
    const n = side === mover ? count : 0;   // a blot hit is replaced
    const [x, y] = spot(cell, mover, n, n + 1, 1 - view.viewer);
    // as wide as the point's touch area, a finger's width where no other candidate is beside
    const [left, right] = (current && current.reach[cell]) || [x - R, x + R];
    const r = Math.max(R - 1, Math.min(TOUCH / 2 / scaleNow(), x - left, right - x) - 0.5);
    el("circle", { cx: x, cy: y, r, class: "landing", "data-landing": cell }, layer);
  }
}

// view: {cells, bar, off, numbers, dice, cube, viewer, mover, sources: Set, targets: Set,
//        chosen, last: {side, moves, hits, dice} | null, lastDice: bool, blocked: text}
// handlers: {tap(cell), drag(from, to), press(cell) -> targets of a checker picked up}
export function drawBoard(container, view, handlers) {
  resize(view.height);
  scale = (container.clientWidth || W) / W;
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, id: "board-svg" });
  const bottom = view.viewer, top = 1 - bottom;
  el("rect", { x: 0, y: 0, width: W, height: H, class: "frame" }, svg);
  el("rect", { x: 4, y: NUM, width: FIELD, height: H - 2 * NUM, class: "field" }, svg);
  el("rect", { x: BAR_X, y: NUM, width: BAR, height: H - 2 * NUM, class: "bar" }, svg);
  el("rect", { x: TRAY_X, y: NUM, width: TRAY, height: H - 2 * NUM, class: "tray" }, svg);
  el("line", { x1: TRAY_X, x2: TRAY_X + TRAY, y1: H / 2, y2: H / 2, class: "tray-line" }, svg);
  for (let label = 1; label <= 24; label++) {
    const [row, column] = cellOf(label);
    el("polygon", { points: triangle(column, row),
                    class: (column + row) % 2 ? "point-dark" : "point-light" }, svg);
    const number = el("text", { x: columnX(column) + CW / 2, y: row === 0 ? NUM - 3.5 : H - 3,
                                class: "numbers" }, svg);
    number.textContent = String(view.numbers[label - 1]);
  }
  // highlights: under the checkers
  const under = el("g", { id: "under" }, svg);
  const reachLayer = el("g", { id: "reach" }, svg);
  const candidates = new Set([...view.sources, ...view.targets]);
  current = { svg, view, handlers, topOf: {}, under, top, reachLayer, reach: {} };
  current.reach = reach(reachLayer, candidates);
  for (const cell of view.sources) {
    if (cell !== view.chosen) light(under, view, cell, "source", view.mover);
  }
  if (view.chosen !== null && view.chosen !== undefined) {
    light(under, view, view.chosen, "chosen", view.mover);
  }
  for (const cell of view.targets) light(under, view, cell, "target", view.mover);
  const last = view.last;
  const net = last ? netMoves(last.moves) : [];
  for (const [from] of net) {     // where the last turn's checkers came from: an empty ring
    const n = onCell(view, from).filter(([s]) => s === last.side).map(([, c]) => c)[0] || 0;
    const [x, y] = spot(from, last.side, n, Math.max(n, 1), top);  // beyond its stack
    if (from !== "off") {
      el("circle", { cx: x, cy: y, r: R - 1.5, class: "last-from", "data-last-from": from },
         under);
    }
  }
  // checkers
  const pieces = el("g", { id: "checkers" }, svg);
  const topOf = current.topOf;    // "cell:side" -> the outermost checker's element
  for (let label = 1; label <= 24; label++) {
    for (const [side, count] of onCell(view, label)) {
      for (let i = 0; i < count; i++) {
        const [x, y] = spot(label, side, i, count, top);
        topOf[`${label}:${side}`] = el("circle", { cx: x, cy: y, r: R,
          class: `checker checker-${side}`, "data-at": label }, pieces);
      }
      if (count > 5) {
        const [x, y] = spot(label, side, count - 1, count, top);
        el("text", { x, y: y + 4, class: `count count-${side}` }, pieces).textContent = count;
      }
    }
  }
  for (const [side, count] of onCell(view, "bar")) {
    const shown = Math.min(count, 4);
    for (let i = 0; i < shown; i++) {
      const [x, y] = spot("bar", side, i, shown, top);
      topOf[`bar:${side}`] = el("circle", { cx: x, cy: y, r: R, class: `checker checker-${side}`,
                                           "data-at": "bar" }, pieces);
    }
    if (count > 1) {
      const [x, y] = spot("bar", side, shown - 1, shown, top);
      el("text", { x, y: y + 4, class: `count count-${side}` }, pieces).textContent = count;
    }
  }
  for (const [side, count] of onCell(view, "off")) {
    for (let i = 0; i < count; i++) {
      const [x, y] = spot("off", side, i, count, top);
      topOf[`off:${side}`] = el("rect", { x: x - TRAY / 2 + 3, y: y - SLICE / 2, width: TRAY - 6,
        height: SLICE, rx: 2, class: `checker checker-${side}`, "data-at": "off" }, pieces);
    }
    if (count) {
      const [x, y] = spot("off", side, count, count + 1, top);
      el("text", { x, y: y + 4, class: "tray-text", "data-off": side }, pieces)
        .textContent = String(count);
    }
  }
  // the cube: on the bar, centred or at its owner's edge; the bar's checkers keep clear
  if (view.cube) {
    const y = view.cube.owner === null ? H / 2 - 12
      : view.cube.owner === top ? NUM + 2 : H - NUM - 26;
    el("rect", { x: BAR_X + 1, y, width: BAR - 2, height: 24, rx: 3, class: "cube" }, svg);
    el("text", { x: BAR_X + BAR / 2, y: y + 16.5, class: "cube-text", id: "cube" }, svg)
      .textContent = String(view.cube.value);
  }
  // the dice: the roll being played on the right half; the last turn's, faded, on the
  // left half (with "no legal move" when it could not be played)
  const dice = view.dice || [];
  const size = 28;
  if (dice.length) {
    const span = dice.length * (size + 5) - 5, x0 = columnX(9) - span / 2;
    dice.forEach(([value, used], i) => die(svg, x0 + i * (size + 5), H / 2 - size / 2, value,
                                          used, size));
  }
  if (last && last.dice.length && view.lastDice) {
    const g = el("g", { class: "last-dice", id: "last-dice" }, svg);
    const x0 = columnX(3) - size - 2;
    last.dice.forEach((value, i) => die(g, x0 + i * (size + 4), H / 2 - size / 2, value,
                                        false, size));
    if (!last.moves.length) {
      el("text", { x: columnX(3), y: H / 2 + size / 2 + 14, class: "blocked-text",
                   id: "blocked" }, g).textContent = view.blocked;
    }
  }
  // rings around the last turn's checkers: where they went, and the checkers hit
  for (const [, to] of net) {
    const piece = topOf[`${to}:${last.side}`];
    if (piece) ring(svg, piece, "last-to", to);
  }
  if (last && last.hits.length) {
    const piece = topOf[`bar:${1 - last.side}`];
    if (piece) ring(svg, piece, "last-hit", "bar");
    for (const cell of last.hits) {  // where: a red dot beside the point's number
      if (cell === "bar" || cell === "off") continue;
      const [row, column] = cellOf(cell);
      el("circle", { cx: columnX(column) + 3.5, cy: row === 0 ? NUM / 2 : H - NUM / 2, r: 2.6,
                     class: "hit-mark", "data-hit": cell }, svg);
    }
  }
  // hit areas: one per point, the bar and the tray (on top, transparent)
  const hits = el("g", { id: "hits" }, svg);
  for (let label = 1; label <= 24; label++) {
    const [row, column] = cellOf(label);
    el("rect", { x: columnX(column), y: row === 0 ? 0 : H / 2, width: CW, height: H / 2,
                 class: "hit", "data-cell": label }, hits);
  }
  el("rect", { x: BAR_X, y: 0, width: BAR, height: H, class: "hit", "data-cell": "bar" }, hits);
  el("rect", { x: TRAY_X - GAP, y: 0, width: TRAY + GAP + 4, height: H, class: "hit",
               "data-cell": "off" }, hits);
  listen(svg);
  container.replaceChildren(svg);
  return { animate: (moves, hitsOf) => animate(moves, hitsOf) };
}

function ring(svg, piece, kind, cell) {
  const x = Number(piece.getAttribute("cx") || Number(piece.getAttribute("x")) + TRAY / 2 - 3);
  const y = Number(piece.getAttribute("cy") || Number(piece.getAttribute("y")) + SLICE / 2);
  if (piece.tagName === "rect") {
    el("rect", { x: x - TRAY / 2 + 1.5, y: y - SLICE / 2 - 1.5, width: TRAY - 3,
                 height: SLICE + 3, rx: 3, class: kind, "data-ring": cell }, svg);
  } else el("circle", { cx: x, cy: y, r: R + 1.6, class: kind, "data-ring": cell }, svg);
}

// A turn's steps as one path per checker: [origin, final cell] (a checker moved twice
// is one move), in the order played.
export function netMoves(moves) {
  const paths = [];
  for (const [from, to] of moves) {
    const path = paths.find((p) => p[1] === from && from !== "off");
    if (path) path[1] = to; else paths.push([from, to]);
  }
  return paths;
}

// The last turn played again: each moved checker slides from where it came from,
// one after another; a checker hit slides to the bar.  Returns how many slid.
function animate(moves, hitCells) {
  if (!current || !Element.prototype.animate) return 0;
  const { view, topOf, top } = current;
  const side = view.last.side;
  let slid = 0;
  netMoves(moves).forEach(([from, to], k) => {
    const piece = topOf[`${to}:${side}`];
    if (!piece || piece.tagName !== "circle") return;
    const n = onCell(view, from).filter(([s]) => s === side).map(([, c]) => c)[0] || 0;
    const [x0, y0] = spot(from, side, n, Math.max(n, 1), top);
    const dx = x0 - Number(piece.getAttribute("cx")), dy = y0 - Number(piece.getAttribute("cy"));
    piece.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
                  { duration: 420, delay: k * 320, easing: "ease-in-out", fill: "backwards" });
    slid += 1;
  });
  const barred = topOf[`bar:${1 - side}`];
  if (barred && hitCells.length) {
    const cell = hitCells[hitCells.length - 1];
    if (cell !== "bar" && cell !== "off") {
      const [x0, y0] = spot(cell, 1 - side, 0, 1, top);
      barred.animate([{ transform: `translate(${x0 - Number(barred.getAttribute("cx"))}px, ${
        y0 - Number(barred.getAttribute("cy"))}px)` }, { transform: "none" }],
      { duration: 420, delay: slid * 320, easing: "ease-in-out", fill: "backwards" });
    }
  }
  return slid;
}

// ---- touch: every target a finger's width ----
// Twelve points and the bar share a phone's width: a point is ~27 px wide at 390 px,
// ~22 px at 320, less than the 44 px a finger needs.  So a touch goes to the nearest
// *candidate* (a point whose checker may move; once one is picked up, its lit targets),
// within 22 px of the candidate's centre (or its own column, if wider): the candidate's
// touch area is its column widened to 44 px, split half-way where it would reach into
// another candidate's, along the whole height of its half of the board (the bar and the
// tray: both halves).  These areas are drawn (invisible, `#reach [data-reach]`) and a
// touch is resolved by them (reachAt), so what a test measures is what a finger gets.
// A touch in no candidate's area is the cell under it (an illegal tap says why).
let scale = 1;                                 // screen px per board unit, at the last draw

function scaleNow() {
  const box = current && current.svg.isConnected && current.svg.getBoundingClientRect();
  return box && box.width ? box.width / W : scale;
}

// [centre, half-width of its own area] of a cell, in board units
function column(cell) {
  if (cell === "bar") return [BAR_X + BAR / 2, BAR / 2];
  if (cell === "off") return [TRAY_X + TRAY / 2, TRAY / 2 + GAP];
  return [columnX(cellOf(cell)[1]) + CW / 2, CW / 2];
}

// Draw the candidates' touch areas; returns each cell's narrowest [left, right].
function reach(layer, candidates) {
  layer.replaceChildren();
  const half = TOUCH / 2 / scale, found = {};
  for (const row of [0, 1]) {
    const members = [...candidates].filter((c) => c === "bar" || c === "off"
      || cellOf(c)[0] === row).map((c) => [c, ...column(c)]).sort((a, b) => a[1] - b[1]);
    members.forEach(([cell, x, own], i) => {
      let left = Math.max(0, x - Math.max(half, own)), right = Math.min(W, x + Math.max(half, own));
      if (i > 0) left = Math.max(left, (members[i - 1][1] + x) / 2);
      if (i < members.length - 1) right = Math.min(right, (x + members[i + 1][1]) / 2);
      el("rect", { x: left, y: row === 0 ? 0 : H / 2, width: right - left, height: H / 2,
                   class: "reach", "data-reach": cell }, layer);
      const was = found[cell];
      found[cell] = was ? [Math.max(was[0], left), Math.min(was[1], right)] : [left, right];
    });
  }
  return found;
}

// the candidate whose touch area holds the point (screen coordinates), else null
function reachAt(x, y) {
  if (!current) return null;
  for (const area of current.reachLayer.children) {
    const box = area.getBoundingClientRect();
    if (x >= box.left && x <= box.right && y >= box.top && y <= box.bottom) {
      const value = area.dataset.reach;
      return value === "bar" || value === "off" ? value : Number(value);
    }
  }
  return null;
}

// Taps and drags, by pointer events (a mouse, a finger, a pen alike): a press and a
// release within a few px is a tap on the cell pressed (tap(cell)); a press on a checker
// that may move lights its targets at once (press(cell) gives them) and the checker
// follows the finger; released on another cell it is a drag (drag(from, to)).  Both
// resolve the touch by the candidates' areas (reachAt).  The app decides what either
// does with the server's steps.
let current = null;   // the board drawn last: {svg, view, handlers, topOf, under, top, reach…}
let pressed = null;   // {cell, ghost, far, x, y, targets} while a pointer is down
const SLOP = 8;       // px a finger may slide and still tap

function cellAt(x, y) {
  const hit = document.elementFromPoint(x, y);
  const value = hit && hit.dataset ? hit.dataset.cell : undefined;
  if (value === undefined) return null;
  return value === "bar" || value === "off" ? value : Number(value);
}

function touched(event) {
  return reachAt(event.clientX, event.clientY) ?? cellAt(event.clientX, event.clientY);
}

function svgPoint(svg, event) {
  const matrix = svg.getScreenCTM();
  if (!matrix) return null;
  const point = svg.createSVGPoint();
  point.x = event.clientX; point.y = event.clientY;
  return point.matrixTransform(matrix.inverse());
}

function listen(svg) {
  svg.addEventListener("pointerdown", (event) => {
    if (!current) return;
    const cell = touched(event);
    if (cell === null) return;
    event.preventDefault();
    const { view, handlers } = current;
    pressed = { cell, ghost: null, far: false, x: event.clientX,
                y: event.clientY, targets: [] };
    if (view.sources.has(cell)) {  // a checker that may move: its targets lit at once
      pressed.targets = handlers.press(cell) || [];
      scale = scaleNow();
      // where it may be dropped: its targets, or back where it was
      current.reach = reach(current.reachLayer, new Set([cell, ...pressed.targets]));
      for (const target of pressed.targets) {
        light(current.under, view, target, "target", view.mover);
      }
      light(current.under, view, cell, "chosen", view.mover);
      pressed.ghost = { side: view.mover };
    }
  });
  svg.addEventListener("pointermove", (event) => {
    if (!pressed || !pressed.ghost || !current) return;
    const point = svgPoint(current.svg, event);
    if (!point) return;
    if (!pressed.ghost.node) {
      pressed.ghost.node = el("circle", { r: R * 1.15, class: `checker checker-${
        pressed.ghost.side} ghost`, "pointer-events": "none", id: "drag-ghost" }, current.svg);
      const origin = current.topOf[`${pressed.cell}:${pressed.ghost.side}`];
      if (origin) origin.classList.add("lifted");
    }
    pressed.far = pressed.far || Math.hypot(event.clientX - pressed.x,
                                            event.clientY - pressed.y) > SLOP;
    pressed.ghost.node.setAttribute("cx", point.x);
    pressed.ghost.node.setAttribute("cy", point.y - 10);  // above the finger, to be seen
  });
}

function release(event) {
  if (!pressed || !current) return;
  const { cell, ghost, far } = pressed;
  pressed = null;
  if (ghost && ghost.node) ghost.node.remove();
  // a finger that barely slid tapped the cell it pressed (not a neighbour it drifted to)
  const target = far ? touched(event) : cell;
  if (target === null) { current.handlers.drag(cell, null); return; }
  if (target === cell) current.handlers.tap(cell);
  else current.handlers.drag(cell, target);
}

document.addEventListener("pointerup", release);
document.addEventListener("pointercancel", () => {
  if (pressed && pressed.ghost && pressed.ghost.node) pressed.ghost.node.remove();
  pressed = null;
  if (current) current.handlers.drag(null, null);
});
