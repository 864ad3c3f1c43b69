// Small progressive enhancements for the table page (the page works without them).
(function () {
  "use strict";

  // Invite link: copy to the clipboard.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    var input = document.querySelector(button.getAttribute("data-copy"));
    if (!input) return;
    if (!button.hasAttribute("data-label")) button.setAttribute("data-label", button.textContent);
    var say = function (text, ms) {
      button.textContent = text;
      clearTimeout(button.__copyTimer);
      button.__copyTimer = setTimeout(function () {
        button.textContent = button.getAttribute("data-label");
      }, ms);
    };
    var done = function () { say(button.getAttribute("data-copied") || "✓", 1500); };
    // Both ways refused (an unfocused window, a browser that forbids it): say so, and
    // leave the whole link selected for the player to copy by hand (a silent button
    // would let them paste whatever was on the clipboard before).
    var failed = function () {
      input.focus();
      input.select();
      say(button.getAttribute("data-copy-failed") || "✗", 6000);
    };
    // The old way: select the text and copy it.
    var selectAndCopy = function () {
      input.select();
      var copied = false;
      try { copied = document.execCommand("copy"); } catch (e) { copied = false; }
      if (copied) done(); else failed();
    };
    if (navigator.clipboard && window.isSecureContext) {
      // writeText refuses while the document is not focused: fall back then.
      navigator.clipboard.writeText(input.value).then(done, selectAndCopy);
    } else {
      selectAndCopy();
    }
  });

  // The shared regions (seats, trick, scores, chat) are the same HTML for every
  // player; this page marks what is the viewer's own: data-me on the page root
  // names their seat, data-me-user their chat messages.
  function markYou() {
    var page = document.querySelector(".table-page[data-me]");
    if (!page) return;
    var me = page.getAttribute("data-me");
    var author = page.getAttribute("data-me-user");
    var marked = document.querySelectorAll("[data-seat], [data-author]");
    for (var i = 0; i < marked.length; i++) {
      var el = marked[i];
      var mine = el.getAttribute("data-seat") === me ||
        (author && el.getAttribute("data-author") === author);
      el.classList.toggle("is-you", mine);
    }
  }

  // The drawn table (#trick .felt) is the same for everyone, seats in playing order:
  // turn it so that the viewer sits at the bottom (data-rot, which site.css turns into
  // the --rot variable; an inline style would break the CSP when a swap copies it).
  function turnTable() {
    var page = document.querySelector(".table-page[data-me]");
    var felt = document.querySelector(".felt[data-count]");
    if (!page || !felt) return;
    var mine = felt.querySelector('.felt__seat[data-seat="' + page.getAttribute("data-me") + '"]');
    var count = parseInt(felt.getAttribute("data-count"), 10);
    var pos = mine ? parseInt(mine.getAttribute("data-pos"), 10) : 0;
    felt.setAttribute("data-rot", String((count - pos) % count));
  }

  // Chat times come in UTC (<time datetime>): show them in the viewer's own time.
  function localTimes() {
    var times = document.querySelectorAll("time.chat__time[datetime]");
    for (var i = 0; i < times.length; i++) {
      var when = new Date(times[i].getAttribute("datetime"));
      if (isNaN(when.getTime())) continue;
      times[i].textContent = when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
      times[i].title = when.toLocaleString();
    }
  }

  // Pushed invite links are paths: show the whole address.
  // A pushed invite link is a path (a push knows no request, so no origin); the page
  // makes it whole, its attribute too, so that it reads as a fresh load's.
  function absoluteInvite() {
    var input = document.getElementById("invite-link");
    if (!input || input.value.charAt(0) !== "/") return;
    input.value = window.location.origin + input.value;
    input.setAttribute("value", input.value);
  }

  // Keep the newest chat message in view.
  function scrollChat() {
    var log = document.getElementById("chat-log");
    if (log) log.scrollTop = log.scrollHeight;
  }

  // An opened "Last trick" / "This round" list stays open when a push replaces its region.
  // Only the earlier-tricks panel's lists: the Tigress choice must not reopen by itself
  // in a later trick because it was once opened (focus.js keeps it open during a push).
  var openDetails = {};
  document.addEventListener("toggle", function (event) {
    var el = event.target;
    if (el && el.tagName === "DETAILS" && el.id && el.closest("#tricks-history")) {
      openDetails[el.id] = el.open;
    }
  }, true);
  function keepDetailsOpen() {
    Object.keys(openDetails).forEach(function (id) {
      var el = document.getElementById(id);
      if (el && openDetails[id] && !el.open) el.open = true;
    });
  }

  // The turn clock (issue 48): the server writes the deadline (epoch ms) and says the
  // clock's length in words; this shows the seconds left, once a second.
  function clockTick() {
    var clocks = document.querySelectorAll("[data-deadline]");
    for (var i = 0; i < clocks.length; i++) {
      var left = Math.max(0, Math.ceil((Number(clocks[i].getAttribute("data-deadline")) - Date.now()) / 1000));
      var out = clocks[i].querySelector(".status__clock-left");
      if (out) out.textContent = "⏱ " + left + " s";
    }
  }
  setInterval(clockTick, 1000);

  function refresh() {
    clockTick();
    keepDetailsOpen();
    markYou();
    turnTable();
    localTimes();
    absoluteInvite();
    scrollChat();
  }
  document.addEventListener("DOMContentLoaded", refresh);
  document.addEventListener("htmx:afterSettle", refresh);
  document.addEventListener("htmx:oobAfterSwap", refresh);
  document.addEventListener("htmx:wsAfterMessage", refresh);

  // A sent chat message empties the box (the answer does not replace the form).
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail && event.detail.elt;
    var xhr = event.detail && event.detail.xhr;
    // (A refusal is answered 4xx, which the page's htmx config does not call an error.)
    if (form && form.classList && form.classList.contains("chat__form") && xhr && xhr.status < 300) {
      form.reset();
    }
  });
})();
