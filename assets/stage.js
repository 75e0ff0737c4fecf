// The stage, in the browser: one script for the fast shell (shell.js) and the Gradio page
// (page.js). The server puts it in front of each, in that script's own scope. It answers the
// stage's buttons, keys, sliders and typed actions by calling the playground's stage routes
// (stage/open, reset, act, autoplay, redraw, close next to the page: openenv/web/stage/api.py),
// one call at a time and in the order the visitor made them, and draws each answer.
//
// One rule for clicks while a call runs: every click, key press or typed action waits its turn
// (at most MAX_WAITING of them; a key held down repeats only while nothing waits). An answer
// older than what the stage shows (data-version) is never drawn over a newer one.

const MAX_WAITING = 16;
const NO_ANSWER = "The server did not answer (%s): reload the page if this persists.";
const TOO_MANY = "Too many actions are waiting: let the stage catch up.";
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

const sliderValues = (root) =>
  [...root.querySelectorAll(".oe-sliders input[type=range]")].map((input) => Number(input.value));

const showSliderValue = (input) => {
  const out = input.parentElement && input.parentElement.querySelector("output");
  if (out) out.textContent = String(Number(Number(input.value).toPrecision(4)));
};

// The pixel of `img`'s own picture under a click (object-fit: contain leaves margins), or null
// outside it.
const framePixel = (img, event) => {
  const box = img.getBoundingClientRect();
  const width = img.naturalWidth || Number(img.getAttribute("width"));
  const height = img.naturalHeight || Number(img.getAttribute("height"));
  const scale = Math.min(box.width / width, box.height / height);
  if (!(scale > 0)) return null;
  const x = Math.floor((event.clientX - box.left - (box.width - width * scale) / 2) / scale);
  const y = Math.floor((event.clientY - box.top - (box.height - height * scale) / 2) / scale);
  return x >= 0 && y >= 0 && x < width && y < height ? [x, y] : null;
};

// Keys that only change what the next key means: never sent on their own.
const MODIFIERS = new Set(["Shift", "Control", "Alt", "Meta", "CapsLock", "AltGraph", "Dead"]);

const versionOf = (markup) => Number((/data-version="(\d+)"/.exec(markup) || [])[1] ?? -1);

// The values of a typed action's form (web/stage/html.py: one input per field of the action).
const typedFields = (form) => {
  const fields = {};
  for (const input of form.querySelectorAll("[data-field]")) fields[input.dataset.field] = input.value;
  return fields;
};

// `root`: the element the stage is drawn into; `draw(html)`: put a new stage there; `onAnswer`:
// called after each answer was drawn (the Gradio page refreshes its side panels).
const createStage = ({ root, draw, onAnswer = () => {} }) => {
  const base = new URL(".", location.href);
  let queue = Promise.resolve();
  let waiting = 0;
  let playing = false;
  let live = true;
  let replies = false;  // the server's agent answers each of the visitor's moves

  const tab = () => root.querySelector("[data-tab]")?.dataset.tab || "";
  const shown = () => Number(root.querySelector(".oe-stage")?.dataset.version ?? -1);

  const say = (text) => {
    const line = root.querySelector(".oe-msg");
    if (!line) return;
    line.textContent = text;
    line.className = "oe-msg oe-msg-error";
    line.setAttribute("role", "alert");
  };

  const post = async (route, body) => {
    const response = await fetch(new URL("stage/" + route, base), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error("HTTP " + response.status);
    return response.json();
  };

  // Autoplay frames: swap the view and the counters in place (no full redraw per frame).
  const patch = (quick) => {
    const view = root.querySelector(".oe-view");
    const img = view && view.querySelector("img.oe-frame");
    const next = /^<img[^>]* src="([^"]+)"[^>]*>$/.exec(quick.view);
    if (img && next) img.src = next[1];
    else if (view) view.innerHTML = quick.view;
    const stage = root.querySelector(".oe-stage");
    if (stage) Object.assign(stage.dataset, { steps: quick.steps, version: quick.version });
    const step = root.querySelector(".oe-step");
    if (step) step.textContent = quick.steps;
    const total = root.querySelector(".oe-return");
    if (total) total.textContent = quick.total;
  };

  const show = (answer) => {
    if (!answer || !live) return answer;
    // A frame being typed on keeps the focus through the redraw.
    const typing = document.activeElement && document.activeElement.matches("img.oe-frame[data-keys]");
    if (answer.quick && answer.quick.version >= shown()) patch(answer.quick);
    else if (typeof answer.html === "string" && versionOf(answer.html) >= shown()) {
      draw(answer.html);
      if (typing) root.querySelector("img.oe-frame[data-keys]")?.focus();
    }
    if (answer.ok === false && answer.error) say(answer.error);
    onAnswer(answer);
    return answer;
  };

  // Every call waits for the ones before it; its body names the tab as it is by then.
  const call = (route, payload = {}) => {
    if (waiting >= MAX_WAITING) {
      say(TOO_MANY);
      return Promise.resolve(null);
    }
    waiting += 1;
    const run = () =>
      post(route, { tab: tab(), ...payload })
        .then(show)
        .catch((err) => {
          say(NO_ANSWER.replace("%s", err && err.message ? err.message : String(err)));
          return null;
        })
        .finally(() => { waiting -= 1; });
    queue = queue.then(run, run);
    return queue;
  };

  // A move while autoplay (random or the agent) plays takes over: play stops, the move is made.
  const act = (payload) => {
    playing = false;
    return call("act", replies ? { ...payload, reply: true } : payload);
  };

  // ⬇ MP4 / GIF: fetched here so a long encode shows its progress bar (polled), then saved.
  const exportVideo = async (link) => {
    if (link.dataset.busy) return;
    link.dataset.busy = "1";
    const bar = document.createElement("progress");
    bar.className = "oe-dl-progress";
    bar.setAttribute("aria-label", "making the video");
    link.after(bar);
    const progressUrl = new URL(link.getAttribute("href").replace(/[^/]+$/, "progress"), base);
    const timer = setInterval(async () => {
      try {
        const p = await (await fetch(progressUrl)).json();
        if (p.total) Object.assign(bar, { max: p.total, value: p.done });
      } catch (err) { /* the download itself reports failures */ }
    }, 300);
    try {
      const response = await fetch(new URL(link.getAttribute("href"), base));
      if (!response.ok) {
        const detail = (await response.json().catch(() => ({}))).detail;
        throw new Error(detail || "HTTP " + response.status);
      }
      const named = /filename="?([^";]+)"?/.exec(response.headers.get("Content-Disposition") || "");
      const url = URL.createObjectURL(await response.blob());
      const save = Object.assign(document.createElement("a"), {
        href: url, download: named ? named[1] : link.getAttribute("href").split("/").pop(),
      });
      document.body.append(save);
      save.click();
      save.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (err) {
      say("The video could not be made: " + (err && err.message ? err.message : String(err)));
    } finally {
      clearInterval(timer);
      bar.remove();
      delete link.dataset.busy;
    }
  };

  // 🔗 Copy link: this episode as a link (its seed, reset options and actions) that replays it
  // in anyone's playground; shown too, for pages where the clipboard is not available.
  const shareLink = async (button) => {
    try {
      const response = await fetch(new URL(button.dataset.share, base));
      const info = await response.json();
      if (!response.ok) throw new Error(info.detail || "HTTP " + response.status);
      const downloads = button.closest(".oe-downloads");
      if (!info.fits) {
        say("This episode is too long for a link: download it (⬇ JSONL) and open the file " +
          "with 📂 Inspect episode in the Rewards tab, then ▶ Play from here.");
        downloads?.querySelector("a.oe-dl[href$='episode.jsonl']")?.click();
        return;
      }
      const url = new URL(location.href);
      url.search = "?episode=" + info.token;
      url.hash = "";
      let box = downloads?.querySelector("input.oe-share-url");
      if (!box && downloads) {
        box = Object.assign(document.createElement("input"), {
          className: "oe-share-url", readOnly: true, type: "text",
        });
        box.setAttribute("aria-label", "link to this episode");
        downloads.append(box);
      }
      if (box) { box.value = url.href; box.select(); }
      try {
        await navigator.clipboard.writeText(url.href);
        button.textContent = "✔ Link copied";
      } catch (err) {
        button.textContent = "Select and copy the link";
      }
      setTimeout(() => { button.textContent = "🔗 Copy link"; }, 2000);
    } catch (err) {
      say("No link for this episode: " + (err && err.message ? err.message : String(err)));
    }
  };

  root.addEventListener("click", (event) => {
    const share = event.target.closest && event.target.closest("button.oe-share[data-share]");
    if (share) {
      shareLink(share);
      return;
    }
    const video = event.target.closest && event.target.closest("a.oe-dl[data-video]");
    if (video) {
      event.preventDefault();
      exportVideo(video);
      return;
    }
    const frame = event.target.closest && event.target.closest("img.oe-frame[data-click]");
    if (frame) {
      const point = framePixel(frame, event);
      if (point) act({ point });
      return;
    }
    const button = event.target.closest && event.target.closest("button");
    if (!button || button.disabled) return;
    if (button.matches(".oe-act")) act({ index: Number(button.dataset.i) });
    else if (button.matches(".oe-cell-act")) {
      act({ cell: [Number(button.dataset.r), Number(button.dataset.c)] });
    }
    else if (button.matches(".oe-slide")) act({ values: sliderValues(root) });
    else if (button.matches(".oe-slide-start")) {
      for (const input of root.querySelectorAll(".oe-sliders input[type=range]")) {
        input.value = input.dataset.start;
        showSliderValue(input);
      }
    }
  });
  root.addEventListener("input", (event) => {
    if (event.target.matches(".oe-sliders input[type=range]")) showSliderValue(event.target);
  });
  root.addEventListener("submit", (event) => {
    const form = event.target.closest && event.target.closest("form.oe-typed");
    if (!form) return;
    event.preventDefault();
    act({ fields: typedFields(form) }).then((answer) => {
      // Drawn anew (or kept, where the page patches its markup): empty once taken, and keep
      // the cursor in the first box for the next one.
      const boxes = [...root.querySelectorAll("form.oe-typed [data-field]")];
      if (answer && answer.ok) boxes.forEach((box) => { box.value = ""; });
      if (boxes.length) boxes[0].focus();
    });
  });
  root.addEventListener("keydown", (event) => {
    const target = event.target;
    if (target.matches("img.oe-frame[data-keys]")) {
      // Keys typed on a frame that takes them go to the environment (Tab still moves on).
      if (event.key === "Tab" || event.ctrlKey || event.metaKey || MODIFIERS.has(event.key)) return;
      event.preventDefault();
      event.stopPropagation();
      act({ key: event.key });
      return;
    }
    if (event.key !== "Enter") return;
    if (target.matches(".oe-sliders input[type=range]")) {
      event.preventDefault();
      if (!target.disabled) act({ values: sliderValues(root) });
    } else if (target.matches("form.oe-typed textarea") && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();  // Enter writes a new line in a text area; Ctrl+Enter sends
      target.form.requestSubmit();
    }
  });

  // The keys the environment declares (and WASD for arrows), anywhere on the page but in a
  // text field. A key held down repeats only while no action waits.
  const onKey = (event) => {
    if (!live || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest && event.target.closest(EDITABLE + ", img.oe-frame[data-keys]")) return;
    const button = actionButtonFor(root, event.key);
    if (!button) return;
    event.preventDefault();
    if (button.disabled || (event.repeat && waiting)) return;
    act({ index: Number(button.dataset.i) });
  };
  document.addEventListener("keydown", onKey);

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  // `hold()`: the slider values autoplay sends instead of random ones (null: random).
  const play = async (steps, fps, hold = () => null, agent = false) => {
    if (playing) return;
    playing = true;
    document.body.classList.add("oe-playing");
    const interval = 1000 / Math.max(1, Number(fps) || 10);
    const limit = Math.max(0, Math.floor(Number(steps) || 0));
    try {
      for (let n = 0; playing && (limit === 0 || n < limit); n++) {
        const started = performance.now();
        const values = hold();
        const answer = await call("autoplay", agent ? { agent: true } : values ? { values } : {});
        if (!answer || !answer.ok || answer.done) break;
        const wait = interval - (performance.now() - started);
        if (wait > 1) await sleep(wait);
      }
    } finally {
      playing = false;
      document.body.classList.remove("oe-playing");
      await call("redraw");
    }
  };

  return {
    call,
    act,
    play,
    stop: () => { playing = false; },
    setReplies: (on) => { replies = Boolean(on); },
    isPlaying: () => playing,
    busy: () => waiting > 0,
    idle: () => queue,
    tab,
    // Stop answering keys and drawing answers (the shell hands over to the Gradio page).
    retire: () => {
      live = false;
      playing = false;
      document.removeEventListener("keydown", onKey);
    },
  };
};
