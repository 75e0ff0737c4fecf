"""The catalog's landing page: plain HTML, CSS and JS served by our own server (no CDN)."""

from __future__ import annotations

from collections import Counter
from html import escape
from typing import TYPE_CHECKING

from openenv.core.hosted import HostedOnly, hosted_only
from openenv.validation.verdict import read_verdict

if TYPE_CHECKING:
    from openenv.web.catalog.app import CatalogEnv

VISIBLE_TAGS = 8


def render_page(title: str, items: list[CatalogEnv], hosted: list[HostedOnly] | None = None) -> str:
    """The whole landing page for ``items``, and the documented environments that run only
    where they are hosted (``hosted``, default: the registry's)."""
    available = sum(item.available for item in items)
    chips = _chips(items)
    cards = "\n".join(_card(item) for item in items) or _NO_ENVS
    return _PAGE.format(
        title=escape(title),
        css=_CSS,
        js=_JS,
        count=len(items),
        available=available,
        plural="s" if len(items) != 1 else "",
        chips=chips,
        cards=cards,
        hosted=_hosted(hosted_only() if hosted is None else hosted),
        icon=_ICON,
    )


def _hosted(rows: list[HostedOnly]) -> str:
    """The "hosted only" list: each env, why it cannot run here, and how to play it anyway."""
    if not rows:
        return ""
    items = "".join(
        f'<li data-name="{escape(h.name)}"><strong>{escape(h.emoji)} {escape(h.title)}</strong> '
        f'<span class="desc">{escape(h.description)}</span> '
        f'<span class="why">Hosted only: {escape(h.reason)}.</span></li>'
        for h in rows
    )
    return (
        '<section id="hosted" class="hosted" aria-labelledby="hosted-title">'
        '<h2 id="hosted-title">Hosted only</h2><p>These documented environments cannot run on a '
        "CPU machine without downloads that no package registry carries. Play one against a "
        "server that hosts it with <code>openenv playground URL</code> (its URL or "
        f"<code>OWNER/SPACE</code>).</p><ul>{items}</ul></section>"
    )


def _chips(items: list[CatalogEnv], shown: int = VISIBLE_TAGS) -> str:
    """Tag filter chips, the most used first; the rare ones behind a "+N more" chip."""
    counts = Counter(tag for item in items for tag in item.entry.tags)
    tags = sorted(counts, key=lambda t: (-counts[t], t))
    chips = [
        f'<button type="button" class="chip{" extra" if i >= shown else ""}" '
        f'data-tag="{escape(t)}" aria-pressed="false"{" hidden" if i >= shown else ""}>'
        f"{escape(t)}</button>"
        for i, t in enumerate(tags)
    ]
    if len(tags) > shown:
        chips.append(
            f'<button type="button" class="chip more" id="more">+{len(tags) - shown} more</button>'
        )
    return "".join(chips)


def _card(item: CatalogEnv) -> str:
    e = item.entry
    name = escape(e.name)
    search = escape(" ".join([e.name, e.title, e.description, *e.tags]).lower())
    tags = "".join(f"<li>{escape(t)}</li>" for t in e.tags)
    state = "" if item.available else " unavailable"
    tag_list = escape(" ".join(e.tags))
    remote = ' data-remote="1"' if item.remote is not None else ""
    return f"""<article class="card{state}" data-name="{name}" data-tags="{tag_list}"
  data-search="{search}"{remote}>
  {_thumb(item)}
  <div class="body">
    <h2><span class="emoji" aria-hidden="true">{escape(e.emoji)}</span>{escape(e.title)}</h2>
    <p class="desc">{escape(e.description) or "&nbsp;"}</p>
    {_verdict(item)}<ul class="tags" aria-label="tags">{tags}</ul>
  </div>
  <footer>{_actions(item)}</footer>
</article>"""


def _verdict(item: CatalogEnv) -> str:
    """The env's recorded validation verdict (``openenv validate --record``), if it ships one."""
    shipped = read_verdict(item.entry.path)
    if shipped is None:
        return ""
    return (
        f'<p class="verdict {shipped.verdict}" title="{escape(shipped.title)}">'
        f"{escape(shipped.label)}</p>"
    )


def _thumb(item: CatalogEnv) -> str:
    e = item.entry
    alt = escape(f"First frame of {e.title} (seed 0)")
    if not item.available:
        return (
            f'<div class="thumb placeholder"><span class="big">{escape(e.emoji)}</span>'
            '<span class="ribbon">not installed</span></div>'
        )
    link = f'<a class="thumb" href="{escape(item.path)}/web/" tabindex="-1" aria-hidden="true">'
    if item.remote is not None:  # its health is asked by the page once it has loaded
        return (
            f'{link}<span class="big">{escape(e.emoji)}</span><span class="ribbon remote">'
            'remote</span><small class="health" role="status">checking…</small></a>'
        )
    thumb = item.thumbnail
    if thumb is None or thumb.kind == "none":
        note = escape(thumb.note) if thumb else ""
        return f'{link}<span class="big">{escape(e.emoji)}</span><small>{note}</small></a>'
    if thumb.kind == "png":
        return f'{link}<img src="thumbs/{escape(e.name)}.png" alt="{alt}"></a>'
    if thumb.kind == "svg":
        return f'{link}<img src="{thumb.svg_data_url()}" alt="{alt}"></a>'
    return f'{link}<pre class="text-thumb">{escape(str(thumb.data))}</pre></a>'


def _actions(item: CatalogEnv) -> str:
    e = item.entry
    if not item.available:
        cmd = escape(item.install or "")
        reason = escape(item.reason)
        if not item.install:
            return f'<p class="reason">Unavailable: {reason}</p>'
        return (
            f'<p class="reason">Unavailable: {reason}. Install it with:</p>'
            f'<div class="install"><code>{cmd}</code>'
            f'<button type="button" class="btn ghost copy" data-copy="{cmd}">Copy</button></div>'
        )
    snippet = escape(item.client_import or "from openenv.client import GenericEnvClient")
    base = f' data-base="{escape(item.remote.remote.url)}"' if item.remote is not None else ""
    api = (
        f'<a class="btn link" href="{escape(item.remote.remote.url)}/docs" rel="noopener" '
        'title="The remote\'s HTTP API">API</a>'
        if item.remote is not None
        else f'<a class="btn link" href="envs/{escape(e.name)}/docs" title="HTTP API">API</a>'
    )
    return (
        f'<a class="btn primary" href="{escape(item.path)}/web/">Open playground'
        '<span aria-hidden="true"> →</span></a>'
        f'<a class="btn ghost present" href="{escape(item.path)}/web/?present=1" '
        "title=\"A demo that plays itself: the stage full screen, an agent (or the env's own "
        'solver, or random moves) playing episode after episode">🎬 Present</a>'
        f'<button type="button" class="btn ghost copy" data-client="{snippet}" '
        f'data-env="{escape(e.name)}"{base} title="Copy a Python snippet that connects to this '
        f'environment">Copy client</button>{api}'
    )


_ICON = (
    "data:image/svg+xml,<svg xmlns=%22http://www.w3.org/2000/svg%22 viewBox=%220 0 100 100%22>"
    "<text y=%22.9em%22 font-size=%2290%22>🕹️</text></svg>"
)
_NO_ENVS = '<p class="empty-all">No environments found in <code>envs/</code>.</p>'

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" href="{icon}">
<style>{css}</style>
</head>
<body>
<header class="hero">
  <div class="wrap">
    <p class="kicker">OpenEnv · environments in your browser</p>
    <h1>{title}</h1>
    <p class="lede">{count} environment{plural}, {available} ready to play. Open a playground to
      click through an episode, or connect a notebook to the same server with a typed client.</p>
    <div class="controls">
      <label class="search"><span class="sr">Search environments</span>
        <input id="q" type="search" placeholder="Search environments…  ( / )" autocomplete="off">
      </label>
      <div class="chips" role="group" aria-label="Filter by tag">
        <button type="button" class="chip" data-tag="" aria-pressed="true">all</button>{chips}
      </div>
    </div>
  </div>
</header>
<main class="wrap">
  <p id="status" class="status" aria-live="polite"></p>
  <section id="grid" class="grid">
{cards}
  </section>
  <p id="empty" class="empty" hidden>No environment matches. <button type="button"
    id="reset" class="btn link">Clear the filters</button></p>
  {hosted}
</main>
<footer class="site wrap">Each environment's API lives under <code>/envs/&lt;name&gt;/</code>
  (WebSocket <code>/ws</code>, <code>/reset</code>, <code>/step</code>, <code>/state</code>,
  <code>/schema</code>) and its playground under <code>/envs/&lt;name&gt;/web/</code>; a remote
  server's playground is under <code>/remote/&lt;name&gt;/web/</code>.
  <a href="api/envs">api/envs</a> · <a href="health">health</a></footer>
<div id="toast" class="toast" role="status" hidden></div>
<script>{js}</script>
</body>
</html>
"""

_CSS = """
:root { --bg:#f6f7fb; --fg:#0f172a; --muted:#64748b; --card:#fff; --line:#e2e8f0;
  --accent:#4f46e5; --accent-fg:#fff; --chip:#eef2ff; --thumb:#f1f5f9; --shadow:0 1px 2px
  rgba(15,23,42,.06), 0 4px 16px rgba(15,23,42,.06); color-scheme: light dark; }
@media (prefers-color-scheme: dark) { :root { --bg:#0a0f1e; --fg:#e2e8f0; --muted:#94a3b8;
  --card:#111827; --line:#263247; --accent:#818cf8; --accent-fg:#0b1020; --chip:#1e1b4b;
  --thumb:#0f172a; --shadow:0 1px 2px rgba(0,0,0,.4); } }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg); font:15px/1.5 system-ui, -apple-system,
  "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
.wrap { max-width:1200px; margin:0 auto; padding:0 24px; }
.hero { background:linear-gradient(135deg,#4338ca 0%,#7c3aed 55%,#db2777 100%); color:#fff;
  padding:40px 0 28px; margin-bottom:24px; }
.kicker { margin:0; opacity:.85; font-size:13px; letter-spacing:.06em; text-transform:uppercase; }
h1 { margin:4px 0 8px; font-size:clamp(28px,4vw,40px); line-height:1.15; }
.lede { margin:0 0 20px; max-width:720px; opacity:.92; }
.controls { display:flex; flex-wrap:wrap; gap:12px; align-items:center; }
.search input { width:min(420px,88vw); padding:11px 14px; border-radius:10px; border:0;
  font:inherit; color:#0f172a; background:#fff; box-shadow:0 2px 10px rgba(0,0,0,.15); }
.search input:focus { outline:3px solid rgba(255,255,255,.6); }
.chips { display:flex; flex-wrap:wrap; gap:6px; }
.chip { border:1px solid rgba(255,255,255,.45); background:rgba(255,255,255,.12); color:#fff;
  border-radius:999px; padding:5px 12px; font:inherit; font-size:13px; cursor:pointer; }
.chip:hover { background:rgba(255,255,255,.25); }
.chip[hidden] { display:none; }
.chip.more { border-style:dashed; }
.chip[aria-pressed=true] { background:#fff; color:#4338ca; border-color:#fff; font-weight:600; }
.sr { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); }
.status { color:var(--muted); margin:0 0 12px; font-size:14px; min-height:1.5em; }
.grid { display:grid; grid-template-columns:repeat(auto-fill,minmax(300px,1fr)); gap:20px; }
.card { display:flex; flex-direction:column; background:var(--card); border:1px solid var(--line);
  border-radius:14px; overflow:hidden; box-shadow:var(--shadow);
  transition:transform .15s ease, box-shadow .15s ease; }
.card:hover { transform:translateY(-2px); box-shadow:0 8px 28px rgba(15,23,42,.12); }
.card[hidden] { display:none; }
.thumb { position:relative; display:flex; align-items:center; justify-content:center;
  aspect-ratio:16/10; background:var(--thumb); border-bottom:1px solid var(--line);
  text-decoration:none; color:var(--muted); flex-direction:column; overflow:hidden; }
.thumb img { max-width:88%; max-height:88%; object-fit:contain; border-radius:6px;
  image-rendering:auto; }
.thumb .big { font-size:56px; line-height:1; }
.thumb small { padding:4px 12px; text-align:center; font-size:12px; }
.text-thumb { margin:0; padding:10px 14px; font:12px/1.35 ui-monospace, SFMono-Regular, Menlo,
  Consolas, monospace; color:var(--fg); white-space:pre-wrap; overflow-wrap:anywhere;
  overflow:hidden; max-height:100%; align-self:stretch; box-sizing:border-box; }
.placeholder { filter:grayscale(1); opacity:.7; }
.ribbon.remote { background:#4f46e5; }
.hosted { margin:32px 0 8px; color:var(--muted); font-size:14px; }
.hosted h2 { font-size:17px; color:var(--fg); margin:0 0 4px; }
.hosted ul { padding-left:18px; } .hosted li { margin:4px 0; }
.hosted strong { color:var(--fg); } .hosted .why { font-style:italic; }
.health { position:absolute; bottom:8px; left:10px; font-size:12px; color:var(--muted); }
.health.up::before { content:"● "; color:#16a34a; }
.health.down::before { content:"● "; color:#dc2626; }
.ribbon { position:absolute; top:12px; right:-34px; transform:rotate(35deg); background:#64748b;
  color:#fff; font-size:11px; padding:3px 40px; text-transform:uppercase; letter-spacing:.05em; }
.body { padding:14px 16px 4px; flex:1; }
.body h2 { margin:0 0 4px; font-size:18px; display:flex; gap:8px; align-items:center; }
.desc { margin:0 0 10px; color:var(--muted); font-size:14px; }
.tags { list-style:none; margin:0; padding:0; display:flex; flex-wrap:wrap; gap:6px; }
.tags li { background:var(--chip); color:var(--accent); border-radius:999px; padding:1px 9px;
  font-size:12px; }
.verdict { margin:0 0 8px; font-size:12px; font-weight:600; color:#15803d; }
.verdict.warn { color:#a16207; } .verdict.fail { color:#b91c1c; }
.card footer { display:flex; flex-wrap:wrap; gap:8px; align-items:center; padding:12px 16px 16px; }
.btn { display:inline-flex; align-items:center; gap:4px; border-radius:9px; padding:8px 13px;
  font:inherit; font-size:14px; cursor:pointer; text-decoration:none;
  border:1px solid transparent; }
.btn.primary { background:var(--accent); color:var(--accent-fg); font-weight:600; }
.btn.primary:hover { filter:brightness(1.08); }
.btn.ghost { background:transparent; border-color:var(--line); color:var(--fg); }
.btn.ghost:hover { border-color:var(--accent); color:var(--accent); }
.btn.link { background:none; color:var(--muted); padding:8px 4px; }
.btn.link:hover { color:var(--accent); }
.btn:focus-visible, .chip:focus-visible { outline:3px solid var(--accent); outline-offset:2px; }
.unavailable .body h2 { color:var(--muted); }
.reason { margin:0; font-size:13px; color:var(--muted); width:100%; }
.install { display:flex; gap:8px; align-items:center; width:100%; }
.install code { flex:1; background:var(--thumb); border:1px solid var(--line); border-radius:8px;
  padding:7px 9px; font-size:12.5px; overflow-x:auto; white-space:nowrap; }
.empty, .empty-all { text-align:center; color:var(--muted); padding:40px 0; }
.site { color:var(--muted); font-size:13px; padding-top:36px; padding-bottom:36px; }
.site a { color:inherit; }
code { font-family:ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.toast { position:fixed; bottom:20px; left:50%; transform:translateX(-50%); background:#0f172a;
  color:#fff; padding:9px 16px; border-radius:10px; font-size:14px; border:1px solid var(--line);
  box-shadow:0 6px 24px rgba(0,0,0,.25); }
@media (max-width:560px) { .wrap { padding:0 14px; } .hero { padding:28px 0 20px; }
  .grid { gap:14px; } }
"""

_JS = """
(() => {
  const q = document.getElementById('q');
  const cards = [...document.querySelectorAll('.card')];
  const chips = [...document.querySelectorAll('.chip[data-tag]')];
  const status = document.getElementById('status');
  const empty = document.getElementById('empty');
  let tag = '';
  function apply() {
    const words = q.value.toLowerCase().split(/\\s+/).filter(Boolean);
    let shown = 0;
    for (const card of cards) {
      const tags = card.dataset.tags.split(' ');
      const ok = (!tag || tags.includes(tag))
        && words.every(w => card.dataset.search.includes(w));
      card.hidden = !ok;
      shown += ok;
    }
    chips.forEach(c => c.setAttribute('aria-pressed', String(c.dataset.tag === tag)));
    status.textContent = shown === cards.length ? '' :
      `Showing ${shown} of ${cards.length} environments`;
    empty.hidden = shown !== 0;
  }
  q.addEventListener('input', apply);
  const more = document.getElementById('more');
  if (more) more.addEventListener('click', () => {
    document.querySelectorAll('.chip.extra').forEach(c => { c.hidden = false; });
    more.remove();
  });
  chips.forEach(c => c.addEventListener('click', () => {
    tag = (c.dataset.tag === tag) ? '' : c.dataset.tag; apply();
  }));
  document.getElementById('reset').addEventListener('click', () => {
    q.value = ''; tag = ''; apply(); q.focus();
  });
  document.addEventListener('keydown', e => {
    if (e.key === '/' && document.activeElement !== q) { e.preventDefault(); q.focus(); }
    if (e.key === 'Escape' && document.activeElement === q) { q.value = ''; apply(); }
  });
  const toast = document.getElementById('toast');
  function say(text) {
    toast.textContent = text; toast.hidden = false;
    clearTimeout(say.timer); say.timer = setTimeout(() => { toast.hidden = true; }, 1800);
  }
  function clientSnippet(btn) {
    const base = btn.dataset.base || new URL('envs/' + btn.dataset.env, document.baseURI).href;
    const imp = btn.dataset.client;
    const cls = imp.split(' ').pop();
    return `${imp}\\n\\nwith ${cls}(base_url="${base}").sync() as env:\\n`
      + `    result = env.reset(seed=0)\\n    print(result.observation)\\n`;
  }
  async function copy(text) {
    try { await navigator.clipboard.writeText(text); return true; }
    catch (err) {
      const area = document.createElement('textarea');
      area.value = text; document.body.appendChild(area); area.select();
      const ok = document.execCommand('copy'); area.remove(); return ok;
    }
  }
  document.querySelectorAll('.copy').forEach(btn => btn.addEventListener('click', async () => {
    const text = btn.dataset.client ? clientSnippet(btn) : btn.dataset.copy;
    btn.dataset.copied = text;
    say(await copy(text) ? 'Copied to the clipboard' : 'Copy failed: select the text instead');
  }));
  apply();
  // Remote servers: asked after the page is up, each on its own (a slow one delays nothing).
  document.querySelectorAll('.card[data-remote]').forEach(async card => {
    const label = card.querySelector('.health');
    try {
      const answer = await fetch('api/remotes/' + encodeURIComponent(card.dataset.name)
        + '/health');
      const health = await answer.json();
      label.className = 'health ' + (health.status === 'up' ? 'up' : 'down');
      label.textContent = health.status === 'up' ? 'up' : 'down';
      label.title = health.detail || health.url || '';
    } catch (err) {
      label.className = 'health down'; label.textContent = 'unknown';
    }
  });
})();
"""
