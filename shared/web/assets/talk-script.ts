/**
 * The Talk page's scripts, served from /assets (the CSP allows no inline script).
 * talk-worklet.js is the AudioWorklet that hands the microphone's 16 kHz samples to
 * talk.js, which frames them as WAV (no MediaRecorder codecs) and sends them to the
 * speech API with the page's CSRF token. Text is written with `textContent` only.
 */

/** /assets/talk-worklet.js: passes each block of microphone samples to the page. */
export const TALK_WORKLET_JS = `'use strict';
class PcmRecorder extends AudioWorkletProcessor {
  process(inputs) {
    var channel = inputs[0] && inputs[0][0];
    if (channel && channel.length) this.port.postMessage(channel.slice(0));
    return true;
  }
}
registerProcessor('pcm-recorder', PcmRecorder);
`;

/** /assets/talk.js: push-to-talk, reading decisions aloud, answering, the assistant, the run graph. */
export const TALK_JS = `'use strict';
(function () {
  var root = document.querySelector('[data-talk]');
  if (!root) return;
  var RATE = 16000;
  var csrf = root.getAttribute('data-csrf');
  var browserEngines = root.getAttribute('data-provider') === 'browser';
  var button = root.querySelector('[data-talk-button]');
  var statusLine = root.querySelector('[data-talk-status]');
  var heardLine = root.querySelector('[data-talk-heard]');
  var recording = null;
  var confirmFor = null;
  var chatId = null;
  var source = null;
  var player = null;

  function say(text) { statusLine.textContent = text; }
  function current() { return root.querySelector('[data-decision]:not([hidden])'); }
  function cards() { return Array.prototype.slice.call(root.querySelectorAll('[data-decision]')); }

  function api(path, options) {
    options = options || {};
    options.credentials = 'same-origin';
    options.headers = Object.assign({ 'X-CSRF-Token': csrf }, options.headers || {});
    // Through /ui/api: on AWS the gateway admits only signed callers to /api (shared/web/page-api.ts).
    return fetch('/ui' + path, options).then(function (response) {
      var type = response.headers.get('Content-Type') || '';
      if (!type.startsWith('application/json')) return { status: response.status, body: null, response: response };
      return response.json().then(function (body) { return { status: response.status, body: body }; });
    });
  }

  // ---- speaking: played through Web Audio (the CSP allows no media element sources)
  var output = null;
  function hush() {
    if (player) { try { player.stop(); } catch (error) { /* already stopped */ } player = null; }
    if (window.speechSynthesis) window.speechSynthesis.cancel();
  }
  function speak(text) {
    if (!text) return Promise.resolve();
    hush();
    if (browserEngines && window.speechSynthesis) {
      window.speechSynthesis.speak(new SpeechSynthesisUtterance(text));
      return Promise.resolve();
    }
    return api('/api/speech/speak', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: text.slice(0, 3000) }) })
      .then(function (r) {
        if (r.status !== 200) { say((r.body && r.body.error) || 'Speech is not available.'); return; }
        return r.response.arrayBuffer().then(function (bytes) {
          output = output || new AudioContext();
          if (output.state === 'suspended') output.resume();
          return output.decodeAudioData(bytes);
        }).then(function (audio) {
          return new Promise(function (resolve) {
            var node = output.createBufferSource();
            node.buffer = audio;
            node.connect(output.destination);
            node.onended = resolve;
            player = node;
            root.setAttribute('data-spoke', String(Date.now()));
            node.start();
          });
        });
      })
      .catch(function () { say('Speech is not available.'); });
  }

  function readCurrent() {
    var card = current();
    if (!card) { speak('Nothing is waiting for you.'); return; }
    speak('From ' + card.getAttribute('data-sender') + ': ' + card.getAttribute('data-subject') +
      '. The agent suggests ' + card.getAttribute('data-suggested') + ': ' + card.getAttribute('data-reasoning') +
      '. ' + (card.getAttribute('data-drafted') ? card.getAttribute('data-drafted') + ' ' : '') +
      'You can say: ' + card.getAttribute('data-options') + '.');
  }

  // ---- the drafted words: the card's text boxes, sent with the answer; what is in them is what is saved
  function wordBoxes(card) {
    return Array.prototype.slice.call(card.querySelectorAll('textarea[name], input[name]'))
      .filter(function (box) { return /^(body|title):/.test(box.name); });
  }
  function words(card) {
    var fields = {};
    wordBoxes(card).forEach(function (box) { fields[box.name] = box.value; });
    return fields;
  }
  function edits(card, answer) {
    var chosen = answer === 'approve_suggested' ? card.getAttribute('data-suggested-action') : answer;
    var out = {};
    wordBoxes(card).forEach(function (box) {
      var parts = box.name.split(':');
      if (parts[1] === chosen && box.value !== box.defaultValue) out[parts[0]] = box.value;
    });
    return out;
  }

  // ---- recording: an AudioWorklet at 16 kHz, framed as WAV here
  function startRecording() {
    var state = { chunks: [], ready: null, stream: null, context: null };
    state.ready = navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: false,
      noiseSuppression: false, autoGainControl: false } })
      .then(function (stream) {
        state.stream = stream;
        state.context = new AudioContext({ sampleRate: RATE });
        return state.context.audioWorklet.addModule('/assets/talk-worklet.js');
      })
      .then(function () {
        var input = state.context.createMediaStreamSource(state.stream);
        var node = new AudioWorkletNode(state.context, 'pcm-recorder');
        node.port.onmessage = function (event) { state.chunks.push(event.data); };
        input.connect(node);
        node.connect(state.context.destination);
        root.setAttribute('data-recording', 'true');
      });
    return state;
  }

  function wav(chunks) {
    var length = chunks.reduce(function (n, c) { return n + c.length; }, 0);
    var view = new DataView(new ArrayBuffer(44 + length * 2));
    function text(at, s) { for (var i = 0; i < s.length; i++) view.setUint8(at + i, s.charCodeAt(i)); }
    text(0, 'RIFF'); view.setUint32(4, 36 + length * 2, true); text(8, 'WAVEfmt ');
    view.setUint32(16, 16, true); view.setUint16(20, 1, true); view.setUint16(22, 1, true);
    view.setUint32(24, RATE, true); view.setUint32(28, RATE * 2, true); view.setUint16(32, 2, true);
    view.setUint16(34, 16, true); text(36, 'data'); view.setUint32(40, length * 2, true);
    var at = 44;
    chunks.forEach(function (chunk) {
      for (var i = 0; i < chunk.length; i++, at += 2) {
        var s = Math.max(-1, Math.min(1, chunk[i]));
        view.setInt16(at, s < 0 ? s * 0x8000 : s * 0x7fff, true);
      }
    });
    return new Blob([view.buffer], { type: 'audio/wav' });
  }

  var Recognition = window.SpeechRecognition || window.webkitSpeechRecognition;
  function pressBrowser() {
    var state = { engine: new Recognition(), text: '' };
    state.engine.lang = 'en-US';
    state.engine.interimResults = false;
    state.engine.onresult = function (event) {
      for (var i = 0; i < event.results.length; i++) state.text += event.results[i][0].transcript + ' ';
    };
    state.engine.onend = function () {
      var text = state.text.trim();
      if (!text) return reply('I did not catch that; nothing was done.');
      heardLine.textContent = 'Heard: \u201c' + text + '\u201d';
      if (current()) return send({ transcript: text }, 'application/json');
      return toAssistant(text);
    };
    state.engine.onerror = function (event) { say('The browser could not listen (' + event.error + ').'); };
    state.engine.start();
    state.stop = function () { state.engine.stop(); };
    return state;
  }

  function press() {
    if (recording) return;
    hush();
    if (browserEngines && Recognition) {
      button.setAttribute('aria-pressed', 'true');
      say('Listening\u2026 release to send.');
      recording = pressBrowser();
      return;
    }
    button.setAttribute('aria-pressed', 'true');
    say('Listening\\u2026 release to send.');
    recording = startRecording();
    recording.ready.catch(function () { say('No microphone: allow it for this page, or answer with the buttons.'); });
  }

  function release() {
    if (!recording) return;
    var state = recording;
    recording = null;
    button.setAttribute('aria-pressed', 'false');
    if (state.stop) { say('Thinking\u2026'); state.stop(); return; }
    state.ready.then(function () {
      state.stream.getTracks().forEach(function (t) { t.stop(); });
      return state.context.close();
    }).then(function () {
      root.removeAttribute('data-recording');
      say('Thinking\\u2026');
      return send(wav(state.chunks), 'audio/wav');
    }).catch(function () { /* said above */ });
  }

  button.addEventListener('pointerdown', function (e) { e.preventDefault(); button.focus(); press(); });
  ['pointerup', 'pointercancel', 'pointerleave'].forEach(function (n) { button.addEventListener(n, release); });
  button.addEventListener('keydown', function (e) {
    if (e.key !== ' ' && e.key !== 'Enter') return;
    e.preventDefault();
    if (!e.repeat) press();
  });
  button.addEventListener('keyup', function (e) { if (e.key === ' ' || e.key === 'Enter') { e.preventDefault(); release(); } });
  button.addEventListener('click', function (e) { e.preventDefault(); });

  // ---- what was said
  function send(said, type) {
    var card = current();
    if (!card) return toAssistant(said && said.transcript !== undefined ? said.transcript : said);
    var path = '/api/decisions/' + encodeURIComponent(card.getAttribute('data-decision')) + '/voice' +
      (confirmFor ? '?confirm=' + encodeURIComponent(confirmFor) : '');
    var request;
    if (type === 'application/json') {
      request = { method: 'POST', headers: { 'Content-Type': type }, body: JSON.stringify(Object.assign({}, words(card), said)) };
    } else if (wordBoxes(card).length > 0) {
      // A recording with the drafts beside it: the browser sets the multipart boundary.
      var form = new FormData();
      form.append('audio', said, 'said.wav');
      var fields = words(card);
      Object.keys(fields).forEach(function (name) { form.append(name, fields[name]); });
      request = { method: 'POST', body: form };
    } else {
      request = { method: 'POST', headers: { 'Content-Type': type }, body: said };
    }
    return api(path, request).then(function (r) {
      if (r.status !== 200) { confirmFor = null; return reply((r.body && r.body.error) || 'That did not work; nothing was done.'); }
      var result = r.body;
      heardLine.textContent = result.transcript ? 'Heard: \\u201c' + result.transcript + '\\u201d' : 'Heard nothing I know.';
      root.setAttribute('data-intent', result.intent);
      confirmFor = result.confirm ? result.intent : null;
      if (result.action) return answered(card, result.message);
      if (result.intent === 'why') return reply(card.getAttribute('data-reasoning'));
      if (result.intent === 'next') { move(1); return readCurrent(); }
      if (result.intent === 'stop') { hush(); return say(result.message); }
      return reply(result.message);
    });
  }

  function reply(text) { say(text); return speak(text); }

  function answered(card, message) {
    card.remove();
    confirmFor = null;
    var left = cards();
    var count = root.querySelector('[data-talk-count]');
    count.textContent = left.length === 0 ? 'Nothing is waiting for you.' : left.length + (left.length === 1 ? ' decision' : ' decisions') + ' waiting.';
    var badge = document.querySelector('[data-pending-badge]');
    if (badge) { if (left.length === 0) badge.remove(); else badge.firstChild.textContent = String(left.length); }
    root.querySelector('[data-next]').disabled = left.length < 2;
    if (left.length === 0) {
      root.querySelector('[data-assistant]').hidden = false;
      return reply(message + ' That was the last one.');
    }
    left[0].hidden = false;
    follow(left[0].getAttribute('data-run'));
    say(message);
    return speak(message).then(readCurrent);
  }

  function move(step) {
    var all = cards();
    if (all.length < 2) return;
    var at = all.indexOf(current());
    all[at].hidden = true;
    var next = all[(at + step + all.length) % all.length];
    next.hidden = false;
    confirmFor = null;
    follow(next.getAttribute('data-run'));
  }

  // ---- answering with the keyboard: the same decide path, through the API
  root.addEventListener('click', function (e) {
    var target = e.target.closest('[data-answer]');
    if (!target) return;
    if (target.hasAttribute('data-irreversible') && target.getAttribute('data-armed') !== 'true') {
      target.setAttribute('data-armed', 'true');
      target.textContent = 'Press again to confirm: ' + target.textContent.trim() + ' cannot be undone';
      return;
    }
    var card = target.closest('[data-decision]');
    api('/api/decisions/' + encodeURIComponent(card.getAttribute('data-decision')), { method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(Object.assign({ action: target.getAttribute('data-answer') }, edits(card, target.getAttribute('data-answer')))) })
      .then(function (r) {
        if (r.status !== 200) return reply((r.body && r.body.error) || 'That did not work; nothing was done.');
        return answered(card, 'Done.');
      });
  });
  root.querySelector('[data-read]').addEventListener('click', readCurrent);
  root.querySelector('[data-next]').addEventListener('click', function () { move(1); readCurrent(); });

  // ---- the assistant (free speech when nothing is waiting)
  function toAssistant(said) {
    var log = root.querySelector('[data-assistant-log]');
    function line(who, text) {
      var li = document.createElement('li');
      li.textContent = who + ': ' + text;
      log.appendChild(li);
    }
    var heard = typeof said === 'string' ? Promise.resolve({ status: 200, body: { text: said } })
      : api('/api/speech/transcribe', { method: 'POST', headers: { 'Content-Type': 'audio/wav' }, body: said });
    return heard
      .then(function (r) {
        if (r.status !== 200) return reply((r.body && r.body.error) || 'I could not hear that.');
        var text = r.body.text;
        if (!text) return reply('I did not catch that.');
        heardLine.textContent = 'Heard: \\u201c' + text + '\\u201d';
        var chat = chatId ? Promise.resolve({ status: 200, body: { chat_id: chatId } })
          : api('/api/chats', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
        return chat.then(function (c) {
          if (c.status === 404) return reply('The assistant is not available here yet; nothing was sent.');
          if (c.status >= 300 || !c.body || !c.body.chat_id) return reply((c.body && c.body.error) || 'The assistant did not answer.');
          chatId = c.body.chat_id;
          line('You', text);
          return api('/api/chats/' + encodeURIComponent(chatId) + '/messages', { method: 'POST',
            headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ message: text }) })
            .then(function (m) {
              if (m.status === 404) return reply('The assistant is not available here yet; nothing was sent.');
              var answer = (m.body && (m.body.text || m.body.error)) || 'The assistant is working on it.';
              line('Assistant', answer);
              return reply(answer);
            });
        });
      });
  }

  // ---- the run graph, from the narrator's events
  var graph = document.querySelector('[data-talk-graph]');
  var STATE = { running: 'running\\u2026', done: 'done', paused: 'waiting for you', failed: 'failed' };
  function node(name) {
    var el = graph.querySelector('[data-node="' + name + '"]');
    if (el) return el;
    el = document.createElement('li');
    el.setAttribute('data-node', name);
    var n = document.createElement('span'); n.className = 'node-name'; n.textContent = name; el.appendChild(n);
    var s = document.createElement('span'); s.className = 'node-state'; s.setAttribute('data-node-state', ''); el.appendChild(s);
    var t = document.createElement('ul'); t.className = 'tool-list'; t.setAttribute('data-tools', ''); el.appendChild(t);
    graph.insertBefore(el, graph.querySelector('[data-node="completer"]'));
    return el;
  }
  function setNode(name, state, ms) {
    var el = node(name);
    el.className = 'node node-' + state;
    el.querySelector('[data-node-state]').textContent = STATE[state] + (typeof ms === 'number' ? ' \\u00b7 ' + ms + ' ms' : '');
  }
  var runningNode = 'executor';
  var tools = {};
  function paint(kind, event) {
    var data = event.data || {};
    if (kind === 'node_start') { runningNode = data.node; setNode(data.node, 'running'); }
    if (kind === 'node_end') setNode(data.node, data.error ? 'failed' : 'done', data.ms);
    if (kind === 'asked') setNode('executor', 'paused');
    if (kind === 'resumed') setNode('executor', 'running');
    if (kind === 'tool_start') {
      var special = /^transfer_to_(.+)$/.exec(data.tool || '');
      if (special) setNode(special[1], 'running');
      var li = document.createElement('li');
      li.className = 'tool tool-running';
      li.textContent = data.tool + ' \\u2026';
      node(runningNode).querySelector('[data-tools]').appendChild(li);
      tools[data.tool_use_id] = li;
    }
    if (kind === 'tool_end' && tools[data.tool_use_id]) {
      tools[data.tool_use_id].className = 'tool tool-done';
      tools[data.tool_use_id].textContent = data.tool + (typeof data.ms === 'number' ? ' \\u00b7 ' + data.ms + ' ms' : '');
    }
    if (kind === 'completed' && source) { source.close(); source = null; }
    graph.setAttribute('data-painted', String(event.seq));
  }
  function follow(runId) {
    if (!graph || graph.getAttribute('data-live') !== 'sse' || !runId) return;
    if (source && graph.getAttribute('data-run-id') === runId) return;
    if (source) source.close();
    var after = graph.getAttribute('data-run-id') === runId ? graph.getAttribute('data-after') || '0' : '0';
    graph.setAttribute('data-run-id', runId);
    source = new EventSource('/runs/' + encodeURIComponent(runId) + '/events?after=' + encodeURIComponent(after));
    ['node_start', 'node_end', 'tool_start', 'tool_end', 'asked', 'resumed', 'completed'].forEach(function (kind) {
      source.addEventListener(kind, function (message) {
        try { paint(kind, JSON.parse(message.data)); } catch (error) { /* a malformed event is skipped */ }
      });
    });
  }
  if (graph) follow(graph.getAttribute('data-run-id'));
})();
`;
