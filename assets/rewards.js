// The reward debugger's fast path. Gradio runs this once as the "Rewards" panel's js_on_load
// with `element`, `props` and `server` (server.review calls Python directly). Clicking a bar of
// the chart or a row of the step list shows that recorded step; the buttons pin a run or go
// back to the live episode; the file input loads an exported episode (read here, parsed and
// validated by the server).
const MAX_FILE_BYTES = 32 * 1024 * 1024;
const rewardsApi = (window.openenvRewards = window.openenvRewards || {});
const reviewKey = () => element.querySelector("[data-tab]")?.dataset.tab;

function reviewError(text) {
  const box = element.querySelector(".oe-review");
  if (!box) return;
  let line = box.querySelector(".oe-rv-error");
  if (!line) {
    line = document.createElement("div");
    line.className = "oe-rv-error";
    line.setAttribute("role", "alert");
    box.prepend(line);
  }
  line.textContent = text;
}

// Renders carry a growing data-version: a refresh computed before a click but delivered after
// its answer must not undo the click, so an older render is replaced by the newest one seen.
let newest = { version: -1, html: "" };
const versionOf = (markup) => Number((/data-version="(\d+)"/.exec(markup) || [])[1] ?? -1);

function remember(markup) {
  const version = versionOf(markup);
  if (version >= newest.version) newest = { version, html: markup };
  return version >= newest.version;
}

watch("value", () => {
  if (typeof props.value === "string" && !remember(props.value)) props.value = newest.html;
});

// A step picked with the timeline slider: the parts that show the step are swapped in place,
// and the slider being dragged (or moved with the arrow keys) is left alone.
function patchStep(markup) {
  const fresh = new DOMParser().parseFromString(markup, "text/html");
  const box = element.querySelector(".oe-review");
  const next = fresh.querySelector(".oe-review");
  if (!box || !next || !box.querySelector(".oe-rv-scrub")) return false;
  for (const part of [".oe-rv-grid", ".oe-rv-list", ".oe-rv-at", "[data-do=prev]", "[data-do=next]"]) {
    const old = box.querySelector(part);
    const now = next.querySelector(part);
    if (old && now) old.replaceWith(now);
  }
  Object.assign(box.dataset, { selected: next.dataset.selected, version: next.dataset.version });
  return true;
}

async function review(command, payload, inPlace = false) {
  try {
    const result = await server.review({ tab: reviewKey(), do: command, ...payload });
    if (result && typeof result.html === "string" && remember(result.html)) {
      if (!(inPlace && patchStep(result.html))) props.value = result.html;
    }
    else if (result && result.error) reviewError(result.error);
    if (result && result.stage) window.openenvPlayground?.call("redraw");  // played from here
  } catch (err) {
    reviewError("The server did not answer (" + (err && err.message ? err.message : err) +
      "). Reload the page if this persists.");
  }
}

element.addEventListener("click", (event) => {
  const button = event.target.closest("button[data-do]");
  if (button) { review(button.dataset.do, {}); return; }
  const target = event.target.closest(".oe-bar[data-step], tr.oe-steprow[data-step]");
  if (target) review("pick", { step: Number(target.dataset.step) });
});

element.addEventListener("keydown", (event) => {
  const row = event.target.closest && event.target.closest("tr.oe-steprow[data-step]");
  if (row && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    review("pick", { step: Number(row.dataset.step) });
  }
});

element.addEventListener("change", async (event) => {
  const input = event.target.closest && event.target.closest("input.oe-inspect-file");
  const file = input && input.files && input.files[0];
  if (!file) return;
  if (file.size > MAX_FILE_BYTES) {
    reviewError("That file is larger than 32 MB: split the episode to inspect it.");
    return;
  }
  await review("load", { text: await file.text(), name: file.name });
});

// The timeline slider: while it is dragged, one pick is in flight at a time and the newest
// position is sent next (positions passed over meanwhile are skipped, never queued).
let scrubTo = null;
let scrubbing = false;
async function scrub() {
  if (scrubbing) return;
  scrubbing = true;
  try {
    while (scrubTo !== null) {
      const step = scrubTo;
      scrubTo = null;
      await review("pick", { step }, true);
    }
  } finally {
    scrubbing = false;
  }
}
element.addEventListener("input", (event) => {
  if (!event.target.matches("input.oe-rv-scrub")) return;
  scrubTo = Number(event.target.value);
  scrub();
});

rewardsApi.pick = (step) => review("pick", { step: Number(step) });
