// The turn tree as the server packs it (bot/present/webstate.py pack_tree: the root's
// board once, each node's differences from it, its steps as flat numbers), given back
// as the nodes the app walks: {cells: [[side, count] x 24], bar, off, complete,
// steps: [{step: [source, target, die], from, to, next}]}, exactly as turn_tree makes them.
const PLACES = { 25: "bar", 26: "off" };

export function unpackTree(packed) {
  if (!packed || Array.isArray(packed)) return packed;  // not packed (or no tree)
  const place = (code) => PLACES[code] || code;
  return packed.nodes.map(([complete, changes, flat]) => {
    const board = packed.root.slice();
    for (let i = 0; i < changes.length; i += 2) board[changes[i]] = changes[i + 1];
    const steps = [];
    for (let i = 0; i < flat.length; i += 6) {
      steps.push({ step: flat.slice(i, i + 3), from: place(flat[i + 3]),
                   to: place(flat[i + 4]), next: flat[i + 5] });
    }
    return {
      cells: board.slice(0, 24).map((v) => (v === 0 ? [-1, 0] : v > 0 ? [0, v] : [1, -v])),
      bar: board.slice(24, 26), off: board.slice(26, 28), complete: !!complete, steps,
    };
  });
}
