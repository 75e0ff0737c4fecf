// The fast shell (web/shell.py). Inlined at the top of the page's body, it runs before
// Gradio's bundle arrives: its Reset opens this browser tab's session through the playground's
// JSON routes (shell/open, shell/reset, shell/act, shell/close next to the page), draws the same
// stage as the Gradio page, and answers the stage's buttons and keys. When Gradio loads, its
// load event asks handoff() for the tab key (kept in sessionStorage, so per browser tab) and
// adopts the episode; once Gradio's stage is drawn, the shell steps aside.
// ALIASES, EDITABLE, actionButtonFor and wireSliders come from keys.js, put in front of this
// file.
(() => {
  const shell = document.getElementById("oe-shell");
  if (!shell || window.openenvShell) return;
  const base = new URL(".", location.href);
  const STORE = "openenv-shell-tab:" + base.pathname;
  const stage = shell.querySelector(".oe-shell-stage");
  const reset = shell.querySelector(".oe-shell-reset");
  const line = shell.querySelector(".oe-shell-msg");
  let key = "";
  let busy = null;
  let handing = false;
  let active = true;

  // A key left by an earlier page of this browser tab belongs to a page that is gone.
  try { sessionStorage.removeItem(STORE); } catch (err) { /* storage disabled: no handoff */ }
  document.documentElement.classList.add("oe-shell-on");

  function remember(value) {
    key = value || "";
    try {
      if (key) sessionStorage.setItem(STORE, key);
      else sessionStorage.removeItem(STORE);
    } catch (err) { /* storage disabled: the Gradio page opens its own tab */ }
  }

  function say(text, error) {
    line.textContent = text || "";
    line.className = "oe-shell-msg" + (error ? " oe-error" : "");
  }

  async function post(route, body) {
    const response = await fetch(new URL("shell/" + route, base), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error("HTTP " + response.status);
    return response.json();
  }

  function show(data) {
    if (typeof data.tab === "string") remember(data.tab);
    if (typeof data.html === "string") stage.innerHTML = data.html;
    say(data.ok === false && data.error ? data.error : "", data.ok === false);
  }

  // One request at a time; clicks while one runs, or once Gradio is taking over, are dropped.
  function run(route, body) {
    if (busy || handing || !active) return busy;
    busy = post(route, body)
      .then(show)
      .catch((err) => say("The server did not answer (" + err.message + "): reload the page.", true))
      .finally(() => { busy = null; });
    return busy;
  }

  reset.addEventListener("click", () => run(key ? "reset" : "open", { tab: key }));
  stage.addEventListener("click", (event) => {
    const button = event.target.closest("button.oe-act");
    if (button && !button.disabled) run("act", { tab: key, index: Number(button.dataset.i) });
  });
  wireSliders(stage, (values) => run("act", { tab: key, values }));

  document.addEventListener("keydown", (event) => {
    if (!active || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest && event.target.closest(EDITABLE)) return;
    const button = actionButtonFor(stage, event.key);
    if (!button) return;
    event.preventDefault();
    if (!button.disabled) button.click();
  });

  // The browser tab closes before Gradio adopted the episode: free the session now.
  addEventListener("pagehide", () => {
    if (active && key) {
      navigator.sendBeacon(new URL("shell/close", base), JSON.stringify({ tab: key }));
    }
  });

  // Gradio's stage is drawn: step aside (a tab Gradio did not adopt is closed).
  function stepAside(drawn) {
    active = false;
    watcher.disconnect();
    if (key && drawn.dataset.tab !== key) {
      navigator.sendBeacon(new URL("shell/close", base), JSON.stringify({ tab: key }));
    }
    // Where Gradio's layout puts the stage elsewhere (narrow windows stack the forms above
    // it), scroll so that the board being played stays where it was.
    const mine = stage.querySelector(".oe-stage");
    if (key && mine) {
      const shift = drawn.getBoundingClientRect().top - mine.getBoundingClientRect().top;
      if (Math.abs(shift) > 1) scrollBy(0, shift);
    }
    remember("");
    shell.remove();
    document.documentElement.classList.remove("oe-shell-on");
  }
  const watcher = new MutationObserver(() => {
    const drawn = document.querySelector("#oe-stage .oe-stage[data-tab]");
    if (drawn) stepAside(drawn);
  });
  watcher.observe(document.documentElement, { childList: true, subtree: true });

  window.openenvShell = {
    // Called by the Gradio page's load event: the key of the episode to adopt ("" for none).
    handoff: async () => {
      handing = true;
      setTimeout(() => { handing = false; }, 15000); // the page never took over: carry on
      if (busy) await busy;
      return active ? key : "";
    },
  };
})();
