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

async function review(command, payload) {
  try {
    const result = await server.review({ tab: reviewKey(), do: command, ...payload });
    if (result && typeof result.html === "string" && remember(result.html)) {
      props.value = result.html;
    }
    else if (result && result.error) reviewError(result.error);
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

rewardsApi.pick = (step) => review("pick", { step: Number(step) });
