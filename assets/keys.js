// Keyboard shortcuts, shared by the fast shell (shell.js) and the Gradio stage (playground.js):
// the server puts this file in front of each, in that script's own scope (web/shell.py,
// web/blocks.py). Keys are KeyboardEvent.key values; WASD stand in for the arrows.
const ALIASES = { w: "ArrowUp", a: "ArrowLeft", s: "ArrowDown", d: "ArrowRight" };
const EDITABLE = "input, textarea, select, [contenteditable=''], [contenteditable='true']";

// The action button under `root` that `key` presses (declared key, its letter case, or alias).
const actionButtonFor = (root, key) => {
  const buttons = [...root.querySelectorAll("button.oe-act[data-key]")];
  const lower = key.length === 1 ? key.toLowerCase() : key;
  return (
    buttons.find((b) => b.dataset.key === key || b.dataset.key.toLowerCase() === lower) ||
    (ALIASES[lower] && buttons.find((b) => b.dataset.key === ALIASES[lower]))
  );
};
