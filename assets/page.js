// The Gradio page's stage. Gradio runs this once as the stage component's js_on_load, with
// `element`, `props` and `trigger`; the stage itself is stage.js (put in front of this file).
// Here: drawing through Gradio's value (so the page's other events see the stage as drawn),
// the side panels' refresh once the stage has caught up, the step log's link to the Rewards
// tab, "hold during autoplay", copy buttons, and Play / Stop.
const api = (window.openenvPlayground = window.openenvPlayground || {});

// On a phone Gradio's page padding (32 px a side) plus its columns' minimum widths made the page
// wider than the screen. Gradio scopes the page's CSS inside its container, so this rule, about
// the container's own box, is added to the document here.
if (!document.getElementById("oe-phone-fit")) {
  const fit = Object.assign(document.createElement("style"), { id: "oe-phone-fit" });
  fit.textContent = "@media (max-width: 640px) { gradio-app .main.app { max-width: 100vw;" +
    " min-width: 0; padding-left: 8px !important; padding-right: 8px !important;" +
    " box-sizing: border-box; } }";
  document.head.append(fit);
}
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

// The side panels follow the stage, the ones in view only: State and Last response (in the
// open Developer panel), Python and Rewards (the selected tab, on screen). A panel is behind
// when the stage it last showed (tab and data-version) is not the one drawn, or when Gradio
// drew it anew (a tab picked again shows Gradio's own, older value). One plain call (the
// stage's panels route, openenv/web/stage/api.py; no Gradio event, whose queue costs the
// server several times a click) brings every panel in view up to date when one of them is
// behind, and the server leaves out those that did not change. A panel out of view stays
// behind and catches up when it comes into view (a tab picked, the Developer panel opened,
// the page scrolled or shown again). At most one call when no stage call waits, every 250 ms
// at most while autoplay plays.
const PANELS = { state: "#oe-state", raw: "#oe-raw", code: "#oe-python", rewards: "#oe-rewards" };
const panelBase = new URL(".", location.href);
api.panelsAt = api.panelsAt || {};  // panel -> the stage it shows ("tab:version")
api.panelNodes = api.panelNodes || {};  // panel -> the element it was drawn into
const stageNow = () => {
  const stage = element.querySelector(".oe-stage");
  return stage && stage.dataset.tab ? `${stage.dataset.tab}:${stage.dataset.version ?? ""}` : "";
};
// Where a panel's HTML goes: the body of its Gradio HTML component (absent: folded, other tab).
const panelBody = (name) => document.querySelector(`${PANELS[name]} .html-container > .prose`);
// In view: shown (its tab picked, its fold open) and on screen or within a screen of it, so a
// panel just under the fold (a tab picked at the bottom of the first screen) is ready when the
// visitor scrolls to it; one further away catches up when a scroll brings it near.
const inView = (name) => {
  const body = panelBody(name);
  if (!body) return false;
  const rect = (body.closest(PANELS[name]) || body).getBoundingClientRect();
  if (rect.height === 0 && rect.width === 0) return false;
  return rect.bottom > -innerHeight && rect.top < 2 * innerHeight;
};
const panelsInView = () => (document.hidden ? [] : Object.keys(PANELS).filter(inView));
const behind = (name, now) =>
  api.panelsAt[name] !== now || api.panelNodes[name] !== panelBody(name);
const versionIn = (markup) => Number((/data-version="(\d+)"/.exec(markup) || [])[1] ?? -1);

const drawPanels = (drawn) => {
  for (const [name, markup] of Object.entries(drawn || {})) {
    const body = panelBody(name);
    if (!body || typeof markup !== "string") continue;
    if (name === "rewards") {  // a newer render (a step picked meanwhile) is kept
      const shown = Number(body.querySelector(".oe-review")?.dataset.version ?? -1);
      if (versionIn(markup) < shown) continue;
    }
    body.innerHTML = markup;
  }
};

const fetchPanels = async () => {
  if (api.panelCall) {  // one call at a time; another follows it when still behind
    api.panelAgain = true;
    return;
  }
  const now = stageNow();
  const shown = panelsInView();
  const due = shown.filter((name) => behind(name, now));
  if (!now || !due.length) return;
  // A panel Gradio drew anew is sent even when unchanged since the last call.
  const fresh = due.some((name) => api.panelNodes[name] !== panelBody(name));
  const tab = now.slice(0, now.lastIndexOf(":"));
  api.panelCall = true;
  try {
    const response = await fetch(new URL("stage/panels", panelBase), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ tab, panels: fresh ? [...shown, "fresh"] : shown }),
    });
    const answer = response.ok ? await response.json() : null;
    if (answer && answer.ok) {
      drawPanels(answer.panels);
      for (const name of shown) {
        api.panelsAt[name] = now;
        api.panelNodes[name] = panelBody(name);
      }
    }
  } catch (err) {
    // the server is gone: the stage says so; the panels catch up on its next answer
  } finally {
    api.panelCall = false;
  }
  if (api.panelAgain) {
    api.panelAgain = false;
    refreshPanels();
  }
};

const refreshPanels = () => {
  if (api.presentRun) return;  // presenting: the panels are hidden, caught up on exit
  clearTimeout(api.panelTimer);
  api.panelTimer = setTimeout(() => {
    if (api.stage && api.stage.busy() && !api.stage.isPlaying()) return;
    fetchPanels();
  }, api.stage && api.stage.isPlaying() ? 250 : 0);
};
api.refreshPanels = refreshPanels;
// A stage drawn by a Gradio event (Reset, the action form, a tool call) as well as by a call.
if (typeof watch === "function") watch("value", refreshPanels);
if (!api.panelsInstalled) {
  api.panelsInstalled = true;
  const later = () => requestAnimationFrame(() => requestAnimationFrame(() => api.refreshPanels()));
  document.addEventListener("click", (event) => {
    if (event.target.closest && event.target.closest("#oe-tabs [role='tab'], #oe-dev")) later();
  });
  document.addEventListener("scroll", later, { passive: true, capture: true });
  addEventListener("resize", later, { passive: true });
  document.addEventListener("visibilitychange", later);
  // The visitor leaves (the browser tab closed, another page opened): free the session now,
  // not when Gradio misses the next heartbeats (up to half a minute on a full server). A page
  // kept for the back button (persisted) keeps it; Gradio's unload frees it if it never returns.
  addEventListener("pagehide", (event) => {
    const tab = element.querySelector(".oe-stage")?.dataset.tab;
    if (event.persisted || !tab) return;
    navigator.sendBeacon(new URL("stage/close", panelBase), JSON.stringify({ tab }));
  });
}

// The panels a stage call brings back with its answer (one round trip a click): those in view,
// all of them sent when Gradio drew one anew. Drawn with the stage they follow and marked as
// showing it, so no refresh call follows.
const panelsWanted = () => {
  if (api.presentRun) return null;
  const shown = panelsInView();
  if (!shown.length) return null;
  const fresh = shown.some((name) => api.panelNodes[name] !== panelBody(name));
  return fresh ? [...shown, "fresh"] : shown;
};
const stageOf = (markup) => {
  const tab = (/data-tab="([^"]+)"/.exec(markup || "") || [])[1];
  return tab ? `${tab}:${versionIn(markup)}` : "";
};
const takePanels = (answer) => {
  if (!answer || !answer.panels || !answer.asked) return;
  const now = stageOf(answer.html);
  drawPanels(answer.panels);
  if (!now) return;
  for (const name of answer.asked) {
    if (!(name in PANELS)) continue;
    api.panelsAt[name] = now;
    api.panelNodes[name] = panelBody(name);
  }
};

api.stage = createStage({
  root: element,
  draw: (html) => {
    props.value = html;
    requestAnimationFrame(syncHold);
  },
  onAnswer: (answer) => {
    takePanels(answer);
    refreshPanels();
  },
  panels: panelsWanted,
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
// The agent answers the visitor's moves, and the visitor chose a side: the agent moves now if
// that side is not the one to move (the server checks whose turn it is).
const agentOpens = () => {
  const side = api.stage.replySide();
  if (side) api.stage.call("autoplay", { agent: true, side });
};
api.setReplies = (on) => {
  api.stage.setReplies(on);
  agentOpens();
};
api.setSide = (side) => {
  api.stage.setSide(side);
  agentOpens();
};
api.stop = () => api.stage.stop();
api.isPlaying = () => api.stage.isPlaying();

// -- presentation mode --------------------------------------------------------------------
// ?present=1 (or agent, or random; &speed= steps a second), or the Present button: the stage
// alone and large (playground.css, under html.oe-present) and played in a loop by the same
// autoplay as ▶ Play: the operator's agent when one is configured, else the env's own solver
// when it ships one (data-player on the bar, from the server), else random moves
// (?present=random asks for those, ?present=agent or =solver for the other two). An episode that ends stays
// on screen a moment, then a new one starts. Pause, full screen and Exit (or Esc) on the bar.
const PRESENT_SPEED = { min: 0.5, max: 30, board: 2 };
const PRESENT_END_PAUSE_MS = 1500;
api.element = element;
const presentBar = () => document.querySelector(".oe-present-bar");
const stageBox = () => api.element.querySelector(".oe-stage");
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Steps a second: &speed=, bounded; by default the env's own rate for a frame or a real-time
// game (at most PRESENT_SPEED.max), and PRESENT_SPEED.board for a board game or a text, slow
// enough to follow.
const presentSpeed = () => {
  const asked = Number(new URLSearchParams(location.search).get("speed"));
  const moving = api.element.querySelector(".oe-view img.oe-frame, button.oe-rt");
  const own = Number(stageBox()?.dataset.fps) || 10;
  const speed = asked > 0 ? asked : moving ? own : PRESENT_SPEED.board;
  return Math.min(PRESENT_SPEED.max, Math.max(PRESENT_SPEED.min, speed));
};
// Who plays: "agent", "solver" or "random" (what the server offers; ?present= may ask for
// random moves, or for the solver when an agent is set up too).
const presentRecording = () => new URLSearchParams(location.search).get("episode");
const presentPlayer = () => {
  if (presentRecording()) return "recording";  // ?episode=: the shared episode, step by step
  const offered = presentBar()?.dataset.player || "random";
  const asked = (presentAsked() || "").toLowerCase();
  if (asked === "random") return "random";
  if (asked === "solver" && offered === "agent") return "solver";
  return offered;
};

const presentNote = (text) => {
  const note = presentBar()?.querySelector(".oe-present-note");
  if (note) note.textContent = text;
};
const presentEpisode = (n) => {
  const bar = presentBar();
  if (!bar) return;
  bar.dataset.episodes = String(n);
  const shown = bar.querySelector(".oe-present-episode");
  if (shown) shown.textContent = String(n);
};
const presentPaused = (paused) => {
  const button = presentBar()?.querySelector(".oe-present-pause");
  if (!button) return;
  button.setAttribute("aria-pressed", String(paused));
  button.textContent = paused ? "▶ Resume" : "❚❚ Pause";
};

// The stage the page's load event drew (it has a tab), once it is there.
const stageDrawn = () => new Promise((resolve) => {
  if (stageBox()?.dataset.tab) return resolve();
  const watch = new MutationObserver(() => {
    if (stageBox()?.dataset.tab) { watch.disconnect(); resolve(); }
  });
  watch.observe(api.element, { childList: true, subtree: true });
});

const presentLoop = async (run) => {
  const current = () => api.presentRun === run;
  await stageDrawn();
  presentEpisode(api.presentEpisodes);
  while (current()) {
    if (stageBox()?.dataset.done === "1") {  // the end stays in view a moment, then again
      const total = api.element.querySelector(".oe-return")?.textContent || "";
      presentNote(`Episode over · return ${total}`);
      await pause(PRESENT_END_PAUSE_MS);
      if (!current()) break;
      const answer = presentRecording()  // a shared episode starts again from its own reset
        ? await api.stage.call("autoplay", { replay: presentRecording() })
        : await api.stage.call("reset");
      if (!current()) break;
      if (!answer || !answer.ok) {
        presentStop(answer?.error || "the server did not answer");
        break;
      }
      presentNote("");
      api.presentEpisodes += 1;
      presentEpisode(api.presentEpisodes);
      continue;
    }
    const speed = presentSpeed();
    const shown = presentBar()?.querySelector(".oe-present-speed");
    if (shown) shown.textContent = `${Number(speed.toPrecision(3))} steps/s`;
    const who = presentPlayer();
    const body = who === "recording" ? { replay: presentRecording() } : who;
    const last = await api.stage.play(0, speed, held, who === "random" ? false : body);
    if (!current()) break;
    if (last === null && !api.stage.isPlaying()) {  // nothing played: the server is gone
      presentStop("the server did not answer");
      break;
    }
    if (last && last.ok === false) {  // a refused step (no actions, the agent failed): said
      presentStop(last.error || "a step was refused");
      break;
    }
    if (last === null) await pause(100);  // another play was finishing: it ends, this goes on
  }
};

// Stop the loop, keep the presentation (the bar says why; ▶ Resume starts it again).
const presentStop = (why) => {
  api.presentRun = 0;
  api.stage.stop();
  presentPaused(true);
  presentNote(why ? `Stopped: ${why}` : "Paused");
};

const presentStart = () => {
  const shown = presentBar()?.querySelector(".oe-present-player");
  const who = presentPlayer();
  if (shown && who !== (presentBar().dataset.player || "random")) {  // asked by the address
    shown.textContent = { random: "🎲 random moves", solver: "🧭 the env's solver",
      recording: "🎞 a shared episode" }[who] || shown.textContent;
  }
  api.presentRun = (api.presentRuns = (api.presentRuns || 0) + 1);
  presentPaused(false);
  presentNote("");
  presentLoop(api.presentRun);
};

const presentUrl = (on) => {
  const url = new URL(location.href);
  if (on) {
    if (!presentAsked()) url.searchParams.set("present", "1");
  } else {
    url.searchParams.delete("present");
    url.searchParams.delete("speed");
  }
  history.replaceState(history.state, "", url);
};

api.present = (on) => {
  if (on) {
    presentUrl(true);
    document.documentElement.classList.add("oe-present");
    api.stage.stop();  // ▶ Play, if it played, hands over to the presentation
    api.presentEpisodes = 1;
    const full = presentBar()?.querySelector(".oe-present-full");
    if (full) full.hidden = !document.fullscreenEnabled;
    presentStart();
    scrollTo(0, 0);
    return;
  }
  presentStop("");
  if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
  document.documentElement.classList.remove("oe-present");
  presentUrl(false);
  refreshPanels();
};
api.isPresenting = () => Boolean(api.presentRun);

if (!api.presentInstalled) {
  api.presentInstalled = true;
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest(".oe-present-bar button");
    if (!button) return;
    if (button.matches(".oe-present-exit")) api.present(false);
    else if (button.matches(".oe-present-full")) {
      if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
      else document.documentElement.requestFullscreen?.().catch(() => {});
    } else if (button.matches(".oe-present-pause")) {
      if (api.presentRun) presentStop("");
      else presentStart();
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || document.fullscreenElement) return;  // Esc leaves full screen first
    if (document.documentElement.classList.contains("oe-present")) api.present(false);
  });
  if (presentAsked()) api.present(true);
}
