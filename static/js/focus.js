/* Keep your place on the live table (no inline script: CSP).
 *
 * 1. Morphing swaps (static/vendor/idiomorph, hx-swap-oob="morph") update the
 *    regions in place. Two things of the viewer's own are kept from the new HTML,
 *    which never carries them: an open <details> (the Tigress choice, "Leave the
 *    game…") stays open, the chat box keeps its half-typed message, and a drop-down
 *    the viewer changed keeps their choice.
 * 2. After your own action (an htmx request from this page) focus lands on the
 *    next sensible control: a playable card, a bid, the host's "Next trick" /
 *    "Next round" / "Start game"; else your hand, so Tab reaches your cards.
 * 3. A push that removed the focused control, or that brings your move while focus
 *    waits on your hand, puts focus on that sensible control (not on <body>).
 * 4. A card you hooked or unhooked while others play (issue 49) keeps the focus: the
 *    next tap may move the hook to its neighbour.
 */
(function () {
  "use strict";

  if (window.Idiomorph && window.Idiomorph.defaults) {
    var callbacks = window.Idiomorph.defaults.callbacks;
    // The pushed HTML never says "open": that is the viewer's own state.
    callbacks.beforeAttributeUpdated = function (name, element, mutation) {
      if (name === "open" && mutation === "remove" && element.tagName === "DETAILS") return false;
      return true;
    };
    // The chat box is the viewer's own text, and so is a field the viewer is in.
    // (Not idiomorph's ignoreActiveValue: it leaves the focused element's children
    // alone whatever it is, so a just-clicked button kept its old words while its
    // form became another: "Propose a rematch" posting a withdrawal.)
    // A choice the viewer made in a drop-down (a computer player's level) is theirs too,
    // focused or not: a push between choosing and pressing "Add" put back the default.
    callbacks.beforeNodeMorphed = function (oldNode) {
      if (oldNode.nodeType !== 1) return true;
      if (oldNode.id === "chat-text") return false;
      if (oldNode.tagName === "SELECT" && changedByViewer(oldNode)) return false;
      return !(oldNode === document.activeElement && /^(INPUT|TEXTAREA|SELECT)$/.test(oldNode.tagName));
    };
  }

  // Read off the element, not from a "change" listener: a choice made before this
  // script ran (a slow page, a quick hand) counts too. The server's default is the
  // option rendered "selected" (else the first).
  function changedByViewer(select) {
    var rendered = 0;
    for (var i = 0; i < select.options.length; i++) {
      if (select.options[i].defaultSelected) rendered = i;
    }
    return select.selectedIndex !== rendered;
  }

  // The next sensible control, in order of what a player does next.
  var NEXT = [
    "#hand .card-button:not([disabled])",
    "#controls .bid-button",
    "#controls .button--primary",
  ];

  function visible(el) {
    return el && el.getClientRects().length > 0;
  }

  function nextControl() {
    for (var i = 0; i < NEXT.length; i++) {
      var el = document.querySelector(NEXT[i]);
      if (visible(el)) return el;
    }
    // The hand is a focus target (tabindex="-1" in its template, so that no push's
    // morph takes it away while it holds the focus), not a Tab stop: Tab goes on to
    // its cards.
    var hand = document.getElementById("hand");
    if (hand) return hand;
    return null;
  }

  function lost() {
    var active = document.activeElement;
    return !active || active === document.body || !document.contains(active);
  }

  function onTable() {
    return !!document.querySelector(".table-page");
  }

  var pendingOwn = false;
  var hadFocus = false; // the viewer was using a control of the table
  var hooked = ""; // 4: the id of the card a tap hooked or unhooked ("hook-G7")
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    // The chat form keeps its own focus (the box, for the next message).
    pendingOwn = !!(elt && elt.closest && elt.closest(".table-page") && !elt.closest(".chat__form"));
    var config = (evt.detail && evt.detail.requestConfig) || {};
    var tapped = config.triggeringEvent && config.triggeringEvent.submitter;
    // The Tigress's "As a pirate" hooks the card its <summary> shows.
    var choice = tapped && tapped.closest("#hand details");
    var card = choice ? choice.querySelector("summary") : tapped;
    hooked = card && card.classList.contains("hook-button") ? card.id : "";
  });

  document.addEventListener("htmx:afterSettle", function () {
    if (!pendingOwn || !onTable()) return;
    pendingOwn = false;
    var active = document.activeElement;
    // A choice the player opened is still theirs: leave it.
    if (!lost() && active.closest && active.closest("details[open]")) return;
    var card = hooked && document.getElementById(hooked);
    hooked = "";
    if (visible(card)) {
      card.focus();
      return;
    }
    var target = nextControl();
    if (target) target.focus();
  });

  // A push: if focus was lost, or is parked on your hand waiting for your turn, put
  // it on the control the push brought (your card, your bid, the host's button).
  // Focus the player placed anywhere else stays where it is.
  document.addEventListener("htmx:wsAfterMessage", function () {
    if (!onTable() || !hadFocus) return;
    var active = document.activeElement;
    var parked = active && active.id === "hand";
    if (!lost() && !parked) return;
    var target = nextControl();
    if (target && target !== active) target.focus();
  });

  // Only then may a push move focus (a focused control removed: focusin does not fire).
  document.addEventListener("focusin", function (evt) {
    hadFocus = !!(evt.target.closest && evt.target.closest(".table-page"));
  });
})();
