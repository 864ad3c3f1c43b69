/* A tapped card or bid shows at once that it is on its way (issue 49; no inline
 * script: CSP).
 *
 * The answer of a move, or its push, takes a round trip (about 100 ms, more on a
 * phone): until then the tapped control says "pending" (class is-pending, a style of
 * its own in static/css/site.css) and its region (#hand, #controls) is aria-busy with
 * all its controls out of reach (the table's hx-disabled-elt disables the buttons; the
 * Tigress's <summary> is not a button and is held by the CSS on aria-busy).
 *
 * Marked on htmx:beforeRequest, which htmx sends in the same task as the tap's submit
 * (after live.js's htmx:confirm dropped a repeat), so the next frame paints it.
 * Cleared when the answer comes (htmx:afterRequest: a frame, a refusal whose reason
 * live.js puts in the error line, a network failure alike) or when a push re-renders
 * the region first (idiomorph morphs the class and aria-busy away with the server's
 * HTML, which never carries them: a fresh load and a live page read alike).
 */
(function () {
  "use strict";

  var REGIONS = "#hand, #controls";

  function submitterOf(detail) {
    var config = detail.requestConfig || {};
    var event = config.triggeringEvent;
    if (event && event.submitter) return event.submitter;
    var active = document.activeElement;
    return active && detail.elt && detail.elt.contains(active) ? active : null;
  }

  var pending = null; // the xhr of the move marked pending

  function clear() {
    pending = null;
    var marked = document.querySelectorAll(".is-pending");
    for (var i = 0; i < marked.length; i++) marked[i].classList.remove("is-pending");
    var busy = document.querySelectorAll("[aria-busy]");
    for (var j = 0; j < busy.length; j++) {
      if (busy[j].matches(REGIONS)) busy[j].removeAttribute("aria-busy");
    }
  }

  document.addEventListener("htmx:beforeRequest", function (evt) {
    var detail = evt.detail || {};
    var elt = detail.elt;
    var region = elt && elt.closest ? elt.closest(REGIONS) : null;
    if (!region || !region.closest(".table-page")) return;
    clear();
    pending = detail.xhr || null;
    region.setAttribute("aria-busy", "true");
    var button = submitterOf(detail);
    if (!button) return;
    button.classList.add("is-pending");
    // The Tigress's choice: its card (the <summary>) is the one the eye follows.
    var choice = button.closest("details");
    var card = choice && choice.querySelector("summary");
    if (card) card.classList.add("is-pending");
  });

  document.addEventListener("htmx:afterRequest", function (evt) {
    // Only that move's answer: the chat's goes on its own.
    if (pending && evt.detail && evt.detail.xhr === pending) clear();
  });
})();
