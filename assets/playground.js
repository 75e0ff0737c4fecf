// The playground's fast path. Gradio runs this once as the stage's js_on_load with
// `element`, `trigger`, `props` and `server` (server.act / server.autoplay call Python
// directly, without the event queue). It wires the action buttons, keyboard shortcuts
// (the keys environments declare, plus WASD for arrows), copy buttons and autoplay.
// ALIASES, EDITABLE, actionButtonFor, sliderValues and wireSliders come from keys.js, put in
// front of this file.
const api = (window.openenvPlayground = window.openenvPlayground || {});
let inFlight = null;
let queued = null;
let playing = false;

const tabKey = () => element.querySelector("[data-tab]")?.dataset.tab;

function show(result) {
  if (!result) return;
  if (result.error) showError(result.error);
  if (result.quick) patch(result.quick);
  else if (typeof result.html === "string") {
    props.value = result.html;
    requestAnimationFrame(syncHold);
  }
}

// Autoplay frames: swap the view and the counters in place (no full re-render per frame).
function patch(quick) {
  const view = element.querySelector(".oe-view");
  const img = view && view.querySelector("img.oe-frame");
  const next = /^<img[^>]* src="([^"]+)"[^>]*>$/.exec(quick.view);
  if (img && next) img.src = next[1];
  else if (view) view.innerHTML = quick.view;
  const stage = element.querySelector(".oe-stage");
  if (stage) stage.dataset.steps = quick.steps;
  const step = element.querySelector(".oe-step");
  if (step) step.textContent = quick.steps;
  const total = element.querySelector(".oe-return");
  if (total) total.textContent = quick.total;
}

function refreshPanels() {
  clearTimeout(api.panelTimer);
  api.panelTimer = setTimeout(() => trigger("change"), playing ? 250 : 0);
}

async function call(name, payload) {
  try {
    const result = await server[name]({ tab: tabKey(), ...payload });
    show(result);
    return result;
  } catch (err) {
    showError("The server did not answer (" + (err && err.message ? err.message : err) +
      "). Reload the page if this persists.");
    return null;
  }
}

function showError(text) {
  const line = element.querySelector(".oe-msg");
  if (!line) return;
  line.textContent = text;
  line.className = "oe-msg oe-msg-error";
}

// One call at a time; while one runs, only the latest key press or click waits.
// `payload` is {index} (a button) or {values} (the sliders).
function act(payload) {
  if (inFlight) { queued = payload; return inFlight; }
  inFlight = call("act", payload).finally(() => {
    inFlight = null;
    refreshPanels();
    if (queued !== null) { const next = queued; queued = null; act(next); }
  });
  return inFlight;
}

// A row of the step log: show that recorded step in the Rewards panel (web/reward_panel.py).
function inspectStep(row) {
  const rewards = window.openenvRewards;
  if (!rewards || !rewards.pick) return;
  const tab = [...document.querySelectorAll("#oe-tabs [role='tab']")]
    .find((t) => t.textContent.trim() === "Rewards");
  if (tab && tab.getAttribute("aria-selected") !== "true") tab.click();
  rewards.pick(Number(row.dataset.step));
  document.getElementById("oe-rewards")?.scrollIntoView({ block: "nearest" });
}

element.addEventListener("click", (event) => {
  const row = event.target.closest("tr.oe-logrow[data-step]");
  if (row) { inspectStep(row); return; }
  const button = event.target.closest("button.oe-act");
  if (!button || button.disabled) return;
  act({ index: Number(button.dataset.i) });
});
wireSliders(element, (values) => act({ values }));

// "hold during autoplay": autoplay sends the sliders' values. The box is drawn anew with the
// stage, so its state lives here.
element.addEventListener("change", (event) => {
  if (event.target.matches(".oe-hold-box")) api.hold = event.target.checked;
});
function syncHold() {
  const box = element.querySelector(".oe-hold-box");
  if (box) box.checked = Boolean(api.hold);
}
const autoplayPayload = () =>
  api.hold && element.querySelector(".oe-sliders") ? { values: sliderValues(element) } : {};

const buttonFor = (key) => actionButtonFor(element, key);

if (!api.keysInstalled) {
  api.keysInstalled = true;
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest && event.target.closest(EDITABLE)) return;
    const button = api.buttonFor && api.buttonFor(event.key);
    if (!button) return;
    event.preventDefault();
    if (!button.disabled) button.click();
  });
  document.addEventListener("click", async (event) => {
    const copy = event.target.closest && event.target.closest("button.oe-copy");
    if (!copy) return;
    const code = copy.parentElement.querySelector("code");
    try {
      await navigator.clipboard.writeText(code ? code.textContent : "");
      copy.textContent = "Copied";
    } catch (err) {
      copy.textContent = "Select and copy";
    }
    setTimeout(() => (copy.textContent = "Copy"), 1500);
  });
}
api.buttonFor = buttonFor;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Autoplay: random actions (or the held sliders' values, see autoplayPayload), `steps` of them
// (0 = until done), at `fps` steps a second.
api.play = async (steps, fps) => {
  if (playing) return;
  playing = true;
  document.body.classList.add("oe-playing");
  const interval = 1000 / Math.max(1, Number(fps) || 10);
  const limit = Math.max(0, Math.floor(Number(steps) || 0));
  try {
    for (let n = 0; playing && (limit === 0 || n < limit); n++) {
      const started = performance.now();
      const result = await call("autoplay", autoplayPayload());
      if (!result || !result.ok || result.done) break;
      const wait = interval - (performance.now() - started);
      if (wait > 1) await sleep(wait);
    }
  } finally {
    playing = false;
    document.body.classList.remove("oe-playing");
    await call("redraw", {});
    refreshPanels();
  }
};
api.stop = () => { playing = false; };
api.isPlaying = () => playing;
