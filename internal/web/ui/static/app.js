// statuswatch UI: small conveniences on top of pages that work without script.
// - The compare form submits as soon as a version is picked.
// - On a change view, the left and right arrow keys go to the previous and next change.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
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
