/**
 * The pages' only scripts, served from /assets (the CSP allows no inline script).
 * They write text with `textContent` only and fetch nothing but this origin.
 */

/**
 * /assets/inspector.js: fills the run inspector in live from `/runs/:id/events`.
 * Node and tool events are painted in place; on the pause, an answer, the resume
 * and the end it re-reads the page and swaps the main column and the sidebar (so
 * the questions, the amber badge and the counts are the server's), then listens on
 * from where that page left off. Where the feed is not in the serving process
 * (`data-live="poll"`, e.g. on Lambda) it re-reads the page every few seconds instead.
 */
export const INSPECTOR_JS = `'use strict';
(function () {
  var KINDS = ['started', 'fetched', 'acted', 'deferred', 'handoff', 'memory', 'asked', 'decided', 'resumed',
    'completed', 'failed', 'node_start', 'node_end', 'tool_start', 'tool_end'];
  var STATE_TEXT = { idle: 'not started', running: 'running\\u2026', done: 'done', paused: 'paused: waiting for you',
    failed: 'failed', skipped: 'skipped', unknown: '\\u2014' };
  var source = null;
  var openTools = {};
  var refreshTimer = null;
  var progressTimer = null;
  var TRACE_ROWS = 100; // a page of the trace: live rows beyond it are on the later pages

  function root() { return document.querySelector('[data-run-id]'); }

  function offset(at) {
    var start = Date.parse(root().getAttribute('data-started'));
    var ms = Date.parse(at) - start;
    return isFinite(ms) ? '+' + (Math.max(0, ms) / 1000).toFixed(3) + ' s' : '';
  }

  function cell(row, text, className) {
    var td = document.createElement('td');
    if (className) td.className = className;
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function addRow(event, kind, text, detail, ms) {
    var body = document.querySelector('[data-trace]');
    if (!body || body.getAttribute('data-trace-last') === 'no' || body.children.length >= TRACE_ROWS) return null;
    var row = document.createElement('tr');
    row.className = 'trace-feed';
    cell(row, offset(event.at), 'mono nowrap');
    var k = document.createElement('span');
    k.className = 'kind kind-' + kind.replace(/\\s+/g, '-');
    k.textContent = kind;
    cell(row, '').appendChild(k);
    cell(row, text);
    cell(row, detail, 'detail');
    cell(row, ms == null ? '' : ms + ' ms', 'mono nowrap');
    body.appendChild(row);
    return row;
  }

  function setNode(name, state, ms) {
    var node = document.querySelector('[data-node="' + name + '"]');
    if (!node) return;
    node.className = 'node node-' + state;
    node.querySelector('[data-node-state]').textContent = STATE_TEXT[state] + (ms == null ? '' : ' \\u00b7 ' + ms + ' ms');
  }

  function setStatus(status) {
    var pill = document.querySelector('[data-run-status]');
    if (!pill) return;
    pill.textContent = status;
    pill.className = 'status status-' + status;
  }

  function paint(kind, event) {
    var data = event.data || {};
    if (kind === 'tool_start') {
      openTools[data.tool] = addRow(event, 'tool', data.tool, 'running', null);
      return;
    }
    if (kind === 'tool_end') {
      var row = openTools[data.tool];
      delete openTools[data.tool];
      if (row) {
        row.children[3].textContent = 'done';
        row.children[4].textContent = typeof data.ms === 'number' ? data.ms + ' ms' : '';
      } else addRow(event, 'tool', data.tool, 'done', data.ms);
      return;
    }
    var detail = data.error || data.reason || data.action || '';
    addRow(event, kind.replace('_', ' '), event.text, detail, typeof data.ms === 'number' ? data.ms : null);
    if (kind === 'node_start') setNode(data.node, 'running', null);
    if (kind === 'node_end') setNode(data.node, data.error ? 'failed' : 'done', data.ms);
    if (kind === 'asked') { setNode('executor', 'paused', null); setStatus('waiting'); refreshSoon(); }
    if (kind === 'decided') refreshSoon();
    if (kind === 'resumed') { setNode('executor', 'running', null); setStatus('running'); }
    if (kind === 'completed') { setStatus(data.status || 'completed'); stop(); refreshSoon(); }
    if (kind === 'failed' && /^Run failed/.test(event.text)) { setStatus('failed'); stop(); refreshSoon(); }
  }

  function stop() {
    if (source) source.close();
    source = null;
    if (progressTimer) clearTimeout(progressTimer);
    progressTimer = null;
  }

  // While the run runs, /runs/:id/progress says where it is: the nodes and the counts move
  // without the page growing; a change of status re-reads the page (its lists, its questions).
  function poll() {
    var r = root();
    if (!r) return;
    fetch('/runs/' + encodeURIComponent(r.getAttribute('data-run-id')) + '/progress',
      { credentials: 'same-origin', headers: { Accept: 'application/json' } })
      .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
      .then(function (p) {
        Object.keys(p.nodes || {}).forEach(function (name) {
          var node = document.querySelector('[data-node="' + name + '"]');
          if (node && node.className !== 'node node-' + p.nodes[name]) setNode(name, p.nodes[name], null);
        });
        var summary = document.querySelector('[data-run-summary]');
        if (summary && !p.finished) summary.textContent = p.summary;
        document.documentElement.setAttribute('data-progress', String(Date.now()));
        if (p.status !== r.getAttribute('data-status')) { setStatus(p.status); refreshSoon(); return; }
        progressTimer = setTimeout(poll, 2000);
      })
      .catch(function () { progressTimer = setTimeout(poll, 4000); });
  }

  function connect() {
    var r = root();
    var mode = r ? r.getAttribute('data-live') : 'off';
    if (mode === 'sse' || mode === 'poll') progressTimer = setTimeout(poll, 1000);
    if (mode !== 'sse') return; // 'poll': the feed lives elsewhere; progress says when to re-read
    var url = '/runs/' + encodeURIComponent(r.getAttribute('data-run-id')) + '/events?after=' +
      encodeURIComponent(r.getAttribute('data-after') || '0');
    source = new EventSource(url);
    KINDS.forEach(function (kind) {
      source.addEventListener(kind, function (message) {
        try { paint(kind, JSON.parse(message.data)); } catch (error) { /* a malformed event is skipped */ }
      });
    });
  }

  function swap(id, doc) {
    var fresh = doc.getElementById(id);
    var current = document.getElementById(id);
    if (fresh && current) current.replaceWith(document.adoptNode(fresh));
  }

  function refresh() {
    stop();
    openTools = {};
    fetch(location.pathname, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (text) {
        var doc = new DOMParser().parseFromString(text, 'text/html');
        swap('main', doc);
        swap('nav', doc);
        document.documentElement.setAttribute('data-refreshed', String(Date.now()));
      })
      .catch(function () { /* keep what is shown; the next event tries again */ })
      .then(connect);
  }

  function refreshSoon() {
    if (refreshTimer) clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refresh, 120);
  }

  connect();
})();
`;

/** /assets/settings.js: shows the slider's value as it moves. */
export const SETTINGS_JS = `'use strict';
(function () {
  var input = document.getElementById('confidence_threshold');
  var output = document.querySelector('[data-range-output]');
  if (!input || !output) return;
  input.addEventListener('input', function () { output.textContent = Number(input.value).toFixed(2); });
})();
`;

/**
 * The Chat page's live turn: while the form posts (the page reloads when the turn is done),
 * the chat's feed streams over SSE into a live bubble: the text as it is written, each
 * handoff and tool call as it happens. Without JavaScript the form simply posts and reloads.
 */
export const CHAT_JS = `'use strict';
(function () {
  var root = document.querySelector('[data-chat-id]');
  if (!root || !root.getAttribute('data-chat-id') || root.getAttribute('data-live') !== 'sse') return;
  var bubble = document.querySelector('[data-live-turn]');
  var text = document.querySelector('[data-live-text]');
  var steps = document.querySelector('[data-live-steps]');
  var url = '/chat/' + encodeURIComponent(root.getAttribute('data-chat-id')) + '/events?after=' +
    encodeURIComponent(root.getAttribute('data-after') || '0');
  var source = new EventSource(url);
  function step(line) {
    var li = document.createElement('li');
    li.textContent = line;
    steps.appendChild(li);
    bubble.hidden = false;
  }
  source.addEventListener('delta', function (m) {
    text.textContent += JSON.parse(m.data).text;
    bubble.hidden = false;
  });
  source.addEventListener('handoff', function (m) { step('\\u21e2 ' + JSON.parse(m.data).text); });
  source.addEventListener('tool_start', function (m) { step('\\u2026 ' + JSON.parse(m.data).text); });
  source.addEventListener('workflow_saved', function (m) { step(JSON.parse(m.data).text); });
  source.addEventListener('run_started', function (m) { step(JSON.parse(m.data).text); });
  source.addEventListener('asked', function (m) { step(JSON.parse(m.data).text); });
  source.addEventListener('done', function () { root.setAttribute('data-done', String(Date.now())); });
  var form = document.querySelector('[data-chat-form]');
  if (form) form.addEventListener('submit', function () {
    text.textContent = '';
    steps.textContent = '';
    bubble.hidden = false;
    root.setAttribute('data-sending', 'true');
  });
})();
`;
