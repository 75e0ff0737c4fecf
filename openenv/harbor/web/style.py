"""The Harbor UI's styles (the playground's colour tokens, ``--oe-*``, so dark mode follows) and
the scripts that turn a click on a drawn card, file or run row into the component's select
event (its ``data-pick`` as the value, index ``PICK``) and a run's tick box into one of index
``TICK`` (the run id as the value, ``selected``: ticked or not). Gradio patches a redrawn HTML
into the page rather than replacing it, so a box's ticked state follows its drawn ``checked``
(the server's) after each redraw; a tick beyond ``data-max-ticks`` is undone at once."""

PICK, TICK = 0, 1  # a select event's index: a row opened, a run (un)ticked to compare

CSS = """
#hb-root { gap: 10px; }
.hb-muted { color: var(--oe-muted); font-weight: 400; }
.hb-empty { color: var(--oe-muted); font-style: italic; margin: 6px 0; }
.hb-count { color: var(--oe-muted); font-size: 13px; margin: 0 0 6px; }
.hb-cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr));
  gap: 10px; }
.hb-card, .hb-runrow, .hb-file { font: inherit; color: var(--oe-text); text-align: left;
  cursor: pointer; background: var(--oe-panel); border: 1px solid var(--oe-line);
  border-radius: 10px; text-align: left !important; justify-content: flex-start; }
.hb-card { display: flex; flex-direction: column; align-items: flex-start; gap: 6px;
  padding: 10px 12px; min-width: 0; }
.hb-card:hover, .hb-runrow:hover, .hb-file:hover { border-color: var(--oe-accent-line); }
.hb-card, .hb-runrow, .hb-file { background: var(--oe-panel) !important; }
.hb-card.hb-chosen, .hb-runrow.hb-chosen { border-color: var(--oe-accent-line) !important;
  background: var(--oe-accent-soft) !important; box-shadow: 0 0 0 1px var(--oe-accent-line); }
.hb-card-name { font-weight: 700; color: var(--oe-ink); overflow-wrap: anywhere; }
.hb-card-split { font-size: 12px; font-weight: 400; color: var(--oe-muted); }
.hb-card-text { font-size: 13px; font-weight: 400; color: var(--oe-text); overflow-wrap: anywhere; }
.hb-card-tags { display: flex; flex-wrap: wrap; gap: 4px; }
.hb-chip { font-size: 12px; padding: 2px 8px; border-radius: 999px; background: var(--oe-head);
  color: var(--oe-ink); }
.hb-task h3 { margin: 0 0 6px; color: var(--oe-ink); }
.hb-task h4, .hb-run h4, .hb-setup h4, #hb-files-box h4, #hb-task-runs h4 { margin: 14px 0 6px;
  color: var(--oe-ink); }
.hb-instruction { background: var(--oe-panel); border: 1px solid var(--oe-line); border-radius: 8px;
  padding: 4px 12px; overflow-wrap: anywhere; }
.hb-facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 12px;
  margin: 8px 0; font-size: 14px; }
.hb-facts dt { color: var(--oe-muted); }
.hb-facts dd { margin: 0; overflow-wrap: anywhere; }
.hb-settings { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr));
  gap: 8px; }
.hb-setting { border: 1px solid var(--oe-line); border-radius: 8px; padding: 4px 10px; }
.hb-setting h5 { margin: 4px 0; }
.hb-files, .hb-runs { display: flex; flex-direction: column; gap: 6px; }
.hb-file { padding: 6px 10px; }
.hb-runrow { display: grid;
  grid-template-columns: max-content minmax(0, 1fr) minmax(0, 1.4fr) max-content;
  gap: 10px; align-items: center; padding: 8px 10px; }
.hb-runrow > span { overflow-wrap: anywhere; }
.hb-status { font-weight: 700; white-space: nowrap; }
.hb-ok { color: var(--oe-good); }
.hb-failed { color: var(--oe-bad); }
.hb-running, .hb-queued { color: var(--oe-accent-text); }
.hb-cancelled { color: var(--oe-muted); }
.hb-reward { white-space: nowrap; }
.hb-run-head { display: flex; flex-wrap: wrap; gap: 14px; align-items: center; font-size: 18px; }
.hb-id { font-size: 12px; color: var(--oe-muted); }
.hb-reason { background: var(--oe-bad-soft); border: 1px solid var(--oe-bad-line);
  color: var(--oe-bad-text); border-radius: 8px; padding: 8px 12px; white-space: pre-wrap;
  overflow-wrap: anywhere; }
.hb-run[data-status="ok"] .hb-reason { background: var(--oe-panel); color: var(--oe-text);
  border-color: var(--oe-line); }
.hb-timeline { padding: 0; margin: 10px 0; display: flex; flex-direction: column;
  gap: 8px; }
.hb-step { border-left: 3px solid var(--oe-accent-line); padding: 4px 0 4px 12px; }
.hb-step-title { font-weight: 700; color: var(--oe-ink); }
.hb-role { font-size: 12px; text-transform: uppercase; letter-spacing: .04em;
  color: var(--oe-muted);
  margin-top: 6px; }
.hb-pre { white-space: pre-wrap; overflow-wrap: anywhere; max-height: 360px; overflow: auto;
  background: var(--oe-panel); border: 1px solid var(--oe-line); border-radius: 6px;
  padding: 6px 10px; margin: 2px 0; font-size: 13px; }
.hb-input { border-left: 3px solid var(--oe-run-a); }
.hb-output { border-left: 3px solid var(--oe-run-b); }
.hb-thinking { font-style: italic; }
.hb-tool { margin-top: 4px; }
.hb-more, .hb-live { color: var(--oe-muted); padding-left: 15px; }
.hb-checks { padding: 0; margin: 0; display: flex; flex-direction: column;
  gap: 3px; }
.hb-pass { color: var(--oe-good); }
.hb-fail { color: var(--oe-bad); }
.hb-info { color: var(--oe-muted); }
.hb-checks span { color: var(--oe-text); font-weight: 400; }
.hb-label { font-weight: 700; padding: 2px 8px; border-radius: 6px;
  background: var(--oe-accent-soft);
  color: var(--oe-accent-text); }
.hb-table { border: 0 !important; border-collapse: collapse; width: 100%; font-size: 14px;
  margin: 0 !important; }
.hb-table td { border: 0 !important; border-top: 1px solid var(--oe-line) !important;
  padding: 5px 8px !important; vertical-align: top; overflow-wrap: anywhere; }
.hb-table td:first-child { width: 28%; }
.hb-msg .oe-error, .hb-msg .oe-ok { display: block; padding: 8px 12px; border-radius: 8px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
.hb-msg .oe-error { background: var(--oe-bad-soft); border: 1px solid var(--oe-bad-line);
  color: var(--oe-bad-text); font-weight: 600; }
.hb-msg .oe-ok { color: var(--oe-good); }
.hb-links { display: flex; flex-wrap: wrap; gap: 8px; }
.hb-links a { font-size: 14px; padding: 6px 12px; text-decoration: none; }
.hb-note { font-size: 13px; color: var(--oe-muted); margin: 0; }
.hb-runitem { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 6px; }
.hb-tick { display: flex; align-items: center; justify-content: center; padding: 0 10px;
  border: 1px solid var(--oe-line); border-radius: 10px; background: var(--oe-panel);
  cursor: pointer; }
.hb-tick input { width: 18px; height: 18px; margin: 0; cursor: pointer;
  accent-color: var(--oe-accent-text); }
.hb-runitem:has(input:checked) .hb-tick { border-color: var(--oe-accent-line);
  background: var(--oe-accent-soft); }
.hb-ticks { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 10px; }
.hb-linkbtn { font: inherit; font-size: 13px !important; font-weight: 400 !important;
  line-height: 1.4 !important; cursor: pointer; padding: 1px 8px !important; min-height: 0;
  border-radius: 6px !important; border: 1px solid var(--oe-accent-line) !important;
  background: var(--oe-accent-soft) !important; color: var(--oe-accent-text) !important;
  white-space: nowrap; box-shadow: none !important; }
.hb-linkbtn:hover { border-color: var(--oe-ink) !important; }
.hb-cmp-note { color: var(--oe-bad-text); background: var(--oe-bad-soft);
  border: 1px solid var(--oe-bad-line); border-radius: 6px; padding: 2px 8px; font-weight: 600; }
p.hb-cmp-note { margin: 6px 0; padding: 6px 10px; }
#hb-rn-compare:has(.prose:empty) { display: none; }
.hb-cmp-box h4 { margin: 8px 0 6px; color: var(--oe-ink); display: flex; flex-wrap: wrap;
  align-items: center; gap: 4px 10px; }
.hb-cmp-hint { display: none; font-size: 12px; color: var(--oe-muted); margin: 0 0 4px; }
.hb-cmp-scroll { contain: inline-size; overflow-x: auto; border: 1px solid var(--oe-line);
  border-radius: 10px; }
.hb-cmp { border-collapse: separate; border-spacing: 0; width: 100%; table-layout: fixed;
  font-size: 13px; margin: 0 !important; border: 0 !important;
  min-width: calc(120px + var(--hb-cmp-runs) * 240px); }
.hb-cmp tbody, .hb-cmp tr { border: 0 !important; }
.hb-cmp th, .hb-cmp td { border: 0 !important; border-top: 1px solid var(--oe-line) !important;
  padding: 5px 8px !important; vertical-align: top; text-align: left; overflow-wrap: anywhere;
  background: var(--oe-page); }
.hb-cmp tr:first-child > * { border-top: 0 !important; }
.hb-cmp th[scope="row"] { position: sticky; left: 0; z-index: 1; width: 120px;
  color: var(--oe-muted); font-weight: 600; background: var(--oe-panel);
  border-right: 1px solid var(--oe-line) !important; overflow-wrap: break-word; }
.hb-cmp-head th[scope="col"] { background: var(--oe-panel); }
.hb-cmp-top { display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: center; }
.hb-cmp-acts { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 4px; }
.hb-cmp-diff > td { background: var(--oe-accent-soft); }
.hb-cmp-mark { color: var(--oe-accent-text); font-weight: 700; }
.hb-cmp-best { color: var(--oe-good); font-weight: 700; }
.hb-cmp-reason { font-size: 12px; color: var(--oe-muted); margin-top: 2px;
  white-space: pre-wrap; }
.hb-cmp-part > * { background: var(--oe-head) !important; color: var(--oe-ink); font-weight: 600; }
.hb-cmp-fork > th[scope="row"] { color: var(--oe-accent-text);
  box-shadow: inset 3px 0 0 var(--oe-accent-text); }
.hb-cmp-detail { color: var(--oe-muted); font-size: 12px; }
.hb-cmp-pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; font-size: 12px;
  font-family: var(--font-mono, monospace); background: transparent; border: 0; padding: 0; }
#hb-viewer { position: fixed !important; inset: 0; z-index: 1000; background: var(--oe-page);
  padding: 14px 18px; overflow: auto; margin: 0 !important; max-width: none !important; }
#hb-viewer-title { font-weight: 700; font-family: var(--font-mono, monospace);
  overflow-wrap: anywhere; }
#hb-hub-msg:has(.prose:empty) { display: none; }
.hb-hub-rows { display: flex; flex-direction: column; gap: 6px; }
.hb-hub-row { display: grid; grid-template-columns: minmax(0, 1.2fr) minmax(0, 2fr) max-content;
  gap: 10px; align-items: center; padding: 6px 10px; border: 1px solid var(--oe-line);
  border-radius: 8px; background: var(--oe-panel); font-size: 14px; }
.hb-hub-row > span { overflow-wrap: anywhere; min-width: 0; }
.hb-hub-row .hb-reason { margin: 0; padding: 4px 8px; }
.hb-hub-row progress { width: 140px; vertical-align: middle; }
.hb-hub-state { display: flex; gap: 6px; justify-content: flex-end; }
.hb-hub-btn { font: inherit; font-size: 13px; cursor: pointer; padding: 4px 12px;
  border-radius: 8px; border: 1px solid var(--oe-accent-line); background: var(--oe-accent-soft);
  color: var(--oe-accent-text); white-space: nowrap; }
.hb-hub-remove { border-color: var(--oe-line); background: var(--oe-panel); color: var(--oe-text); }
.hb-hub-btn:hover { border-color: var(--oe-ink); }
@media (max-width: 640px) {
  .hb-hub-row { grid-template-columns: minmax(0, 1fr); }
  .hb-hub-state { justify-content: flex-start; }
  .hb-runrow { grid-template-columns: max-content minmax(0, 1fr); }
  .hb-runrow .hb-muted { grid-column: 1 / -1; }
  .hb-cards { grid-template-columns: minmax(0, 1fr); }
  .hb-cmp-hint { display: block; }
  .hb-cmp th[scope="row"] { width: 86px; }
  .hb-cmp { min-width: calc(86px + var(--hb-cmp-runs) * 190px); }
}
"""

PICK_JS = """
element.addEventListener('click', (event) => {
  const hit = event.target.closest('[data-pick]');
  if (!hit || !element.contains(hit)) return;
  trigger('select', {index: 0, value: hit.dataset.pick});
  const next = document.getElementById(element.dataset.scrollTo || '');
  if (next && (element.dataset.scrollAlways || window.innerWidth < 700)) {
    next.scrollIntoView({behavior: 'smooth'});
  }
});
"""

TICK_JS = """
const ticks = () => element.querySelectorAll('input[data-tick]');
element.addEventListener('change', (event) => {
  const box = event.target.closest('input[data-tick]');
  if (!box || !element.contains(box)) return;
  const most = Number(element.querySelector('[data-max-ticks]')?.dataset.maxTicks || 0);
  const refused = box.checked && most && [...ticks()].filter((b) => b.checked).length > most;
  if (refused) box.checked = false;  // at once; the server's note says why
  trigger('select', {index: 1, value: box.dataset.tick, selected: box.checked || !!refused});
});
watch('value', () => ticks().forEach((box) => { box.checked = box.hasAttribute('checked'); }));
element.addEventListener('click', (event) => {
  const off = event.target.closest('[data-untick]');
  if (off && element.contains(off)) {
    trigger('select', {index: 1, value: off.dataset.untick, selected: false});
    return;
  }
  const go = event.target.closest('[data-goto]');
  const to = go && element.contains(go) && document.getElementById(go.dataset.goto);
  if (to) to.scrollIntoView({behavior: 'smooth'});
});
"""  # index 1: TICK


def pick_js(scroll_to: str, ticks: bool = False, always: bool = False) -> str:
    """:data:`PICK_JS`, and on a narrow screen (where the columns stack; on any with
    ``always``) the element ``scroll_to`` (an id) scrolled into view: what the click opened,
    drawn below. ``ticks``: with :data:`TICK_JS` (tick boxes, untick and go-to buttons)."""
    scroll = f"element.dataset.scrollTo = {scroll_to!r};"
    if always:
        scroll += "element.dataset.scrollAlways = '1';"
    return scroll + PICK_JS + (TICK_JS if ticks else "")
