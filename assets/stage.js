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

// Presentation mode (``?present=1``, ``?present=agent`` or ``?present=random``, and
// ``&speed=`` steps a second): the stage alone, large, played in a loop (page.js). The class is
// set here, in the fast shell too, so that the first paint is already the presentation's.
const PRESENT_OFF = new Set(["", "0", "false", "no", "off"]);
const presentAsked = () => {
  const value = new URLSearchParams(location.search).get("present");
  return value !== null && !PRESENT_OFF.has(value.trim().toLowerCase()) ? value.trim() : null;
};
if (presentAsked()) document.documentElement.classList.add("oe-present");

const versionOf = (markup) => Number((/data-version="(\d+)"/.exec(markup) || [])[1] ?? -1);

// The values of a typed action's form (web/stage/html.py: one input per field of the action).
const typedFields = (form) => {
  const fields = {};
  for (const input of form.querySelectorAll("[data-field]")) fields[input.dataset.field] = input.value;
  return fields;
};

// `root`: the element the stage is drawn into; `draw(html)`: put a new stage there; `onAnswer`:
// called after each answer was drawn (the Gradio page refreshes its side panels); `panels()`:
// the side panels to bring with a stage call's answer (the Gradio page's in view; null: none),
// so that a click is one round trip.
const createStage = ({ root, draw, onAnswer = () => {}, panels = () => null }) => {
  const base = new URL(".", location.href);
  let queue = Promise.resolve();
  let waiting = 0;
  let playing = false;
  let live = true;
  let replies = false;  // the server's agent answers each of the visitor's moves
  let side = null;  // the visitor's side then: "first", "second" (null: the side to move)

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
    showRealtime();
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
    const run = () => {
      // Autoplay's frames come as quick answers, with no panels; they catch up at their pace.
      const asked = route === "autoplay" ? null : panels();
      const body = { tab: tab(), ...payload, ...(asked && asked.length ? { panels: asked } : {}) };
      return post(route, body)
        .then((answer) => {
          if (answer && asked && answer.panels) answer.asked = asked;
          return show(answer);
        })
        .catch((err) => {
          say(NO_ANSWER.replace("%s", err && err.message ? err.message : String(err)));
          return null;
        })
        .finally(() => { waiting -= 1; });
    };
    queue = queue.then(run, run);
    return queue;
  };

  // A move while autoplay (random or the agent) plays takes over: play stops, the move is made.
  const act = (payload) => {
    playing = false;
    return call("act", replies ? { ...payload, reply: true, ...(side ? { side } : {}) } : payload);
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

  // Click-to-move (buttons with data-path, e.g. chess): click a square of the picture to pick
  // the piece there, its targets light up; click one to move (several moves to one square,
  // a promotion: their buttons are offered to choose from).
  let picked = null;
  // python-chess names a square by a class of its rect ("square light e2")
  const squareName = (rect) =>
    [...rect.classList].filter((c) => !/^(square|light|dark|lastmove|check|oe-.*)$/.test(c)).pop();
  const squareAt = (event) => {
    for (const el of document.elementsFromPoint(event.clientX, event.clientY)) {
      if (!root.contains(el) || !el.closest(".oe-view")) continue;
      if (el.dataset && el.dataset.square) return { name: el.dataset.square, el };
      if (el.matches("rect.square")) return { name: squareName(el), el };
    }
    return null;
  };
  const squareEl = (name) => root.querySelector(
    `.oe-view [data-square="${CSS.escape(name)}"], .oe-view rect.square.${CSS.escape(name)}`);
  const movesFrom = (name) => [...root.querySelectorAll("button.oe-act[data-path]:not([disabled])")]
    .filter((b) => b.dataset.path.split(" ")[0] === name);
  const unpick = () => {
    picked = null;
    root.querySelectorAll(".oe-view .oe-from, .oe-view .oe-target").forEach((el) =>
      el.classList.remove("oe-from", "oe-target"));
    root.querySelector(".oe-promote")?.remove();
  };
  const pickSquare = (square) => {
    if (picked) {
      const moves = movesFrom(picked).filter((b) => b.dataset.path.split(" ").at(-1) === square.name);
      if (moves.length === 1) { unpick(); act({ index: Number(moves[0].dataset.i) }); return; }
      if (moves.length > 1) {  // a promotion: which piece?
        root.querySelector(".oe-promote")?.remove();
        const box = Object.assign(document.createElement("div"), { className: "oe-promote" });
        box.setAttribute("role", "group");
        box.setAttribute("aria-label", "choose the move");
        box.append("Promote to: ");
        for (const b of moves) {
          const choice = Object.assign(document.createElement("button"), {
            type: "button", className: "oe-act oe-promote-pick", textContent: b.textContent,
          });
          choice.addEventListener("click", () => { unpick(); act({ index: Number(b.dataset.i) }); });
          box.append(choice);
        }
        root.querySelector(".oe-view")?.after(box);
        return;
      }
    }
    unpick();
    const moves = movesFrom(square.name);
    if (!moves.length) return;
    picked = square.name;
    square.el.classList.add("oe-from");
    for (const b of moves) squareEl(b.dataset.path.split(" ").at(-1))?.classList.add("oe-target");
  };

  root.addEventListener("click", (event) => {
    if (root.querySelector("button.oe-act[data-path]") && event.target.closest?.(".oe-view")) {
      const square = squareAt(event);
      if (square) {
        pickSquare(square);
        return;
      }
    }
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
    if (button.matches(".oe-rt")) setRealtime(!realtime);
    else if (button.matches(".oe-act")) act({ index: Number(button.dataset.i) });
    else if (button.matches(".oe-cell-act")) {
      act({ cell: [Number(button.dataset.r), Number(button.dataset.c)] });
    }
    else if (button.matches(".oe-slide")) act({ values: sliderValues(root) });
    // Demonstrations (when the server keeps them): leave this episode out or keep it, mark it.
    else if (button.matches(".oe-demo-skip")) call("demo", { keep: button.dataset.keep === "1" });
    else if (button.matches(".oe-demo-mark")) {
      call("demo", { mark: root.querySelector(".oe-demo-note")?.value || "" });
    }
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
      // Drawn anew (or kept, where the page patches its markup): once taken, back to what the
      // env starts the next one with (its draft, else empty), and keep the cursor in the
      // first box for the next one.
      const boxes = [...root.querySelectorAll("form.oe-typed [data-field]")];
      if (answer && answer.ok) boxes.forEach((box) => { box.value = box.defaultValue; });
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

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // Real-time play (a frame, or a board with an idle action: the stage draws ▶ Real time).
  // While it is on, or while an action key is held, the stage steps once per frame at the
  // env's rate (data-fps): the most recently held key's button, else the idle one (Atari's
  // NOOP, the snake going on ahead); without an idle action the game waits for a key.
  const held = [];  // keys held down, most recent last
  const tapped = [];  // keys pressed since the last step: a quick tap steps once, never lost
  let realtime = false;
  let ticking = false;
  const fps = () => Math.min(240, Number(root.querySelector(".oe-stage")?.dataset.fps) || 10);
  const canRealtime = () => Boolean(root.querySelector("button.oe-rt"));
  const showRealtime = () => {
    const button = root.querySelector("button.oe-rt");
    if (!button) return;
    button.setAttribute("aria-pressed", String(realtime));
    button.textContent = realtime ? "❚❚ Pause" : "▶ Real time";
  };
  const tickIndex = () => {
    for (let i = held.length - 1; i >= 0; i--) {
      const button = actionButtonFor(root, held[i]);
      if (button && !button.disabled) return Number(button.dataset.i);
    }
    const idle = realtime && root.querySelector("button.oe-act[data-idle]:not([disabled])");
    return idle ? Number(idle.dataset.i) : null;
  };
  const tick = async () => {
    if (ticking) return;
    ticking = true;
    playing = false;
    let stepped = false;
    try {
      while (live && (realtime || held.length || tapped.length)) {
        const started = performance.now();
        const key = tapped.shift();
        const button = key === undefined ? null : actionButtonFor(root, key);
        const index = button && !button.disabled ? Number(button.dataset.i) : tickIndex();
        if (index !== null) {
          const answer = await call("autoplay", { index });
          stepped = true;
          if (!answer || !answer.ok || answer.done) break;
        } else if (!realtime) break;
        const wait = 1000 / fps() - (performance.now() - started);
        if (wait > 1) await sleep(wait);
      }
    } finally {
      ticking = false;
      realtime = false;
      held.length = 0;
      tapped.length = 0;
      if (stepped && live) await call("redraw");  // the step log and chart catch up
      showRealtime();
    }
  };
  const setRealtime = (on) => {
    realtime = Boolean(on) && canRealtime();
    showRealtime();
    if (realtime) tick();
  };

  // The keys the environment declares (and WASD for arrows), anywhere on the page but in a
  // text field. A key held down repeats only while no action waits; on a real-time stage it
  // steps at the env's frame rate until it is let go. P pauses and resumes real time.
  const onKey = (event) => {
    if (!live || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest && event.target.closest(EDITABLE + ", img.oe-frame[data-keys]")) return;
    const button = actionButtonFor(root, event.key);
    if (!button && event.key.toLowerCase() === "p" && canRealtime() && !event.repeat) {
      event.preventDefault();
      setRealtime(!realtime);
      return;
    }
    if (!button) {
      // A word game: letters typed anywhere go into the stage's answer box (Enter sends it).
      const box = root.querySelector("form.oe-typed input[data-field]:not([disabled])");
      if (box && event.key.length === 1 && !event.repeat) box.focus();
      return;
    }
    event.preventDefault();
    if (canRealtime()) {
      if (!held.includes(event.key)) held.push(event.key);
      if (!event.repeat && tapped.length < 4) tapped.push(event.key);
      tick();
      return;
    }
    if (button.disabled || (event.repeat && waiting)) return;
    act({ index: Number(button.dataset.i) });
  };
  const onKeyUp = (event) => {
    const at = held.indexOf(event.key);
    if (at >= 0) held.splice(at, 1);
    // a letter let go with Shift held reports its other case
    const other = held.findIndex((k) => k.toLowerCase() === event.key.toLowerCase());
    if (other >= 0) held.splice(other, 1);
  };
  const onBlur = () => { held.length = 0; };
  document.addEventListener("keydown", onKey);
  document.addEventListener("keyup", onKeyUp);
  addEventListener("blur", onBlur);

  // A swipe on the view presses the arrow it points to (2048, snake, mazes on a phone).
  let touch = null;
  root.addEventListener("touchstart", (event) => {
    if (!event.target.closest || !event.target.closest(".oe-view")) return;
    const t = event.changedTouches[0];
    touch = { x: t.clientX, y: t.clientY };
  }, { passive: true });
  root.addEventListener("touchend", (event) => {
    if (!touch) return;
    const t = event.changedTouches[0];
    const dx = t.clientX - touch.x, dy = t.clientY - touch.y;
    touch = null;
    if (Math.max(Math.abs(dx), Math.abs(dy)) < 30) return;
    const key = Math.abs(dx) > Math.abs(dy)
      ? (dx > 0 ? "ArrowRight" : "ArrowLeft") : (dy > 0 ? "ArrowDown" : "ArrowUp");
    const button = actionButtonFor(root, key);
    if (button && !button.disabled) act({ index: Number(button.dataset.i) });
  });
  // `hold()`: the slider values autoplay sends instead of random ones (null: random).
  // `agent`: true, the server's agent plays; "solver", the env's own solver does; an object is
  // sent as the call's body (a shared episode's steps: { replay: token }).
  // Resolves with the last answer (null when nothing was played or the server did not answer):
  // `done` when the episode ended, `ok: false` when a step was refused.
  let plays = 0;  // a play started while a stopped one finishes its step ends that one
  const play = async (steps, fps, hold = () => null, agent = false) => {
    if (playing) return null;
    playing = true;
    const run = ++plays;
    document.body.classList.add("oe-playing");
    const interval = 1000 / Math.min(240, Math.max(0.2, Number(fps) || 10));
    const limit = Math.max(0, Math.floor(Number(steps) || 0));
    let answer = null;
    try {
      for (let n = 0; playing && run === plays && (limit === 0 || n < limit); n++) {
        const started = performance.now();
        const values = hold();
        const who = typeof agent === "object" && agent ? agent
          : agent === "solver" ? { solver: true } : agent ? { agent: true } : null;
        answer = await call("autoplay", who || (values ? { values } : {}));
        if (!answer || !answer.ok || answer.done) break;
        const wait = interval - (performance.now() - started);
        if (wait > 1) await sleep(wait);
      }
    } finally {
      if (run === plays) {
        playing = false;
        document.body.classList.remove("oe-playing");
      }
      await call("redraw");
    }
    return answer;
  };

  return {
    call,
    act,
    play,
    stop: () => { playing = false; },
    setReplies: (on) => { replies = Boolean(on); },
    // "you play": the agent plays the other side, and opens when that side is to move.
    setSide: (choice) => { side = choice === "first" || choice === "second" ? choice : null; },
    replySide: () => (replies ? side : null),
    isPlaying: () => playing || ticking,
    busy: () => waiting > 0,
    idle: () => queue,
    tab,
    // Stop answering keys and drawing answers (the shell hands over to the Gradio page).
    setRealtime,
    isRealtime: () => realtime,
    retire: () => {
      live = false;
      playing = false;
      realtime = false;
      held.length = 0;
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("keyup", onKeyUp);
      removeEventListener("blur", onBlur);
    },
  };
};
