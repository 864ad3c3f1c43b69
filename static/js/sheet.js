/* The score sheet's enhancements (the page works without them):
 *
 * 1. A pushed sheet never wipes what this device is typing. Once a field of the entry
 *    form is edited, a push (another device saved) keeps this form as it is, says so,
 *    and leaves its version alone: saving it is then answered 409 with the current
 *    sheet and what was typed, never a silent overwrite.
 * 2. Nor does a push replace the form while its own request is in flight: htmx swaps
 *    the answer's regions (out of band, hx-swap="none") from the form, and a form
 *    already replaced would find none of them. The answer replaces it instead.
 */
(function () {
  "use strict";

  document.addEventListener("input", function (event) {
    var form = event.target.closest && event.target.closest("#sheet-entry form");
    if (form) form.setAttribute("data-dirty", "1");
  });

  function entryForm(event) {
    var elt = event.target;
    return elt && elt.closest ? elt.closest("#sheet-entry form") : null;
  }

  // This form's own request: its answer replaces it (and no push meanwhile).
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = entryForm(event);
    if (!form) return;
    form.removeAttribute("data-dirty");
    form.setAttribute("data-sending", "1");
  });
  document.addEventListener("htmx:beforeSwap", function (event) {
    var form = entryForm(event);
    if (form) form.removeAttribute("data-sending");
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = entryForm(event);
    if (form) form.removeAttribute("data-sending");  // no answer to swap (network)
  });

  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var detail = event.detail || {};
    var target = detail.target;
    if (!target || target.id !== "sheet-entry") return;
    if (target.querySelector("form[data-sending]")) {
      detail.shouldSwap = false;
      return;
    }
    if (!target.querySelector("form[data-dirty]")) return;
    detail.shouldSwap = false;
    var note = target.querySelector(".sheet-stale");
    if (note) note.hidden = false;
  });
})();
