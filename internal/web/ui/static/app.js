// statuswatch UI: small conveniences on top of pages that work without script.
// - The compare form submits as soon as a version is picked.
// - On a change view, the left and right arrow keys go to the previous and next change.
// - A page that carries <meta name="statuswatch-refresh" content="N"> reloads itself
//   every N seconds while it is shown, never while the reader types in a field or
//   selects text (it waits a little and tries again), and not while the tab is hidden.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  var meta = document.querySelector('meta[name="statuswatch-refresh"]');
  var every = meta ? parseInt(meta.content, 10) : 0;
  if (every > 0) {
    var note = document.querySelector(".refresh-note");
    if (note) { note.hidden = false; }
    var due = Date.now() + every * 1000;
    var busy = function () {
      var t = document.activeElement;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return true;
      var sel = window.getSelection && window.getSelection();
      return !!(sel && !sel.isCollapsed);
    };
    setInterval(function () {
      if (Date.now() < due || document.hidden) return;
      if (busy()) { due = Date.now() + 15000; return; }
      location.reload();
    }, 1000);
  }
  var form = document.querySelector("form.compare-form");
  if (form) {
    form.querySelectorAll("select").forEach(function (sel) {
      sel.addEventListener("change", function () { form.submit(); });
    });
  }
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    var t = e.target;
    if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
    var rel = e.key === "ArrowLeft" ? "prev" : e.key === "ArrowRight" ? "next" : "";
    if (!rel) return;
    var link = document.querySelector('nav.stepper a[rel="' + rel + '"]');
    if (link) { link.click(); }
  });
});
