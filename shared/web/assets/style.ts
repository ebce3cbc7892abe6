/** /assets/app.css: the only styles the pages use (the CSP allows no inline style). */
export const APP_CSS = `
:root {
  --ink: #0f172a; --muted: #475569; --line: #e2e8f0; --soft: #f8fafc; --paper: #ffffff;
  --accent: #1d4ed8; --accent-ink: #ffffff; --brand: #38bdf8; --neutral: #64748b; --night: #111827;
  --amber: #f59e0b; --amber-soft: #fef3c7; --amber-ink: #78350f; --amber-line: #fbbf24;
  --green-soft: #dcfce7; --green-ink: #166534; --red-soft: #fee2e2; --red-ink: #991b1b;
  --blue-soft: #dbeafe; --blue-ink: #1e40af; --grey-soft: #f1f5f9;
  --radius: 10px;
  font: 15px/1.55 ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--ink); background: var(--soft);
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); text-underline-offset: 2px; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: .2rem 0 1rem; letter-spacing: -.01em; overflow-wrap: anywhere; }
h2 { font-size: 1.05rem; margin: 2rem 0 .75rem; overflow-wrap: anywhere; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88em; overflow-wrap: anywhere; }
code { background: var(--grey-soft); padding: .05rem .3rem; border-radius: 4px; }
.muted { color: var(--muted); }
.small { font-size: .88rem; }
.nowrap { white-space: nowrap; }
.lede { max-width: 46rem; color: var(--muted); }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

/* The sidebar is a grid cell as tall as the page, so its own background is the dark column. */
.app { display: grid; grid-template-columns: 14rem minmax(0, 1fr); min-height: 100vh; }
.sidebar { background: var(--night); color: #e5e7eb; padding: 1.25rem .9rem; }
.sidebar-inner { position: sticky; top: 1.25rem; }
.sidebar ul { list-style: none; margin: 1.5rem 0 0; padding: 0; }
.sidebar li a { display: flex; align-items: center; justify-content: space-between; gap: .5rem; color: #e5e7eb;
  text-decoration: none; padding: .5rem .7rem; border-radius: 8px; font-weight: 500; }
.sidebar li a:hover { background: #1f2937; }
.sidebar li a[aria-current="page"] { background: #374151; color: #ffffff; }
.brand { display: flex; align-items: center; gap: .55rem; color: #ffffff; font-weight: 700; font-size: 1.1rem;
  text-decoration: none; padding: 0 .7rem; }
.brand-bare { color: var(--ink); padding: 0; margin: 0 0 2rem; }
.brand-mark { width: 1rem; height: 1rem; border-radius: 4px; background: var(--brand); display: inline-block; }
.logout { margin-top: 2rem; padding: 0 .7rem; }
.link-button { background: none; border: 0; padding: 0; color: #cbd5e1; font: inherit; cursor: pointer; text-decoration: underline; }

main { padding: 2rem 2.5rem 4rem; max-width: 76rem; min-width: 0; }
body.bare main { max-width: 44rem; margin: 3rem auto; background: var(--paper); border: 1px solid var(--line);
  border-radius: var(--radius); padding: 2rem 2.25rem; }

.badge { background: var(--amber); color: #111827; border-radius: 999px; min-width: 1.5rem; padding: 0 .45rem;
  font-size: .8rem; font-weight: 700; text-align: center; line-height: 1.5rem; }
.pending { background: var(--amber-soft); color: var(--amber-ink); border: 1px solid var(--amber); border-radius: 999px;
  padding: .1rem .6rem; font-weight: 600; font-size: .85rem; white-space: nowrap; }
.workspace-label { background: var(--blue-soft); color: var(--blue-ink); border-radius: .3rem; padding: .05rem .45rem;
  font-size: .8rem; font-weight: 600; overflow-wrap: anywhere; }
.workspace-switcher { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: .75rem 0; color: #cbd5e1;
  font-size: .85rem; }
.workspace-switcher label { flex-basis: 100%; }
.workspace-switcher select { flex: 1 1 100%; width: 100%; min-width: 0; max-width: 100%; }
.workspace-switcher.auto [data-switch-button] { display: none; }
.workspace-manage { color: #cbd5e1; font-size: .8rem; }
.status { border-radius: 999px; padding: .1rem .6rem; font-size: .8rem; font-weight: 600; background: var(--grey-soft);
  color: #334155; vertical-align: middle; white-space: nowrap; }
.status-completed { background: var(--green-soft); color: var(--green-ink); }
.status-failed { background: var(--red-soft); color: var(--red-ink); }
.status-running { background: var(--blue-soft); color: var(--blue-ink); }
.status-waiting { background: var(--amber-soft); color: var(--amber-ink); border: 1px solid var(--amber); }

.callout { display: flex; flex-wrap: wrap; align-items: center; gap: .75rem; padding: .9rem 1.1rem;
  border-radius: var(--radius); background: var(--paper); border: 1px solid var(--line); }
.callout-amber { background: #fffbeb; border-color: var(--amber-line); border-left: 5px solid var(--amber); }
.callout-calm { color: var(--muted); }
.flash { padding: .7rem 1rem; border-radius: var(--radius); margin: 0 0 1rem; }
.flash-ok { background: var(--green-soft); color: var(--green-ink); }
.flash-error { background: var(--red-soft); color: var(--red-ink); }
.flash p { margin: 0; }
.flash .learned-rules { list-style: none; margin: .3rem 0 0; padding: 0; }
.flash .learned { margin-top: .3rem; display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.once { display: inline-flex; gap: .35rem; align-items: center; font-size: .9rem; }
.once input { width: auto; }
.field-error { color: var(--red-ink); font-weight: 600; }

.button { display: inline-flex; align-items: center; gap: .3rem; border: 1px solid #cbd5e1; background: var(--paper);
  color: var(--ink); border-radius: 8px; padding: .45rem .9rem; font: inherit; font-weight: 600; cursor: pointer;
  text-decoration: none; }
.button:hover { border-color: #94a3b8; }
.button:focus-visible, a:focus-visible, input:focus-visible, textarea:focus-visible, select:focus-visible {
  outline: 3px solid #93c5fd; outline-offset: 2px; }
.button-primary { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); }
.button-amber { background: var(--amber); border-color: var(--amber); color: #111827; margin-left: auto; }
.button-quiet { color: var(--muted); }
.button-danger { color: var(--red-ink); border-color: #fecaca; }

.tiles { list-style: none; padding: 0; margin: 0; display: grid; grid-template-columns: repeat(auto-fit, minmax(11rem, 1fr)); gap: .75rem; }
.tile { background: var(--paper); border: 1px solid var(--line); border-radius: var(--radius); padding: .9rem 1rem;
  display: flex; flex-direction: column; gap: .1rem; }
.tile-title { font-weight: 600; font-size: .9rem; }
.tile-number { font-size: 2rem; font-weight: 700; line-height: 1.2; }
.tile-sub, .tile-hint { font-size: .82rem; color: var(--muted); }

.workflows, .questions, .rules, .plain-list { list-style: none; padding: 0; margin: 0; }
.workflow, .rule, .proposal { display: flex; justify-content: space-between; align-items: center; gap: 1rem; background: var(--paper);
  border: 1px solid var(--line); border-radius: var(--radius); padding: .8rem 1rem; margin-bottom: .5rem; }
.workflow .muted { display: block; font-size: .85rem; }
.rule-old { opacity: .8; background: var(--soft); }
.rule p, .proposal p { margin: .15rem 0; }
.proposal { border-color: var(--amber); }
.proposal-actions, .workflow-actions { display: flex; gap: .5rem; }
.evidence { margin: .25rem 0 0; padding-left: 1.1rem; }
.plain-list li { padding: .45rem 0; border-bottom: 1px solid var(--line); }

.table-scroll { overflow-x: auto; max-width: 100%; }
.table-stack td[data-label="Run"] { white-space: nowrap; }
.table { width: 100%; border-collapse: collapse; background: var(--paper); border: 1px solid var(--line);
  border-radius: var(--radius); overflow: hidden; }
.table th, .table td { text-align: left; padding: .5rem .75rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.table th { font-size: .78rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); background: var(--soft); }
.trace td { font-size: .86rem; }
.trace th:nth-child(3) { width: 30%; } .trace th:nth-child(4) { width: 42%; }
.trace .detail { color: var(--muted); overflow-wrap: anywhere; max-width: 34rem; }
.trace-record { background: #fafafa; }
.kind { font-size: .75rem; font-weight: 700; border-radius: 4px; padding: .05rem .35rem; background: var(--grey-soft); color: #334155; white-space: nowrap; }
.kind-asked, .kind-deferred { background: var(--blue-soft); color: var(--blue-ink); }
.kind-completed, .kind-acted { background: var(--green-soft); color: var(--green-ink); }
.kind-failed { background: var(--red-soft); color: var(--red-ink); }
.kind-record { background: #ede9fe; color: #5b21b6; }
.kind-handoff { background: #e0f2fe; color: #075985; }
.summary { font-weight: 500; }
.run details > summary { cursor: pointer; }
.run details > summary h2 { display: inline; }
.decider { font-size: .75rem; font-weight: 700; border-radius: 4px; padding: .05rem .35rem; white-space: nowrap; }
.decider-model { background: var(--grey-soft); color: #334155; }
.decider-rule { background: #ede9fe; color: #5b21b6; }
.decider-you { background: var(--blue-soft); color: var(--blue-ink); }

.graph { list-style: none; display: flex; gap: 2.5rem; padding: 0; margin: 1.25rem 0; flex-wrap: wrap; }
.node { position: relative; min-width: 11rem; padding: .75rem 1rem; border-radius: var(--radius); background: var(--paper);
  border: 2px solid var(--line); display: flex; flex-direction: column; }
.node + .node::before { content: "→"; position: absolute; left: -1.9rem; top: 50%; transform: translateY(-50%);
  color: #94a3b8; font-size: 1.3rem; }
.node-name { font-weight: 700; }
.node-state { font-size: .85rem; color: var(--muted); }
.node-running { border-color: #60a5fa; background: #eff6ff; }
.node-done { border-color: #86efac; background: #f0fdf4; }
.node-paused { border-color: var(--amber); background: #fffbeb; }
.node-paused .node-state { color: var(--amber-ink); font-weight: 600; }
.node-failed { border-color: #fca5a5; background: #fef2f2; }

.eyebrow { display: flex; flex-wrap: wrap; gap: .6rem; align-items: center; margin: 0 0 .25rem; font-size: .9rem; }
.decision { display: grid; grid-template-columns: minmax(0, 1.6fr) minmax(18rem, 1fr); gap: 1.5rem; align-items: start; }
.mail, .reasoning, .answer { background: var(--paper); border: 1px solid var(--line); border-radius: var(--radius); padding: 1.1rem 1.25rem; }
.mail-head { border-bottom: 1px solid var(--line); margin-bottom: 1rem; }
.mail-head p { margin: 0; }
.mail-subject { margin: .35rem 0 .2rem; font-size: 1.1rem; }
.mail-body { white-space: pre-wrap; overflow-wrap: anywhere; font-size: .95rem; line-height: 1.6; }
/* A message's links are text, not links: nothing about them invites a click. */
.link, .link-url { color: inherit; text-decoration: none; cursor: default; }
.link-host { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .78rem; font-weight: 700;
  background: #e2e8f0; color: var(--ink); border-radius: 4px; padding: 0 .3rem; margin-left: .3rem; white-space: nowrap; }
.link-host-label { font-weight: 400; color: var(--muted); }
.link-warn { color: var(--red-ink); background: var(--red-soft); border-radius: 4px; padding: 0 .3rem; margin-left: .3rem; font-size: .8rem; }
.reasoning h2 { margin-top: 0; }
.verbatim { margin: .5rem 0 1rem; padding: .6rem .9rem; border-left: 4px solid #cbd5e1; background: var(--soft);
  white-space: pre-wrap; overflow-wrap: anywhere; }
.verbatim-inline { color: var(--muted); }
.gauge { margin: 0; }
.gauge svg { max-width: 100%; height: auto; }
.gauge-track { fill: #e2e8f0; }
.gauge-fill { fill: #22c55e; }
.gauge-below { fill: var(--neutral); }
.gauge-mark { stroke: var(--ink); stroke-width: 3; }
.gauge-label { fill: var(--ink); font-size: 11px; font-weight: 600; }
.gauge figcaption { font-size: .85rem; color: var(--muted); }
.answer { margin-top: 1rem; display: flex; flex-direction: column; gap: .5rem; }
textarea, input[type="text"], input[type="password"], input[type="url"], select { font: inherit; padding: .5rem .65rem;
  border: 1px solid #94a3b8; border-radius: 8px; width: 100%; background: var(--paper); color: var(--ink); }
.options { display: flex; flex-wrap: wrap; gap: .45rem; }
.drafts { display: flex; flex-direction: column; gap: .5rem; margin: .4rem 0; }
.draft { border: 1px solid var(--line); border-radius: 8px; padding: .4rem .7rem; background: var(--soft); }
.draft summary { cursor: pointer; font-weight: 600; }
.draft textarea { font-family: ui-monospace, monospace; font-size: .9rem; white-space: pre-wrap; }
pre.verbatim { white-space: pre-wrap; }
.after { margin-top: 1rem; display: flex; gap: .75rem; align-items: center; }

.question { background: var(--paper); border: 1px solid var(--line); border-left: 5px solid var(--amber);
  border-radius: var(--radius); padding: .9rem 1.1rem; margin-bottom: .75rem; }
.question p { margin: .3rem 0; }
.question-head { display: flex; gap: .6rem; align-items: center; }
.question-subject { font-weight: 600; font-size: 1.02rem; }
.inline-answer { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-top: .6rem; }
.inline-answer input[type="text"] { flex: 1 1 16rem; width: auto; }
/* Activity: runs, then sender domains, each question one compact row (50 to a page). */
.page-head { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: baseline; justify-content: space-between; }
.keys-help summary { cursor: pointer; color: var(--muted); font-size: .88rem; }
.keys-help dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .75rem; margin: .4rem 0; font-size: .88rem; }
.keys-help dd { margin: 0; }
.filters, .pick-bar { display: flex; flex-wrap: wrap; gap: .5rem .75rem; align-items: flex-end; margin: 0 0 .6rem; }
.filter { display: flex; flex-direction: column; font-size: .85rem; font-weight: 600; min-width: 0; max-width: 100%; }
.filter select, .filter input { max-width: min(16rem, 100%); width: auto; }
.pick-bar { position: sticky; top: 0; z-index: 4; background: var(--soft); padding: .35rem 0; align-items: center; }
.run-group { margin: 1rem 0 0; min-width: 0; }
.group-head { display: flex; flex-wrap: wrap; gap: .3rem .75rem; align-items: center; justify-content: space-between;
  margin: .6rem 0 .35rem; font-size: 1rem; overflow-wrap: anywhere; }
h3.group-head { font-size: .92rem; font-weight: 600; }
.group-head form { margin: 0; }
.run-group .question { display: grid; grid-template-columns: auto minmax(0, 1fr) auto; gap: .1rem .6rem; align-items: center;
  padding: .4rem .7rem; margin-bottom: .35rem; }
.run-group .question p { margin: 0; }
.run-group .question-subject { font-size: .95rem; overflow-wrap: anywhere; }
.pick { width: 1.05rem; height: 1.05rem; margin: 0; }
.q-body { min-width: 0; }
.q-meta { overflow-wrap: anywhere; }
.q-quick { display: flex; gap: .35rem; margin: 0; }
.q-quick .button { padding: .3rem .6rem; font-size: .88rem; }
.q-more { grid-column: 2 / -1; font-size: .88rem; }
.q-more summary { cursor: pointer; color: var(--muted); width: max-content; }
.q-current { outline: 3px solid var(--accent); outline-offset: 1px; }
.confirm { background: var(--paper); border: 1px solid var(--accent); border-radius: var(--radius); padding: .6rem 1rem; margin: .4rem 0 .8rem; }
.confirm h2 { margin: 0 0 .4rem; }
.pager { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; margin: 1rem 0; }
@media (max-width: 40rem) {
  /* A phone: 50 rows stay under 10,000 px (npm run bench:activity). */
  .run-group .question { grid-template-columns: auto minmax(0, 1fr); padding: .3rem .6rem; margin-bottom: .25rem; }
  .q-quick { grid-column: 2 / -1; }
}

.settings { max-width: 40rem; display: flex; flex-direction: column; gap: 1rem; align-items: flex-start; }
.settings fieldset { width: 100%; border: 1px solid var(--line); border-radius: var(--radius); background: var(--paper); padding: 1rem 1.25rem; }
.settings legend { font-weight: 700; padding: 0 .3rem; }
.settings label { display: block; font-weight: 600; margin-top: .6rem; }
.range { display: flex; align-items: center; gap: 1rem; }
.range input { flex: 1; min-width: 0; accent-color: var(--accent); }
.range output { font-weight: 700; font-size: 1.3rem; min-width: 3rem; }
.login { display: flex; flex-direction: column; gap: .6rem; align-items: flex-start; }

/* Narrow screens: the sidebar becomes a bar across the top and the page is one column. */
.talk-controls { display: flex; gap: .75rem; flex-wrap: wrap; align-items: center; margin: 1rem 0; }
.talk-button { min-width: 8rem; min-height: 3rem; font-size: 1.1rem; margin-left: 0; }
.talk-button[aria-pressed="true"] { outline: 3px solid var(--amber-ink); }
.talk-status { font-weight: 600; }
.tool-list { list-style: none; padding: 0; margin: .4rem 0 0; font-size: .8rem; }
.tool { color: var(--muted); }
.tool-running { color: #1d4ed8; }
@media (max-width: 52rem) {
  .app { grid-template-columns: minmax(0, 1fr); grid-template-rows: auto 1fr; }
  .sidebar { padding: .6rem .75rem; }
  .sidebar-inner { position: static; display: flex; flex-wrap: wrap; align-items: center; gap: .25rem .75rem; }
  .brand { padding: 0 .3rem; }
  .sidebar ul { display: flex; flex-wrap: wrap; gap: .15rem; margin: 0; }
  .sidebar li a { padding: .35rem .55rem; }
  .logout { margin: 0 0 0 auto; padding: 0 .3rem; }
  main { padding: 1.25rem 1rem 3rem; }
  body.bare main { margin: 1rem; padding: 1.25rem; }
  .decision { grid-template-columns: minmax(0, 1fr); }
  .workflow, .rule { flex-wrap: wrap; }
  .graph { gap: 1.25rem; }
  .node + .node::before { content: none; }
}
/* Artifacts: where one came from; Schedules: the next firings. */
.facts { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .3rem 1rem; margin: 0 0 1rem; }
.facts dt { font-weight: 600; color: var(--muted); }
.facts dd { margin: 0; }
.firings { margin: 0; padding-left: 1.1rem; }
[data-artifacts] td[data-label="Size"], [data-artifacts] td[data-label="Created"] { white-space: nowrap; }
/* Phones: a table of runs stacks each row into a card, each cell under its column's name. */
@media (max-width: 40rem) {
  .table-stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  .table-stack, .table-stack tbody, .table-stack tr, .table-stack td { display: block; }
  .table-stack tr { border-bottom: 1px solid var(--line); padding: .5rem 0; }
  .table-stack td { border: 0; padding: .15rem .85rem; display: grid; grid-template-columns: 5.5rem minmax(0, 1fr);
    gap: .5rem; align-items: baseline; justify-items: start; white-space: normal; }
  .table-stack td[data-label="Run"] { white-space: normal; }
  .table-stack td::before { content: attr(data-label); font-size: .75rem; font-weight: 600; text-transform: uppercase;
    letter-spacing: .04em; color: var(--muted); }
}
/* Workflows, Credentials, Workspaces: red means it cannot run; amber stays for waiting decisions only. */
.page-actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: 0 0 1rem; }
.page-actions form { margin: 0; }
.workflow-cards { list-style: none; padding: 0; margin: 0; display: grid; gap: 1rem; }
.workflow-card { background: var(--paper); border: 1px solid var(--line); border-radius: var(--radius); padding: .8rem 1rem; min-width: 0; }
.workflow-title { margin: 0 0 .5rem; display: flex; flex-wrap: wrap; gap: .5rem; align-items: baseline; }
.cannot-run { color: var(--red-ink); font-weight: 600; }
.ready { color: var(--green-ink); font-weight: 600; }
.callout-blocked { border-left: 5px solid var(--red-ink); background: var(--red-soft); }
.problems { border-left: 5px solid var(--red-ink); background: var(--red-soft); border-radius: var(--radius); padding: .6rem 1rem; margin: 0 0 1rem; }
.problems ul { margin: .3rem 0 0; padding-left: 1.2rem; }
.settings.wide { max-width: 56rem; }
.settings textarea, .settings input[type="text"], .settings input[type="password"] { width: 100%; }
.yaml-view { margin: 2rem 0; }
.yaml-view summary { cursor: pointer; font-weight: 600; }
.inline-form input[type="text"] { min-width: 0; flex: 1 1 12rem; }
.inline-form { flex-wrap: wrap; }
.credential-list { list-style: none; padding: 0; margin: 0 0 1rem; display: grid; gap: .6rem; }
.credential-list li { background: var(--paper); border: 1px solid var(--line); border-radius: var(--radius); padding: .6rem 1rem;
  display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; min-width: 0; }
/* The decision's answer buttons stay on screen while their form is (a long draft or note above them). */
.options-bar { position: sticky; bottom: 0; z-index: 5; background: var(--paper); padding: .5rem 0; }
/* Phones: the decision's answer buttons sit in a bar that stays on screen, above the message. */
@media (max-width: 40rem) {
  .options-bar { position: fixed; left: 0; right: 0; bottom: 0; z-index: 20; margin: 0; padding: .55rem .75rem;
    background: var(--paper); border-top: 1px solid var(--line); box-shadow: 0 -4px 12px rgba(15, 23, 42, .08); }
  .options-bar .button { flex: 1 1 auto; padding: .45rem .6rem; font-size: .9rem; }
  body:has(.options-bar) main { padding-bottom: 12rem; }
}
/* Chat */
.chat-layout { display: grid; grid-template-columns: minmax(10rem, 14rem) minmax(0, 1fr); gap: 1.5rem; align-items: start; }
.chat-layout > * { min-width: 0; }
.chat-list ul { list-style: none; padding: 0; margin: .8rem 0 0; }
.chat-list li a { display: block; padding: .3rem 0; overflow-wrap: anywhere; }
.chat-head { display: flex; gap: .6rem; flex-wrap: wrap; margin-bottom: 1rem; }
.inline-form { display: flex; gap: .4rem; align-items: center; }
.turns { list-style: none; padding: 0; margin: 0 0 1rem; display: grid; grid-template-columns: minmax(0, 1fr); gap: .8rem; }
.turn { border: 1px solid var(--line); border-radius: var(--radius); padding: .7rem 1rem; background: var(--paper); }
.turn-user { background: #eff6ff; margin-left: 3rem; }
.turn-text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0 0 .4rem; }
.chat-card { margin: .6rem 0 0; padding: .7rem 1rem; border: 1px solid var(--line); border-radius: var(--radius); }
.chat-card .button { margin: .2rem .3rem 0 0; }
.chat-card.question { border-left: 5px solid var(--amber); background: #fffbeb; }
/* A confirm card asks before the assistant acts: blue, since amber means a decision waiting for you. */
.chat-card.chat-confirm { border-left: 5px solid var(--accent); background: #eff6ff; }
.chat-step { font-size: .9rem; margin: .3rem 0 0; }
.chat-form { display: grid; gap: .4rem; }
.chat-form textarea { width: 100%; font: inherit; }
@media (max-width: 720px) { .chat-layout { grid-template-columns: minmax(0, 1fr); } .turn-user { margin-left: 1rem; } }
`;

/** /assets/icon.svg: the tab icon. */
export const ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect x="8" y="8" width="20" height="20" rx="4" fill="#1d4ed8"/><rect x="4" y="4" width="20" height="20" rx="4" fill="#38bdf8"/></svg>`;
