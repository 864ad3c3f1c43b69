/* Your move, noticed (no inline script: CSP). On the table page (#turn-alerts):
 *
 * - the document title starts with a mark and the favicon turns yellow while it is
 *   your move (#status.status--your-turn, rendered by the server for you alone);
 * - a polite live region (#announce) says each card as it lands and "Your move";
 * - an optional tone (WebAudio, no file) and, while the tab is hidden, an opt-in
 *   browser notification. Both are off by default; the choices are kept in
 *   localStorage. The words come from the page (translated templates).
 */
(function () {
  "use strict";

  var SOUND_KEY = "skullking.turnSound";
  var NOTIFY_KEY = "skullking.turnNotify";
  var wasMyMove = null;
  var lastPlay = "";
  var baseTitle = null;
  var audio = null;

  function box() {
    return document.getElementById("turn-alerts");
  }

  function stored(key) {
    try { return window.localStorage.getItem(key) === "on"; } catch (e) { return false; }
  }

  function store(key, on) {
    try { window.localStorage.setItem(key, on ? "on" : "off"); } catch (e) { /* private mode */ }
  }

  // One message swaps several regions (the trick, then your status): what they say
  // is gathered and spoken once, in order ("anne plays Green 3. Your move").
  var queued = [];
  var flushing = null;
  function say(words) {
    var region = document.getElementById("announce");
    if (!region || !words.length) return;
    queued = queued.concat(words);
    if (flushing) return;
    flushing = window.setTimeout(function () {
      // Replacing the text (not appending) keeps the region short.
      region.textContent = queued.join(". ");
      queued = [];
      flushing = null;
    }, 60);
  }

  function tone() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    try {
      audio = audio || new Context();
      var osc = audio.createOscillator();
      var gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = 660;
      gain.gain.setValueAtTime(0.0001, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.2, audio.currentTime + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.3);
      osc.connect(gain).connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.32);
    } catch (e) { /* no audio device: the title and favicon still say it */ }
  }

  function notify(text) {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    try { new Notification(text, { tag: "skullking-turn", icon: box().getAttribute("data-turn-icon") }); } catch (e) { /* some browsers refuse outside a worker */ }
  }

  function setIcon(href) {
    var link = document.querySelector('link[rel="icon"]');
    if (link && href && link.getAttribute("href") !== href) link.setAttribute("href", href);
  }

  function latestPlay() {
    var play = document.querySelector("#trick .play--latest");
    if (!play) return null;
    var seat = play.closest(".felt__seat");
    var name = seat && seat.querySelector(".felt__name");
    var face = play.querySelector(".card");
    if (!name || !face) return null;
    // A card's name: its aria-label, or for a special card its label alone ("Pirate").
    var card = face.getAttribute("aria-label") || face.textContent.trim();
    return { key: (play.getAttribute("data-seat") || "") + "/" + face.getAttribute("data-card"),
      name: name.textContent.trim(), card: card };
  }

  function update() {
    var alerts = box();
    if (!alerts) return;
    if (baseTitle === null) baseTitle = document.title;
    var myMove = !!document.querySelector("#status.status--your-turn");
    var mark = alerts.getAttribute("data-title-mark");
    document.title = myMove ? mark + " · " + baseTitle : baseTitle;
    setIcon(myMove ? alerts.getAttribute("data-turn-icon") : alerts.getAttribute("data-icon"));

    var play = latestPlay();
    var words = [];
    if (play && play.key !== lastPlay && wasMyMove !== null) {
      words.push(alerts.getAttribute("data-played").replace("{name}", play.name).replace("{card}", play.card));
    }
    lastPlay = play ? play.key : "";
    if (myMove && wasMyMove === false) {
      words.push(mark);
      if (stored(SOUND_KEY)) tone();
      if (document.hidden && stored(NOTIFY_KEY)) notify(mark + " · " + baseTitle);
    }
    wasMyMove = myMove;
    say(words);
  }

  function setUp() {
    var alerts = box();
    if (!alerts) return;
    var sound = document.getElementById("turn-sound");
    var notifyBox = document.getElementById("turn-notify");
    if (sound) {
      sound.checked = stored(SOUND_KEY);
      sound.addEventListener("change", function () {
        store(SOUND_KEY, sound.checked);
        if (sound.checked) tone(); // a user gesture: lets the browser start audio
      });
    }
    if (notifyBox) {
      if (!("Notification" in window)) {
        notifyBox.disabled = true;
      } else {
        notifyBox.checked = stored(NOTIFY_KEY) && Notification.permission === "granted";
        notifyBox.addEventListener("change", function () {
          if (!notifyBox.checked) { store(NOTIFY_KEY, false); return; }
          Notification.requestPermission().then(function (answer) {
            notifyBox.checked = answer === "granted";
            store(NOTIFY_KEY, notifyBox.checked);
          });
        });
      }
    }
    update();
  }

  document.addEventListener("DOMContentLoaded", setUp);
  document.addEventListener("htmx:afterSettle", update);
  document.addEventListener("htmx:oobAfterSwap", update);
  document.addEventListener("htmx:wsAfterMessage", update);
})();
