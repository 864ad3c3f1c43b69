/* The live table's small helpers around htmx's ws extension (no inline script: CSP).
 *
 * 1. Never go back: every region root carries data-version (the chat log
 *    data-chat, its newest message), and so does each part of a region that a
 *    frame may carry alone (games/live/parts.py: a seat, a row of the score sheet). A swap that would replace a region with an
 *    older one (an HTTP answer overtaken by a socket push, or frames that
 *    crossed) is skipped, so regions may arrive in any order.
 * 2. Gap healing: when a pushed message jumps more than one version ahead of
 *    what the page shows and does not hold every region, a message was lost:
 *    ask the server for a full snapshot.
 * 3. Connection indicator: #live-status is shown (hidden removed, class
 *    "is-reconnecting" or "is-closed") while the socket is down, hidden on open.
 * 4. Carry forward: a frame of version V holds only the regions V changed for
 *    this seat (games.live.frames.own_regions_after_move), so every region still at
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
 *    here, as the request starts, not by the answer.
 * 6. One way in for every frame. A socket message and an action's own answer
 *    (a frame too: HX-Reswap none) are applied by htmx.swap (htmx's public API)
 *    with no swap of their own, so only their out-of-band elements land, each
 *    found in the document. Two things this gives that the ws extension's own
 *    loop and htmx's answer handling do not: a part wrapped in <template> (a
 *    score sheet's row, which an HTML parser drops outside a table: games.live.parts)
 *    is opened and swapped, and an answer whose form a push already removed is
 *    still looked up in the document, not in the removed form's subtree (where
 *    htmx found no #status and logged htmx:oobErrorNoTarget).
 * 7. An answer that is not a frame (a 403 page, a 500, a rate limit) never
 *    replaces anything: its message (the answer's role="alert", else a sentence
 *    of the page's own) goes into the error line, and so does a network failure.
 * 8. One move per state shown. A second submit of a table form whose version is
 *    that of a move still on its way is a repeat (a double click, a double tap, a
 *    key held down) and is not sent. A form of a newer version is sent at once,
 *    even while the last move's answer is on its way: the push of a move reaches
 *    its mover before the move's own answer (rendered after the push is sent),
 *    and a player who acts on the pushed state (the host's "Next trick") must not
 *    lose that move. (htmx's hx-sync cannot tell the two apart: it waits for the
 *    answer, whatever the version.) The chat is not a move and goes on its own.
 */
(function () {
  "use strict";

  var SNAPSHOT = JSON.stringify({ type: "snapshot" });
  var RETRIED_CODES = [1006, 1011, 1012, 1013]; // htmx's ws extension reconnects on these

  function number(element, name) {
    var v = element && element.getAttribute ? parseInt(element.getAttribute(name), 10) : NaN;
    return isNaN(v) ? -1 : v;
  }

  function versionOf(elements) {
    var best = -1;
    for (var i = 0; i < elements.length; i++) best = Math.max(best, number(elements[i], "data-version"));
    return best;
  }

  // The live regions of the table page (games.live.frames.PARTIALS): a message
  // holding all of them is a full snapshot, whatever versions it skipped.
  var REGIONS = ["status", "seats", "trick", "hand", "controls", "scores", "chat-log"];

  // The regions a frame carries (games.live.frames.PARTIALS; the chat log has data-chat).
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

  // 8. The versions of the moves on their way, one entry per request.
  var sending = [];

  function moveVersion(elt) {
    if (!elt || !elt.closest || !elt.closest("#table-content") || elt.closest(".chat__form")) return null;
    var field = elt.querySelector ? elt.querySelector('input[name="version"]') : null;
    return field ? field.value : null;
  }

  document.addEventListener("htmx:confirm", function (evt) {
    var version = moveVersion(evt.detail && evt.detail.elt);
    if (version !== null && sending.indexOf(version) >= 0) evt.preventDefault();
  });

  document.addEventListener("htmx:beforeSend", function (evt) {
    var detail = evt.detail || {};
    var version = moveVersion(detail.elt);
    if (version === null || !detail.xhr) return;
    sending.push(version);
    // loadend: after an answer, an error, an abort or a timeout alike.
    detail.xhr.addEventListener("loadend", function () {
      var at = sending.indexOf(version);
      if (at >= 0) sending.splice(at, 1);
    });
  });

  function applyFrame(html) {
    htmx.swap(document.body, html, { swapStyle: "none" });
  }

  function showError(text) {
    var error = document.getElementById("error");
    if (!error || !text) return;
    var line = document.createElement("p");
    line.className = "alert alert--error";
    line.setAttribute("role", "alert");
    line.textContent = text;
    error.replaceChildren(line);
  }

  function messageOf(html) {
    var tpl = document.createElement("template");
    tpl.innerHTML = typeof html === "string" ? html : "";
    var alert = tpl.content.querySelector("[role=alert]");
    return alert ? alert.textContent.trim() : "";
  }

  function pageText(name) {
    var error = document.getElementById("error");
    return error ? error.getAttribute(name) || "" : "";
  }

  // An action's own answer: its frame (the regions it changed, or on a refusal the
  // whole table with the reason), or an error page whose message is shown.
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var detail = evt.detail || {};
    var xhr = detail.xhr;
    if (!xhr || !document.getElementById("error")) return;
    if (xhr.getResponseHeader("HX-Reswap") === "none") {
      detail.shouldSwap = false;
      if (!xhr.responseText) return;
      applyFrame(xhr.responseText);
      if (xhr.status < 400) carryForward(parse(xhr.responseText));
      return;
    }
    if (xhr.status >= 400) {
      detail.shouldSwap = false;
      showError(messageOf(xhr.responseText) || pageText("data-failed-text"));
    }
  });

  // No answer at all (the network, or a server that is down).
  document.addEventListener("htmx:sendError", function () {
    showError(pageText("data-offline-text"));
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

  // A socket message: applied here (6), not by the ws extension, which is told so by
  // cancelling its event. The extension's own "after" event is then sent from here,
  // once the message is in the page, for the page's other scripts (table.js,
  // focus.js, turn.js) as before.
  document.addEventListener("htmx:wsBeforeMessage", function (evt) {
    var detail = evt.detail || {};
    evt.preventDefault();
    // What the page shows now, HTTP responses' swaps included.
    var shown = pageVersion();
    applyFrame(detail.message);
    var children = parse(detail.message);
    var received = versionOf(children);
    carryForward(children);
    if (received > shown + 1 && shown >= 0 && !isFull(children, REGIONS)) {
      if (detail.socketWrapper) detail.socketWrapper.send(SNAPSHOT);
    }
    htmx.trigger(evt.target, "htmx:wsAfterMessage", detail);
  });

  document.addEventListener("htmx:wsOpen", function () {
    indicator("open");
  });

  document.addEventListener("htmx:wsClose", function (evt) {
    var event = (evt.detail && evt.detail.event) || {};
    indicator(RETRIED_CODES.indexOf(event.code) >= 0 ? "reconnecting" : "closed");
  });
})();
