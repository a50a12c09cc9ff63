// Refreshes the grid of tables; keeps the last grid on screen when the server does not answer.
(function () {
  "use strict";
  var grid = document.getElementById("grid");
  var every = parseInt(document.body.dataset.refresh || "1500", 10);
  var query = document.body.dataset.view === "spectator" ? "?view=spectator" : "";
  function refresh() {
    fetch("/club/grid" + query, { cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) { grid.innerHTML = html; grid.dataset.stale = "false"; })
      .catch(function () { grid.dataset.stale = "true"; })
      .finally(function () { window.setTimeout(refresh, every); });
  }
  window.setTimeout(refresh, every);
})();
