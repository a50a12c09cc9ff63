// The companion page's script: live updates (Server-Sent Events), actions, the correction
// editor and the calibration clicks.  No inline script anywhere (the CSP forbids it).
"use strict";

(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));
  let strings = {};
  try { strings = JSON.parse($("#i18n").textContent); } catch (e) { strings = {}; }
  const tr = (key, fallback) => strings[key] || fallback || key;
  const page = document.body.dataset.page;

  function csrf() {
    const meta = $("#csrf");
    return meta ? meta.getAttribute("content") : "";
  }

  let toastTimer = null;
  function toast(message, kind) {
    const box = $("#toast");
    if (!box) return;
    box.textContent = message;
    box.className = "toast " + (kind || "ok");
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, 4500);
  }

  async function post(url, body) {
    const headers = { "Accept": "application/json" };
    const token = csrf();
    if (token) headers["X-CSRF-Token"] = token;
    let init;
    if (body instanceof FormData) {
      init = { method: "POST", body: body, headers: headers, credentials: "same-origin" };
    } else {
      headers["Content-Type"] = "application/json";
      init = { method: "POST", body: JSON.stringify(body || {}), headers: headers, credentials: "same-origin" };
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (e) {
      return { ok: false, error: tr("offline", "No connection to the referee.") };
    }
    let data;
    try { data = await response.json(); } catch (e) { data = { ok: false, error: response.statusText }; }
    if (!response.ok && data.ok !== false) data.ok = false;
    return data;
  }

  // --- language switch --------------------------------------------------------------------
  const select = $("#lang-select");
  if (select) {
    select.addEventListener("change", () => {
      const next = window.location.pathname + window.location.search;
      window.location.assign("/lang?lang=" + encodeURIComponent(select.value) + "&next=" + encodeURIComponent(next));
    });
  }

  // --- live updates -----------------------------------------------------------------------
  const conn = $("#conn");
  const connText = $("#conn-text");
  function setConn(state) {
    if (!conn) return;
    conn.dataset.state = state;
    connText.textContent = tr(state, state);
  }
  let lastMessage = Date.now();

  // The director's buttons that only work in some states follow the live board: accept only
  // when the alert says the opponent may accept, confirm only while a question waits, the dice
  // correction only while a roll is being played.
  function syncControls() {
    const alert = $("#alert");
    const when = {
      accept: !!alert && alert.dataset.canAccept === "1",
      question: !!$("#question"),
      dice: !!$("#phase[data-dice]"),
    };
    $$("[data-when]").forEach((el) => { el.hidden = !when[el.dataset.when]; });
    const phase = $("#phase[data-dice]");
    if (phase && phase.dataset.dice !== recordedDice) {  // a new roll (or a corrected one): start from it
      recordedDice = phase.dataset.dice;
      recordedDice.split(",").forEach((value, i) => setDie(i, parseInt(value, 10)));
    }
  }

  // --- dice correction: the roll shown large, each die tapped round to its value -------------
  const SVG = "http://www.w3.org/2000/svg";
  const PIPS = {
    1: [[0.5, 0.5]], 2: [[0.27, 0.27], [0.73, 0.73]], 3: [[0.27, 0.27], [0.5, 0.5], [0.73, 0.73]],
    4: [[0.27, 0.27], [0.73, 0.27], [0.27, 0.73], [0.73, 0.73]],
    5: [[0.27, 0.27], [0.73, 0.27], [0.5, 0.5], [0.27, 0.73], [0.73, 0.73]],
    6: [[0.27, 0.25], [0.73, 0.25], [0.27, 0.5], [0.73, 0.5], [0.27, 0.75], [0.73, 0.75]],
  };
  let recordedDice = null;
  function setDie(index, value) {
    const button = $("#die-" + index);
    const input = $("input[name=die" + index + "]");
    if (!button || !input || !(value >= 1 && value <= 6)) return;
    input.value = String(value);
    button.dataset.value = String(value);
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 100 100");
    svg.setAttribute("aria-hidden", "true");
    const face = document.createElementNS(SVG, "rect");
    face.setAttribute("x", "3"); face.setAttribute("y", "3"); face.setAttribute("width", "94");
    face.setAttribute("height", "94"); face.setAttribute("rx", "16"); face.setAttribute("class", "face");
    svg.appendChild(face);
    PIPS[value].forEach(([fx, fy]) => {
      const pip = document.createElementNS(SVG, "circle");
      pip.setAttribute("cx", String(fx * 100)); pip.setAttribute("cy", String(fy * 100));
      pip.setAttribute("r", "9"); pip.setAttribute("class", "pip");
      svg.appendChild(pip);
    });
    const label = document.createElement("span");
    label.className = "die-number";
    label.textContent = String(value);
    button.replaceChildren(svg, label);
  }
  $$(".die-big").forEach((button) => {
    setDie(parseInt(button.dataset.die, 10), parseInt(button.dataset.value, 10));
    button.addEventListener("click", () => {
      const value = parseInt(button.dataset.value, 10) % 6 + 1;
      setDie(parseInt(button.dataset.die, 10), value);
    });
  });
  syncControls();

  function applyState(data) {
    const live = $("#live");
    if (live && typeof data.live === "string") {
      live.innerHTML = data.live;
      live.classList.remove("updated");
      void live.offsetWidth;
      live.classList.add("updated");
      syncControls();
    }
    const status = $("#status");
    if (status && typeof data.status === "string") status.innerHTML = data.status;
    if (data.busy) setConn("busy");
  }

  function addLog(data) {
    const list = $("#log");
    if (!list || !data.text) return;
    const item = document.createElement("li");
    item.className = "log-" + data.type;
    const time = document.createElement("time");
    // the event's own time (a replayed line keeps it), else when it arrived
    const when = typeof data.at === "number" ? new Date(data.at * 1000) : new Date();
    time.dateTime = when.toISOString();
    time.textContent = when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
    item.appendChild(time);
    item.appendChild(document.createTextNode(" " + data.text));
    list.insertBefore(item, list.firstChild);
    while (list.children.length > 60) list.removeChild(list.lastChild);
  }

  if (window.EventSource) {
    const last = document.body.dataset.lastId || "";
    const source = new EventSource(last ? "/events?last=" + encodeURIComponent(last) : "/events");
    source.addEventListener("open", () => { lastMessage = Date.now(); setConn("live"); });
    source.addEventListener("error", () => { setConn("reconnecting"); });
    source.addEventListener("state", (event) => {
      lastMessage = Date.now();
      if (conn && conn.dataset.state !== "busy") setConn("live");
      try { applyState(JSON.parse(event.data)); } catch (e) { /* a broken message is skipped */ }
    });
    source.addEventListener("log", (event) => {
      lastMessage = Date.now();
      try { addLog(JSON.parse(event.data)); } catch (e) { /* skipped */ }
    });
    source.addEventListener("message", () => { lastMessage = Date.now(); });
    // The server restarted (its event ids belong to another run): start the log again from what
    // it sends next, so no line is doubled or missing.
    source.addEventListener("reset", () => {
      lastMessage = Date.now();
      const list = $("#log");
      if (list) while (list.firstChild) list.removeChild(list.firstChild);
    });
    setInterval(() => {
      if (conn && conn.dataset.state === "live" && Date.now() - lastMessage > 40000) setConn("stale");
    }, 5000);
    window.addEventListener("beforeunload", () => source.close());
  } else {
    setConn("reconnecting");
  }

  // --- action forms -----------------------------------------------------------------------
  $$("form.act").forEach((form) => {
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const question = form.dataset.confirm;
      if (question && !window.confirm(question)) return;
      const buttons = $$("button", form);
      buttons.forEach((b) => { b.disabled = true; });
      const data = await post(form.getAttribute("action"), new FormData(form));
      buttons.forEach((b) => { b.disabled = false; });
      if (data.ok) {
        if (data.csrf) { const meta = $("#csrf"); if (meta) meta.setAttribute("content", data.csrf); }
        toast(data.message || tr("done", "Done."), "ok");
        if (form.dataset.reload) window.location.reload();
      } else {
        toast(data.error || tr("failed", "That did not work."), "error");
      }
    });
  });

  // --- new-game form: show the chosen variant's options -----------------------------------
  const newGame = $("#new-game-form");
  if (newGame) {
    const sync = () => {
      const chosen = $("input[name=variant]:checked", newGame);
      $$("fieldset.opts", newGame).forEach((fs) => { fs.hidden = !chosen || fs.dataset.variant !== chosen.value; });
    };
    $$("input[name=variant]", newGame).forEach((radio) => radio.addEventListener("change", sync));
    sync();
  }

  // --- correction editor ------------------------------------------------------------------
  const wrap = $("#editor-wrap");
  if (wrap) {
    const initial = { bottom: JSON.parse(wrap.dataset.bottom), top: JSON.parse(wrap.dataset.top) };
    let board = { bottom: initial.bottom.slice(), top: initial.top.slice() };
    const problem = $("#editor-problem");
    const total = (side) => side.reduce((a, b) => a + b, 0);

    async function redraw() {
      const data = await post("/api/preview", { bottom: board.bottom, top: board.top });
      if (data.svg) wrap.innerHTML = data.svg;
      if (problem) {
        problem.textContent = data.problem || data.error || "";
        problem.hidden = !(data.problem || data.error);
      }
    }

    wrap.addEventListener("click", (event) => {
      const target = event.target.closest("[data-point]");
      if (!target) return;
      const key = target.dataset.point;
      let index;
      let sideName = null;
      if (key === "bar-bottom") { index = 24; sideName = "bottom"; }
      else if (key === "bar-top") { index = 24; sideName = "top"; }
      else if (/^\d+$/.test(key)) { index = parseInt(key, 10) - 1; }
      else return;
      const brush = ($("input[name=brush]:checked") || { value: "light" }).value;
      if (brush === "remove") {
        const order = sideName ? [sideName] : ["top", "bottom"];
        for (const name of order) {
          if (board[name][index] > 0) { board[name][index] -= 1; break; }
        }
      } else {
        const name = brush === "light" ? "bottom" : "top";
        if (sideName && sideName !== name) return;
        if (total(board[name]) >= 15) { toast(tr("fifteen", "Each side has 15 checkers."), "error"); return; }
        board[name][index] += 1;
      }
      redraw();
    });
    const reset = $("#editor-reset");
    if (reset) reset.addEventListener("click", () => { board = { bottom: initial.bottom.slice(), top: initial.top.slice() }; redraw(); });
    const submit = $("#editor-submit");
    if (submit) submit.addEventListener("click", async () => {
      const data = await post("/api/correct_reading", { bottom: board.bottom, top: board.top });
      toast(data.ok ? data.message : data.error, data.ok ? "ok" : "error");
    });
  }

  // --- calibration ------------------------------------------------------------------------
  if (page === "calibration") {
    const img = $("#frame");
    const overlay = $("#corner-overlay");
    const list = $("#corner-list");
    const save = $("#corners-save");
    const noFrame = $("#no-frame");
    let corners = [];
    const names = [tr("tl", "top-left"), tr("tr", "top-right"), tr("br", "bottom-right"), tr("bl", "bottom-left")];
    const NS = "http://www.w3.org/2000/svg";

    function drawCorners() {
      if (!img.naturalWidth) return;
      overlay.setAttribute("viewBox", "0 0 " + img.naturalWidth + " " + img.naturalHeight);
      while (overlay.firstChild) overlay.removeChild(overlay.firstChild);
      if (corners.length > 1) {
        const line = document.createElementNS(NS, "polyline");
        const pts = corners.concat(corners.length === 4 ? [corners[0]] : []);
        line.setAttribute("points", pts.map((c) => c[0] + "," + c[1]).join(" "));
        line.setAttribute("class", "corner-line");
        overlay.appendChild(line);
      }
      corners.forEach((c, i) => {
        const dot = document.createElementNS(NS, "circle");
        dot.setAttribute("cx", c[0]); dot.setAttribute("cy", c[1]); dot.setAttribute("r", 9);
        dot.setAttribute("class", "corner-dot");
        overlay.appendChild(dot);
        const label = document.createElementNS(NS, "text");
        label.setAttribute("x", c[0] + 12); label.setAttribute("y", c[1] - 12);
        label.setAttribute("class", "corner-label");
        label.textContent = String(i + 1);
        overlay.appendChild(label);
      });
      list.textContent = corners.length < 4
        ? tr("next_corner", "Next: ") + names[corners.length] + " (" + corners.length + "/4)"
        : tr("corners_done", "Four corners chosen.");
      save.disabled = corners.length !== 4;
    }

    overlay.addEventListener("click", (event) => {
      if (corners.length >= 4 || !img.naturalWidth) return;
      const box = overlay.getBoundingClientRect();
      const x = Math.round((event.clientX - box.left) / box.width * img.naturalWidth);
      const y = Math.round((event.clientY - box.top) / box.height * img.naturalHeight);
      corners.push([x, y]);
      drawCorners();
    });
    $("#corners-clear").addEventListener("click", () => { corners = []; drawCorners(); });
    save.addEventListener("click", async () => {
      const data = await post("/api/set_corners", { corners: corners });
      toast(data.ok ? data.message : data.error, data.ok ? "ok" : "error");
    });
    img.addEventListener("load", () => { noFrame.hidden = true; img.hidden = false; drawCorners(); });
    img.addEventListener("error", () => { noFrame.hidden = false; img.hidden = true; });
    setInterval(() => {
      const next = new Image();
      next.addEventListener("load", () => { img.src = next.src; });
      next.src = "/calibration/frame.jpg?t=" + Date.now();
      fetch("/calibration/reading", { headers: { "Accept": "application/json" } })
        .then((r) => r.json()).then((d) => { if (d.html) $("#reading").innerHTML = d.html; })
        .catch(() => {});
    }, 2000);
  }
})();
