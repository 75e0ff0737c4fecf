// The Gradio page's stage. Gradio runs this once as the stage component's js_on_load, with
// `element`, `props` and `trigger`; the stage itself is stage.js (put in front of this file).
// Here: drawing through Gradio's value (so the page's other events see the stage as drawn),
// the side panels' refresh once the stage has caught up, the step log's link to the Rewards
// tab, "hold during autoplay", copy buttons, and Play / Stop.
const api = (window.openenvPlayground = window.openenvPlayground || {});
if (api.stage) api.stage.retire();  // a page drawn anew: one stage answers keys

// "hold during autoplay": autoplay sends the sliders' values. The box is drawn anew with the
// stage, so its state lives here.
const syncHold = () => {
  const box = element.querySelector(".oe-hold-box");
  if (box) box.checked = Boolean(api.hold);
};
element.addEventListener("change", (event) => {
  if (event.target.matches(".oe-hold-box")) api.hold = event.target.checked;
});

// The State, Last response, Python and Rewards tabs follow the stage: one refresh when no
// call waits (every 250 ms at most while autoplay plays).
const refreshPanels = () => {
  clearTimeout(api.panelTimer);
  api.panelTimer = setTimeout(() => {
    if (api.stage && api.stage.busy() && !api.stage.isPlaying()) return;
    trigger("change");
  }, api.stage && api.stage.isPlaying() ? 250 : 0);
};

api.stage = createStage({
  root: element,
  draw: (html) => {
    props.value = html;
    requestAnimationFrame(syncHold);
  },
  onAnswer: refreshPanels,
});

// A row of the step log: show that recorded step in the Rewards panel (rewards.js).
element.addEventListener("click", (event) => {
  const row = event.target.closest && event.target.closest("tr.oe-logrow[data-step]");
  const rewards = window.openenvRewards;
  if (!row || !rewards || !rewards.pick) return;
  const tab = [...document.querySelectorAll("#oe-tabs [role='tab']")]
    .find((t) => t.textContent.trim() === "Rewards");
  if (tab && tab.getAttribute("aria-selected") !== "true") tab.click();
  rewards.pick(Number(row.dataset.step));
  document.getElementById("oe-rewards")?.scrollIntoView({ block: "nearest" });
});

if (!api.copyInstalled) {
  api.copyInstalled = true;
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

const held = () =>
  api.hold && element.querySelector(".oe-sliders") ? sliderValues(element) : null;
api.call = (route, payload) => api.stage.call(route, payload);
api.play = (steps, fps, agent = false) =>
  api.stage.play(steps, fps, held, Boolean(agent)).then(refreshPanels);
api.setReplies = (on) => api.stage.setReplies(on);
api.stop = () => api.stage.stop();
api.isPlaying = () => api.stage.isPlaying();
