// The header's language selector (templates/includes/language_form.html):
// choosing a language submits the form, so its button is only for pages without scripts.
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("select[data-autosubmit]").forEach(function (select) {
      var form = select.form;
      var button = form.querySelector(".language-form__go");
      if (button) button.hidden = true;
      select.addEventListener("change", function () { form.requestSubmit(); });
    });
  });
})();
