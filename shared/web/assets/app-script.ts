/**
 * /assets/app.js, on every page: the workspace picker switches as soon as a workspace is
 * chosen (its Switch button is for browsers without JavaScript, where the form still works).
 */
export const APP_JS = `'use strict';
(function () {
  var forms = document.querySelectorAll('form.workspace-switcher');
  Array.prototype.forEach.call(forms, function (form) {
    var select = form.querySelector('select');
    if (!select) return;
    form.classList.add('auto');
    select.addEventListener('change', function () { form.submit(); });
  });
})();
`;
