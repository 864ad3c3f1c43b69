// Replay page: the arrow keys follow the rel="prev" / rel="next" links (the links work alone).
(function () {
  "use strict";
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    var rel = { ArrowLeft: "prev", ArrowRight: "next" }[event.key];
    if (!rel) return;
    var link = document.querySelector('.replay a[rel="' + rel + '"]');
    if (!link) return;
    event.preventDefault();
    window.location.assign(link.href);
  });
})();
