/* The score sheet's one enhancement (the page works without it): a pushed sheet never
 * wipes what this device is typing. Once a field of the entry form is edited, a push
 * (another device saved) keeps this form as it is, says so, and leaves its version
 * alone: saving it is then answered 409 with the current sheet and what was typed,
 * never a silent overwrite. The form's own answer replaces it as usual. */
(function () {
  "use strict";

  document.addEventListener("input", function (event) {
    var form = event.target.closest && event.target.closest("#sheet-entry form");
    if (form) form.setAttribute("data-dirty", "1");
  });

  // This form's own request: its answer replaces it.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.target.closest && event.target.closest("#sheet-entry form");
    if (form) form.removeAttribute("data-dirty");
  });

  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var detail = event.detail || {};
    var target = detail.target;
    if (!target || target.id !== "sheet-entry") return;
    var form = target.querySelector("form[data-dirty]");
    if (!form) return;
    detail.shouldSwap = false;
    var note = target.querySelector(".sheet-stale");
    if (note) note.hidden = false;
  });
})();
