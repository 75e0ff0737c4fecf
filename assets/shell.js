// The fast shell (openenv/web/shell). Inlined at the top of the page's body, it runs before
// Gradio's bundle arrives: its Reset opens this browser tab's session through the stage routes,
// and the stage (stage.js, put in front of this file) draws and plays it exactly as the Gradio
// page will. When Gradio loads, its load event asks handoff() for the tab key (kept in
// sessionStorage, so per browser tab) and adopts the episode; once Gradio's stage is drawn, the
// shell steps aside.
(() => {
  const shell = document.getElementById("oe-shell");
  if (!shell || window.openenvShell) return;
  const STORE = "openenv-shell-tab:" + new URL(".", location.href).pathname;
  const box = shell.querySelector(".oe-shell-stage");
  const reset = shell.querySelector(".oe-shell-reset");
  const line = shell.querySelector(".oe-shell-msg");
  let active = true;

  // A key left by an earlier page of this browser tab belongs to a page that is gone.
  try { sessionStorage.removeItem(STORE); } catch (err) { /* storage disabled: no handoff */ }
  document.documentElement.classList.add("oe-shell-on");

  const remember = (key) => {
    try {
      if (key) sessionStorage.setItem(STORE, key);
      else sessionStorage.removeItem(STORE);
    } catch (err) { /* storage disabled: the Gradio page opens its own tab */ }
  };

  const stage = createStage({
    root: box,
    draw: (html) => { box.innerHTML = html; },
    onAnswer: (answer) => {
      if (typeof answer.tab === "string") remember(answer.tab);
      line.textContent = answer.ok === false && answer.error ? answer.error : "";
      line.className = "oe-shell-msg" + (answer.ok === false ? " oe-error" : "");
    },
  });
  reset.addEventListener("click", () => stage.call(stage.tab() ? "reset" : "open"));

  const close = (key) => {
    navigator.sendBeacon(new URL("stage/close", location.href), JSON.stringify({ tab: key }));
  };
  // The browser tab closes before Gradio adopted the episode: free the session now.
  addEventListener("pagehide", () => { if (active && stage.tab()) close(stage.tab()); });

  // Gradio's stage is drawn: step aside (a tab Gradio did not adopt is closed).
  const stepAside = (drawn) => {
    active = false;
    watcher.disconnect();
    const key = stage.tab();
    const mine = box.querySelector(".oe-stage");
    stage.retire();
    if (key && drawn.dataset.tab !== key) close(key);
    // A call answered after the page drew its stage: the page redraws the newer one.
    const page = window.openenvPlayground;
    if (mine && Number(mine.dataset.version) > Number(drawn.dataset.version) && page) {
      page.call("redraw");
    }
    // Where Gradio's layout puts the stage elsewhere (narrow windows stack the forms above
    // it), scroll so that the board being played stays where it was.
    if (key && mine) {
      const shift = drawn.getBoundingClientRect().top - mine.getBoundingClientRect().top;
      if (Math.abs(shift) > 1) scrollBy(0, shift);
    }
    remember("");
    shell.remove();
    document.documentElement.classList.remove("oe-shell-on");
  };
  const watcher = new MutationObserver(() => {
    const drawn = document.querySelector("#oe-stage .oe-stage[data-tab]");
    if (drawn) stepAside(drawn);
  });
  watcher.observe(document.documentElement, { childList: true, subtree: true });

  window.openenvShell = {
    // Called by the Gradio page's load event: the key of the episode to adopt ("" for none),
    // once the calls made so far are answered.
    handoff: async () => {
      await stage.idle();
      return active ? stage.tab() : "";
    },
  };
})();
