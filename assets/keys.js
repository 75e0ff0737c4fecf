// Keyboard shortcuts and the sliders' wiring, shared by the fast shell (shell.js) and the
// Gradio stage (playground.js): the server puts this file in front of each, in that script's
// own scope (web/shell.py, web/blocks.py). Keys are KeyboardEvent.key values; WASD stand in
// for the arrows.
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

// The sliders of a continuous action (web/stage.py) under `root`: the number beside each
// follows it, "Reset sliders" puts them back where they started, and the Step button (or
// Enter on a focused slider) calls `step(values)`.
const sliderValues = (root) =>
  [...root.querySelectorAll(".oe-sliders input[type=range]")].map((input) => Number(input.value));

const showSliderValue = (input) => {
  const out = input.parentElement && input.parentElement.querySelector("output");
  if (out) out.textContent = String(Number(Number(input.value).toPrecision(4)));
};

const wireSliders = (root, step) => {
  root.addEventListener("input", (event) => {
    if (event.target.matches(".oe-sliders input[type=range]")) showSliderValue(event.target);
  });
  root.addEventListener("click", (event) => {
    const target = event.target;
    const button = target.closest && target.closest("button.oe-slide, button.oe-slide-start");
    if (!button || button.disabled) return;
    if (button.classList.contains("oe-slide")) { step(sliderValues(root)); return; }
    for (const input of root.querySelectorAll(".oe-sliders input[type=range]")) {
      input.value = input.dataset.start;
      showSliderValue(input);
    }
  });
  root.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || !event.target.matches(".oe-sliders input[type=range]")) return;
    event.preventDefault();
    if (!event.target.disabled) step(sliderValues(root));
  });
};
