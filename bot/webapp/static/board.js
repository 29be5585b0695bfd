// The board as an SVG, laid out as the bot's picture (bot/present/render/view.py cell_of):
// the viewer's points 13..24 along the top from left to right, 12..1 along the bottom,
// the bar in the middle, the borne-off tray on the right.  Pure drawing: it decides nothing.
const NS = "http://www.w3.org/2000/svg";
const W = 360, H = 320, M = 14, BAR = 22, TRAY = 30;
const FIELD = W - 2 * 6 - TRAY;            // from x=6 to the tray
const CW = (FIELD - BAR) / 12;              // one point's width
const R = CW / 2 - 1;                       // a checker's radius
const DEPTH = 120;                          // a triangle's height

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
  return 6 + column * CW + (column >= 6 ? BAR : 0);
}

function stack(svg, x, top, side, count, down) {
  const shown = Math.min(count, 5);
  for (let i = 0; i < shown; i++) {
    const cy = down ? M + R + 1 + i * 2 * R : H - M - R - 1 - i * 2 * R;
    el("circle", { cx: x, cy, r: R, class: `checker-${side}` }, svg);
    if (i === shown - 1 && count > 5) {
      const text = el("text", { x, y: cy + 4, class: `cube-text count-${side}` }, svg);
      text.textContent = String(count);
    }
  }
}

function die(svg, x, y, value, used) {
  const g = el("g", { class: "dice" }, svg);
  el("rect", { x, y, width: 22, height: 22, rx: 4, class: used ? "die used" : "die",
               "data-die": value }, g);
  const spots = { 1: [[11, 11]], 2: [[6, 6], [16, 16]], 3: [[6, 6], [11, 11], [16, 16]],
    4: [[6, 6], [16, 6], [6, 16], [16, 16]], 5: [[6, 6], [16, 6], [11, 11], [6, 16], [16, 16]],
    6: [[6, 5], [16, 5], [6, 11], [16, 11], [6, 17], [16, 17]] }[value] || [];
  for (const [dx, dy] of spots) el("circle", { cx: x + dx, cy: y + dy, r: 2.2, class: "pip" }, g);
}

// view: {cells, bar, off, numbers, dice, cube, viewer, mover, sources: Set, targets: Set};
// onTap(cell) for a tap, onDrag(from, to) for a checker dragged from one cell to another
export function drawBoard(container, view, onTap, onDrag) {
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, id: "board-svg" });
  el("rect", { x: 0, y: 0, width: W, height: H, class: "frame" }, svg);
  el("rect", { x: 6, y: M, width: FIELD, height: H - 2 * M, class: "field" }, svg);
  el("rect", { x: 6 + 6 * CW, y: M, width: BAR, height: H - 2 * M, class: "bar" }, svg);
  const bottom = view.viewer, top = 1 - view.viewer;
  for (let label = 1; label <= 24; label++) {
    const [row, column] = cellOf(label);
    const x = columnX(column), cx = x + CW / 2;
    const base = row === 0 ? M : H - M, tip = row === 0 ? M + DEPTH : H - M - DEPTH;
    el("polygon", { points: `${x},${base} ${x + CW},${base} ${cx},${tip}`,
                    class: (column + row) % 2 ? "point-dark" : "point-light" }, svg);
    const number = el("text", { x: cx, y: row === 0 ? M - 4 : H - 3, class: "numbers" }, svg);
    number.textContent = String(view.numbers[label - 1]);
    const [side, count] = view.cells[label - 1];
    if (count) stack(svg, cx, 0, side, count, row === 0);
  }
  const barX = 6 + 6 * CW + BAR / 2;
  for (const [side, down] of [[top, true], [bottom, false]]) {
    const count = view.bar[side];
    if (!count) continue;
    const cy = down ? H / 2 - R - 14 : H / 2 + R + 14;
    el("circle", { cx: barX, cy, r: R, class: `checker-${side}` }, svg);
    const text = el("text", { x: barX, y: cy + 4, class: `cube-text count-${side}` }, svg);
    text.textContent = String(count);
  }
  const trayX = W - TRAY - 2;
  el("rect", { x: trayX, y: M, width: TRAY, height: H - 2 * M, class: "tray" }, svg);
  for (const [side, y] of [[top, M + 14], [bottom, H - M - 6]]) {
    const text = el("text", { x: trayX + TRAY / 2, y, class: "tray-text", "data-off": side }, svg);
    text.textContent = view.off[side] ? `${view.off[side]}` : "";
  }
  const dice = view.dice || [];
  dice.forEach(([value, used], i) => {
    die(svg, columnX(8) + i * 26 - (dice.length > 2 ? 26 : 0), H / 2 - 11, value, used);
  });
  if (view.cube) {
    const y = view.cube.owner === null ? H / 2 - 12 : view.cube.owner === top ? M + 2 : H - M - 26;
    el("rect", { x: barX - 11, y, width: 22, height: 24, rx: 3, class: "cube" }, svg);
    const text = el("text", { x: barX, y: y + 16, class: "cube-text", id: "cube" }, svg);
    text.textContent = String(view.cube.value);
  }
  // hit areas: one per point, the bar and the tray; highlighted when a step may start/end there
  const mark = (cell) => (view.targets.has(cell) ? "hit target" : view.sources.has(cell) ? "hit source" : "hit");
  for (let label = 1; label <= 24; label++) {
    const [row, column] = cellOf(label);
    el("rect", { x: columnX(column), y: row === 0 ? M : H / 2, width: CW,
                 height: H / 2 - M, class: mark(label), "data-cell": label }, svg);
  }
  el("rect", { x: 6 + 6 * CW, y: M, width: BAR, height: H - 2 * M,
               class: mark("bar"), "data-cell": "bar" }, svg);
  el("rect", { x: trayX, y: M, width: TRAY, height: H - 2 * M,
               class: mark("off"), "data-cell": "off" }, svg);
  handlers.tap = onTap;
  handlers.drag = onDrag || (() => {});
  listen(svg, view);
  container.replaceChildren(svg);
}

// Taps and drags, by pointer events (a mouse, a finger, a pen alike): a press and a
// release on one cell is a tap (onTap(cell)); a press on a cell where a step may start
// and a release on another cell is a drag (onDrag(from, to)).  The app decides what
// either does with the server's steps; here only the finger is followed.
let pressed = null;   // {cell, ghost, svg, moved} while a pointer is down on the board

function cellAt(x, y) {
  const hit = document.elementFromPoint(x, y);
  const value = hit && hit.dataset ? hit.dataset.cell : undefined;
  if (value === undefined) return null;
  return value === "bar" || value === "off" ? value : Number(value);
}

function svgPoint(svg, event) {
  const matrix = svg.getScreenCTM();
  if (!matrix) return null;
  const point = svg.createSVGPoint();
  point.x = event.clientX; point.y = event.clientY;
  return point.matrixTransform(matrix.inverse());
}

function listen(svg, view) {
  svg.addEventListener("pointerdown", (event) => {
    const cell = cellAt(event.clientX, event.clientY);
    if (cell === null) return;
    event.preventDefault();
    pressed = { cell, svg, ghost: null, moved: false };
    if (view.sources.has(cell)) {  // a checker that may move: it follows the finger
      pressed.ghost = { side: view.mover === undefined ? view.viewer : view.mover };
    }
  });
  svg.addEventListener("pointermove", (event) => {
    if (!pressed || pressed.svg !== svg || !pressed.ghost) return;
    const point = svgPoint(svg, event);
    if (!point) return;
    if (!pressed.ghost.node) {
      pressed.ghost.node = el("circle", { r: R, class: `checker-${pressed.ghost.side} ghost`,
                                          "pointer-events": "none", id: "drag-ghost" }, svg);
    }
    pressed.moved = true;
    pressed.ghost.node.setAttribute("cx", point.x);
    pressed.ghost.node.setAttribute("cy", point.y);
  });
}

function release(event) {
  if (!pressed) return;
  const { cell, ghost } = pressed;
  pressed = null;
  if (ghost && ghost.node) ghost.node.remove();
  const target = cellAt(event.clientX, event.clientY);
  if (target === null) return;
  if (target === cell) handlers.tap(cell);
  else handlers.drag(cell, target);
}

const handlers = { tap: () => {}, drag: () => {} };
document.addEventListener("pointerup", release);
document.addEventListener("pointercancel", () => {
  if (pressed && pressed.ghost && pressed.ghost.node) pressed.ghost.node.remove();
  pressed = null;
});
