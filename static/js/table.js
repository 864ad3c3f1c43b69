// Small progressive enhancements for the table page (the page works without them).
(function () {
  "use strict";

  // Invite link: copy to the clipboard.
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) return;
    var input = document.querySelector(button.getAttribute("data-copy"));
    if (!input) return;
    var done = function () {
      var label = button.textContent;
      button.textContent = button.getAttribute("data-copied") || "✓";
      setTimeout(function () { button.textContent = label; }, 1500);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, function () { input.select(); });
    } else {
      input.select();
      try { document.execCommand("copy"); done(); } catch (e) { /* the text stays selected */ }
    }
  });

  // Keep the newest chat message in view.
  function scrollChat() {
    var log = document.getElementById("chat-log");
    if (log) log.scrollTop = log.scrollHeight;
  }
  document.addEventListener("DOMContentLoaded", scrollChat);
  document.addEventListener("htmx:afterSettle", scrollChat);
  document.addEventListener("htmx:oobAfterSwap", scrollChat);
})();
