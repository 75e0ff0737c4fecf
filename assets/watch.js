// The watch pages (openenv/web/page/watch.py): the list of live sessions, and one session
// followed read-only. Both poll the server; data is put in with textContent, and the drawing
// is the playground's own markup. With an API token set, the token typed once is kept for this
// browser tab (sessionStorage) and sent as a bearer token.
(() => {
  const TOKEN = "openenv-watch-token";
  const form = document.querySelector(".oe-watch-token");
  const msg = document.querySelector(".oe-watch-msg");
  const token = () => { try { return sessionStorage.getItem(TOKEN) || ""; } catch (e) { return ""; } };
  const say = (text) => { msg.textContent = text; };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    try { sessionStorage.setItem(TOKEN, form.querySelector("input").value.trim()); } catch (e) {}
    form.hidden = true;
    say("");
    tick();
  });

  // GET `url` as JSON; null (and the reason said) when it was refused.
  const get = async (url) => {
    const headers = token() ? { Authorization: "Bearer " + token() } : {};
    const response = await fetch(url, { headers });
    const data = await response.json().catch(() => ({}));
    if (response.status === 401) {
      form.hidden = false;
      say("This server is protected: enter its API token to watch.");
      return null;
    }
    if (!response.ok) {
      say(data.detail || "HTTP " + response.status);
      return null;
    }
    return data;
  };

  const cell = (row, text) => {
    const td = document.createElement("td");
    td.textContent = text;
    row.append(td);
    return td;
  };
  const num = (value) => (value === null || value === undefined ? "–" : String(Number(value.toPrecision(5))));

  const list = document.querySelector(".oe-watch-list tbody");
  const watched = document.querySelector(".oe-watched");
  let seen = -1;
  let timer = null;

  const showList = (sessions) => {
    list.replaceChildren();
    if (!sessions.length) {
      const row = document.createElement("tr");
      cell(row, "No live sessions.").colSpan = 7;
      list.append(row);
    }
    for (const s of sessions) {
      const row = document.createElement("tr");
      cell(row, s.id);
      cell(row, s.kind === "web" ? "web tab" : s.kind + " client");
      cell(row, String(s.episode));
      cell(row, String(s.steps) + (s.done ? " (done)" : ""));
      cell(row, num(s.last_reward));
      cell(row, num(s.total));
      const link = document.createElement("a");
      link.href = "watch/" + encodeURIComponent(s.id);
      link.textContent = "watch";
      cell(row, "").append(link);
      list.append(row);
    }
  };

  const showSession = (data) => {
    if (data.html === undefined) return;  // nothing changed since what is shown
    seen = data.version;
    watched.querySelector(".oe-view").innerHTML = data.html;
    watched.querySelector(".oe-w-chart").innerHTML = data.chart;
    watched.querySelector(".oe-w-episode").textContent = String(data.episode);
    watched.querySelector(".oe-w-steps").textContent = String(data.steps);
    watched.querySelector(".oe-w-reward").textContent = num(data.last_reward);
    watched.querySelector(".oe-w-total").textContent = num(data.total);
    watched.querySelector(".oe-w-status").textContent = data.done ? "done" : "running";
    Object.assign(watched.dataset, { steps: data.steps, version: data.version });
  };

  const tick = async () => {
    clearTimeout(timer);
    if (document.body.dataset.protected === "1" && !token()) {
      form.hidden = false;  // asked before any call: no refused request in the console
      say("This server is protected: enter its API token to watch.");
      return;
    }
    let ok = false;
    try {
      if (list) {
        const sessions = await get("watch/sessions");
        if (sessions) { showList(sessions); ok = true; }
      } else if (watched) {
        const id = encodeURIComponent(watched.dataset.session);
        const data = await get(id + "/view?seen=" + seen);
        if (data) { showSession(data); ok = true; say(""); }
      }
    } catch (err) {
      say("The server did not answer (" + (err && err.message ? err.message : err) + ").");
      ok = true;  // try again
    }
    if (ok) timer = setTimeout(tick, list ? POLL_MS * 3 : POLL_MS);
  };
  tick();
})();
