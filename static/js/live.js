/* The live table's small helpers around htmx's ws extension (no inline script: CSP).
 *
 * 1. Never go back: every region root carries data-version (the chat log
 *    data-chat, its newest message), and so does each part of a region that a
 *    frame may carry alone (games/parts.py: a seat, a row of the score sheet). A swap that would replace a region with an
 *    older one (an HTTP answer overtaken by a socket push, or frames that
 *    crossed) is skipped, so regions may arrive in any order.
 * 2. Gap healing: when a pushed message jumps more than one version ahead of
 *    what the page shows and does not hold every region, a message was lost:
 *    ask the server for a full snapshot.
 * 3. Connection indicator: #live-status is shown (hidden removed, class
 *    "is-reconnecting" or "is-closed") while the socket is down, hidden on open.
 * 4. Carry forward: a frame of version V holds only the regions V changed for
 *    this seat (games.frames.own_regions_after_move), so every region still at
 *    V-1 is current at V too: its data-version and its forms' version fields
 *    move to V, and a card played from an unchanged hand is not refused as stale.
 *    A region older than V-1 is not moved on: a frame was lost, and the
 *    snapshot that gap healing asks for replaces it. Only the regions frames
 *    carry are moved, each with its own forms: #table-content, which holds them
 *    all, has a data-version of its own (the version the page was loaded at),
 *    and moving it would move every form inside it, also those of regions
 *    already newer than V (a late frame would make the leader's playable hand
 *    post a stale version, refused with 409).
 * 5. A refusal's reason (#error, from a 4xx answer) goes when this page sends its
 *    next action: that action's own answer says what happened to it. Cleared
 *    here, as the request starts, not by the answer: when the push overtakes the
 *    answer and removes the form that posted (a bid's), that form is out of the
 *    document and htmx neither swaps the answer's out-of-band regions nor lets its
 *    events reach the document, so the old reason would stay beside the made move.
 */
(function () {
  "use strict";

  var SNAPSHOT = JSON.stringify({ type: "snapshot" });
  var RETRIED_CODES = [1006, 1011, 1012, 1013]; // htmx's ws extension reconnects on these
  var shownVersion = 0;

  function number(element, name) {
    var v = element && element.getAttribute ? parseInt(element.getAttribute(name), 10) : NaN;
    return isNaN(v) ? -1 : v;
  }

  function versionOf(elements) {
    var best = -1;
    for (var i = 0; i < elements.length; i++) best = Math.max(best, number(elements[i], "data-version"));
    return best;
  }

  // The live regions of the table page (games.frames.PARTIALS): a message
  // holding all of them is a full snapshot, whatever versions it skipped.
  var REGIONS = ["status", "seats", "trick", "hand", "controls", "scores", "chat-log"];

  // The regions a frame carries (games.frames.PARTIALS; the chat log has data-chat).
  var CARRIED = ["status", "seats", "trick", "hand", "controls", "scores", "tricks-history"];

  function pageVersion() {
    return versionOf(document.querySelectorAll("[id][data-version]"));
  }

  function parse(message) {
    // A <template> parses without running anything or loading images.
    var tpl = document.createElement("template");
    tpl.innerHTML = typeof message === "string" ? message : "";
    return tpl.content.children;
  }

  function isFull(children, ids) {
    var present = {};
    for (var i = 0; i < children.length; i++) if (children[i].id) present[children[i].id] = true;
    for (var j = 0; j < ids.length; j++) if (!present[ids[j]]) return false;
    return true;
  }

  function isOlder(incoming, current) {
    if (!incoming || !current) return false;
    if (current.hasAttribute("data-chat")) return number(incoming, "data-chat") < number(current, "data-chat");
    return number(incoming, "data-version") >= 0 && number(incoming, "data-version") < number(current, "data-version");
  }

  function carryForward(children) {
    var version = versionOf(children);
    if (version < 1) return;
    var present = {};
    for (var i = 0; i < children.length; i++) if (children[i].id) present[children[i].id] = true;
    for (var j = 0; j < CARRIED.length; j++) {
      var region = document.getElementById(CARRIED[j]);
      if (!region || present[region.id] || number(region, "data-version") !== version - 1) continue;
      region.setAttribute("data-version", String(version));
      var fields = region.querySelectorAll('input[name="version"]');
      for (var k = 0; k < fields.length; k++) {
        // Only a field still at V-1: never one a newer render put there.
        if (fields[k].value === String(version - 1)) fields[k].value = String(version);
      }
    }
  }

  document.addEventListener("htmx:beforeRequest", function () {
    var error = document.getElementById("error");
    // Its content only: the element stays the page's live region for the next reason.
    if (error) error.replaceChildren();
  });

  // An action's own answer (the actor's frame, swapped out of band).
  document.addEventListener("htmx:afterRequest", function (evt) {
    var xhr = evt.detail && evt.detail.xhr;
    if (xhr && evt.detail.successful && xhr.responseText) carryForward(parse(xhr.responseText));
  });

  document.addEventListener("htmx:oobBeforeSwap", function (evt) {
    var detail = evt.detail || {};
    var fragment = detail.fragment;
    var incoming = fragment && (fragment.firstElementChild || fragment);
    if (isOlder(incoming, detail.target)) detail.shouldSwap = false;
  });

  function indicator(state) {
    var el = document.getElementById("live-status");
    if (!el) return;
    el.classList.toggle("is-reconnecting", state === "reconnecting");
    el.classList.toggle("is-closed", state === "closed");
    if (state === "open") {
      el.hidden = true;
      return;
    }
    if (!el.hasAttribute("data-reconnecting-text")) {
      el.setAttribute("data-reconnecting-text", el.textContent);
    }
    var closedText = el.getAttribute("data-closed-text");
    el.textContent =
      state === "closed" && closedText ? closedText : el.getAttribute("data-reconnecting-text");
    el.hidden = false;
  }

  document.addEventListener("htmx:wsBeforeMessage", function () {
    // What the page shows now, HTTP responses' swaps included.
    shownVersion = pageVersion();
  });

  document.addEventListener("htmx:wsAfterMessage", function (evt) {
    var detail = evt.detail || {};
    var children = parse(detail.message);
    var received = versionOf(children);
    carryForward(children);
    if (received > shownVersion + 1 && shownVersion >= 0 && !isFull(children, REGIONS)) {
      if (detail.socketWrapper) detail.socketWrapper.send(SNAPSHOT);
    }
  });

  document.addEventListener("htmx:wsOpen", function () {
    indicator("open");
  });

  document.addEventListener("htmx:wsClose", function (evt) {
    var event = (evt.detail && evt.detail.event) || {};
    indicator(RETRIED_CODES.indexOf(event.code) >= 0 ? "reconnecting" : "closed");
  });
})();
