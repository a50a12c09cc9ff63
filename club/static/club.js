// Refreshes the grid of tables; keeps the last grid on screen when the server does not answer.
(function () {
  "use strict";
  var grid = document.getElementById("grid");
  var every = parseInt(document.body.dataset.refresh || "1500", 10);
  var query = document.body.dataset.view === "spectator" ? "?view=spectator" : "";
  function typing() {
    // a director typing a PIN keeps the grid still until the form is sent or left
    var active = document.activeElement;
    if (active && grid.contains(active) && active.tagName === "INPUT") return true;
    return Array.prototype.some.call(grid.querySelectorAll("input[name=pin]"), function (i) { return i.value; });
  }
  function refresh() {
    if (typing()) { window.setTimeout(refresh, every); return; }
    fetch("/club/grid" + query, { cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) { grid.innerHTML = html; grid.dataset.stale = "false"; })
      .catch(function () { grid.dataset.stale = "true"; })
      .finally(function () { window.setTimeout(refresh, every); });
  }
  window.setTimeout(refresh, every);
})();
