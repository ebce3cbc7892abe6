/**
 * /assets/activity.js: Activity's keys and answers in place. `j`/`k` move between questions,
 * `a` accepts the suggestion, `s` skips, `x` selects, `o` opens, `?` shows the keys. A form
 * marked `data-inplace` posts with fetch; the list and the sidebar are then swapped for the
 * server's (the question answered gone, the counts the server's), and a group's "Accept"
 * shows its confirm step inside the group. Without JavaScript every form posts as usual.
 */
export const ACTIVITY_JS = `'use strict';
(function () {
  if (!document.querySelector('[data-activity]')) return;
  var current = -1;

  function rows() { return Array.prototype.slice.call(document.querySelectorAll('[data-q]')); }
  function currentRow() { return rows()[current] || null; }

  function focusRow(i) {
    var all = rows();
    if (all.length === 0) { current = -1; return; }
    current = Math.max(0, Math.min(i, all.length - 1));
    all.forEach(function (row, n) { row.classList.toggle('q-current', n === current); });
    var row = all[current];
    row.setAttribute('tabindex', '-1');
    row.focus();
    row.scrollIntoView({ block: 'nearest' });
  }

  function checkedNames() {
    return Array.prototype.map.call(document.querySelectorAll('[data-pick]:checked'), function (box) { return box.name; });
  }

  function swapFrom(doc) {
    var checked = checkedNames();
    ['activity', 'nav'].forEach(function (id) {
      var fresh = doc.getElementById(id);
      var old = document.getElementById(id);
      if (fresh && old) old.replaceWith(document.adoptNode(fresh));
    });
    Array.prototype.forEach.call(document.querySelectorAll('[data-pick]'), function (box) {
      if (checked.indexOf(box.name) >= 0) box.checked = true;
    });
  }

  function problem(text) {
    var list = document.getElementById('activity');
    var note = document.createElement('div');
    note.className = 'flash flash-error';
    note.setAttribute('role', 'alert');
    note.textContent = text;
    list.insertBefore(note, list.firstChild);
  }

  function showConfirm(group, section) {
    Array.prototype.forEach.call(document.querySelectorAll('[data-confirm]'), function (old) { old.remove(); });
    var fresh = document.adoptNode(section);
    if (group && group.children.length > 0) group.insertBefore(fresh, group.children[1] || null);
    else document.getElementById('activity').prepend(fresh);
    var yes = fresh.querySelector('[data-confirm-accept]') || fresh.querySelector('[data-cancel]');
    if (yes) yes.focus();
  }

  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-inplace')) return;
    event.preventDefault();
    var body = new URLSearchParams(new FormData(form, event.submitter || undefined));
    var group = form.closest('[data-group]');
    var at = current;
    var list = document.getElementById('activity');
    if (list) list.setAttribute('aria-busy', 'true');
    // getAttribute: a button named "action" shadows form.action.
    fetch(form.getAttribute('action') || location.pathname, { method: 'POST', body: body, credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (response) {
        return response.text().then(function (text) { return { response: response, text: text }; });
      })
      .then(function (got) {
        var doc = new DOMParser().parseFromString(got.text, 'text/html');
        var confirm = doc.querySelector('[data-confirm]');
        if (got.response.ok && confirm) { showConfirm(group, confirm); return; }
        if (!got.response.ok || !doc.getElementById('activity')) {
          var said = doc.querySelector('main p');
          problem(said ? said.textContent : 'That did not work (' + got.response.status + '). Nothing was changed.');
          return;
        }
        history.replaceState(null, '', got.response.url);
        swapFrom(doc);
        document.documentElement.setAttribute('data-answered', String(Date.now()));
        if (at >= 0) focusRow(at);
      })
      .catch(function () { problem('The server could not be reached. Nothing was changed.'); })
      .then(function () {
        var fresh = document.getElementById('activity');
        if (fresh) fresh.removeAttribute('aria-busy');
      });
  });

  document.addEventListener('click', function (event) {
    var cancel = event.target instanceof Element ? event.target.closest('[data-confirm] [data-cancel]') : null;
    if (!cancel || !document.querySelector('[data-activity]')) return;
    event.preventDefault();
    cancel.closest('[data-confirm]').remove();
  });

  function press(row, selector) {
    var button = row && row.querySelector(selector);
    if (button) button.click();
  }

  document.addEventListener('keydown', function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var target = event.target;
    var tag = target && target.tagName;
    if ((tag === 'INPUT' && target.type !== 'checkbox') || tag === 'TEXTAREA' || tag === 'SELECT' ||
      (target && target.isContentEditable)) return;
    var row = currentRow();
    switch (event.key) {
      case 'j': focusRow(current + 1); break;
      case 'k': focusRow(current <= 0 ? 0 : current - 1); break;
      case 'a': press(row, '[data-accept]'); break;
      case 's': press(row, '[data-skip]'); break;
      case 'x':
        if (row) { var box = row.querySelector('[data-pick]'); if (box) box.checked = !box.checked; }
        break;
      case 'o':
        if (row) { var link = row.querySelector('[data-open]'); if (link) location.href = link.href; }
        break;
      case '?':
        var help = document.querySelector('[data-keys-help]');
        if (help) help.open = !help.open;
        break;
      default: return;
    }
    event.preventDefault();
  });
})();
`;
