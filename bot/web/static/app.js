// The Mini App's page: the live sheet, the why of every number, the settlement, the
// history, and a phone-first deal form. Plain script, no build step, nothing from elsewhere: it
// works when telegram-web-app.js cannot be loaded (initData then comes from the URL fragment).
// Inside Telegram it uses Telegram's own controls: the MainButton records the deal, the
// BackButton closes a deal's panel, a recorded deal is felt (HapticFeedback), and a theme
// changed while the page is open is followed (themeChanged).
"use strict";

(function () {
  const MINUS = "\u2212";
  const SUITS = [["♠", "s"], ["♣", "c"], ["♦", "d"], ["♥", "h"], ["nt", "nt"]];
  const REFRESH_MS = 20000;

  // -- what Telegram handed us ---------------------------------------------------------------
  function hashParams() {
    return new URLSearchParams(window.location.hash.replace(/^#/, ""));
  }

  function telegram() {
    return window.Telegram && window.Telegram.WebApp ? window.Telegram.WebApp : null;
  }

  function readInitData() {
    const tg = telegram();
    if (tg && tg.initData) return tg.initData;
    return hashParams().get("tgWebAppData") || "";
  }

  const initData = readInitData();
  const initFields = new URLSearchParams(initData);

  function readUser() {
    try {
      return JSON.parse(initFields.get("user") || "null");
    } catch (e) {
      return null;
    }
  }

  function readStart() {
    const query = new URLSearchParams(window.location.search);
    return (
      initFields.get("start_param") ||
      query.get("start") ||
      query.get("tgWebAppStartParam") ||
      hashParams().get("tgWebAppStartParam") ||
      ""
    );
  }

  const user = readUser();
  const start = readStart();
  const code = ((user && user.language_code) || navigator.language || "en").toLowerCase();
  const lang = code.split("-")[0] === "ru" ? "ru" : "en";
  document.documentElement.lang = lang;

  // The theme's colours as the --tg-theme-* variables the stylesheet reads, and its scheme
  // (light or dark: Telegram's colorScheme, else from the background's brightness).
  function applyTheme() {
    const tg = telegram();
    let theme = tg && tg.themeParams ? tg.themeParams : null;
    if (!theme || !Object.keys(theme).length) {
      try {
        theme = JSON.parse(hashParams().get("tgWebAppThemeParams") || "null");
      } catch (e) {
        theme = null;
      }
    }
    if (!theme) return;
    const root = document.documentElement.style;
    for (const [key, value] of Object.entries(theme)) {
      if (typeof value === "string") root.setProperty("--tg-theme-" + key.replace(/_/g, "-"), value);
    }
    let scheme = tg && (tg.colorScheme === "dark" || tg.colorScheme === "light") ? tg.colorScheme : "";
    if (!scheme && typeof theme.bg_color === "string") scheme = isDark(theme.bg_color) ? "dark" : "light";
    if (scheme) document.documentElement.dataset.scheme = scheme;
  }

  function isDark(colour) {
    const hex = colour.replace("#", "");
    if (!/^[0-9a-f]{6}$/i.test(hex)) return false;
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
    return 0.299 * r + 0.587 * g + 0.114 * b < 128;
  }

  // -- words and numbers ---------------------------------------------------------------------
  let texts = {};

  function t(key, params) {
    let text = texts[key] || key;
    for (const [name, value] of Object.entries(params || {})) {
      text = text.split("{" + name + "}").join(String(value));
    }
    return text.replace(/\{[a-z_]+\}/g, "");
  }

  function translatePage() {
    for (const node of document.querySelectorAll("[data-t]")) {
      const key = node.getAttribute("data-t");
      if (texts[key]) node.textContent = texts[key];
    }
    for (const node of document.querySelectorAll("[data-t-label]")) {
      const key = node.getAttribute("data-t-label");
      if (texts[key]) node.setAttribute("aria-label", texts[key]);
    }
    document.title = t("miniapp-title");
  }

  // As the bot writes whists (bot.i18n.Translator.number): one decimal, half away from zero,
  // trailing zero dropped, the language's separator, a real minus sign.
  function number(value, signed) {
    const units = Math.floor(Math.abs(value) * 10 + 0.5 + 1e-9);
    if (units === 0) return "0";
    const whole = Math.floor(units / 10);
    const part = units % 10;
    let text = part ? whole + "." + part : String(whole);
    if (lang === "ru") text = text.replace(".", ",");
    if (value < 0) return MINUS + text;
    return signed ? "+" + text : text;
  }

  function money(value, signed) {
    let text = Math.abs(value).toFixed(2);
    if (lang === "ru") text = text.replace(".", ",");
    if (value < 0) return MINUS + text;
    return signed && value > 0 ? "+" + text : text;
  }

  function tone(value) {
    return value > 0 ? "plus" : value < 0 ? "minus" : "";
  }

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else if (key === "class") node.className = value;
      else node.setAttribute(key, value);
    }
    for (const child of children || []) node.append(child);
    return node;
  }

  // -- talking to the bot --------------------------------------------------------------------
  class ApiError extends Error {
    constructor(status, body) {
      super((body && body.message) || t("miniapp-error-network"));
      this.status = status;
      this.code = body && body.error;
    }
  }

  async function api(path, options) {
    const headers = Object.assign({ Authorization: "tma " + initData }, (options || {}).headers);
    let response;
    try {
      response = await fetch(path, Object.assign({}, options, { headers }));
    } catch (e) {
      throw new ApiError(0, null);
    }
    const type = response.headers.get("Content-Type") || "";
    const body = type.includes("json") ? await response.json() : await response.text();
    if (!response.ok) throw new ApiError(response.status, typeof body === "object" ? body : null);
    return body;
  }

  const q = (path) => path + "?start=" + encodeURIComponent(start);

  // -- the page ------------------------------------------------------------------------------
  let sheet = null;

  function status(text, error) {
    const node = document.getElementById("status");
    node.textContent = text;
    node.classList.toggle("error", Boolean(error));
    node.hidden = !text;
  }

  function showMeta() {
    const parts = [t("miniapp-game", { game: sheet.number || sheet.game })];
    const deals = sheet.deals.filter((d) => d.number > 0).length;
    parts.push(t("miniapp-deals", { count: deals }));
    if (sheet.finished) parts.push(t("miniapp-finished"));
    else if (sheet.next_dealer) parts.push(t("miniapp-next-dealer", { name: sheet.next_dealer }));
    document.getElementById("meta").textContent = parts.join(" · ");
  }

  function showBalances() {
    const list = document.getElementById("balances");
    list.replaceChildren();
    for (const name of sheet.players) {
      const value = sheet.balances[name];
      const row = el("li", { "data-player": name }, [
        el("span", { class: "name", text: name }),
        el("span", {}, [
          el("span", { class: "balance " + tone(value), text: number(value, true) }),
        ]),
      ]);
      if (sheet.money) {
        const cash = sheet.money[name];
        row.lastChild.append(el("span", { class: "money", text: "(" + money(cash, true) + ")" }));
      }
      list.append(row);
    }
  }

  function showTransfers() {
    const list = document.getElementById("transfers");
    list.replaceChildren();
    if (!sheet.transfers.length) {
      list.append(el("li", { text: t("miniapp-nobody-pays") }));
      return;
    }
    for (const tr of sheet.transfers) {
      let amount = number(tr.amount) + " " + t("miniapp-whists-unit");
      if (tr.money !== null && tr.money !== undefined) amount = money(tr.money) + " (" + amount + ")";
      const text = t("miniapp-pays", { debtor: tr.from, creditor: tr.to, amount });
      list.append(el("li", { "data-from": tr.from, "data-to": tr.to, text }));
    }
  }

  function showHistory(lines) {
    const list = document.getElementById("history");
    list.replaceChildren(...lines.map((line) => el("li", { text: line })));
  }

  // -- tap a number: the deal that wrote it --------------------------------------------------
  function entryText(entry) {
    const amount = entry.column === "whists" ? number(entry.amount) : number(entry.amount, true);
    const what =
      entry.column === "whists"
        ? entry.player + " → " + entry.target + ": " + amount + " " + t("miniapp-whists-unit")
        : entry.player + ": " + t("column-" + entry.column) + " " + amount;
    return [what, entry.why];
  }

  function showDeal(index) {
    const deal = sheet.deals[index];
    if (!deal) return;
    document.getElementById("deal-title").textContent = deal.number
      ? t("miniapp-deal-title", { number: deal.number })
      : t("miniapp-record-title");
    document.getElementById("deal-line").textContent = deal.line;
    document.getElementById("deal-author").textContent = deal.author
      ? t("miniapp-by", { author: deal.author })
      : "";
    const list = document.getElementById("deal-entries");
    list.replaceChildren();
    for (const entry of deal.entries) {
      const [what, why] = entryText(entry);
      list.append(
        el("li", { class: "entry" }, [what + " ", el("span", { class: "why", text: "(" + why + ")" })]),
      );
    }
    if (!deal.entries.length) list.append(el("li", { text: t("miniapp-no-entries") }));
    const panel = document.getElementById("deal-panel");
    panel.dataset.deal = String(deal.number);
    panel.hidden = false;
    const tg = telegram();
    if (tg) call(tg.BackButton, "show");
    updateMainButton();
  }

  function closeDeal() {
    document.getElementById("deal-panel").hidden = true;
    for (const node of document.querySelectorAll("#sheet text.picked")) node.classList.remove("picked");
    const tg = telegram();
    if (tg) call(tg.BackButton, "hide");
    updateMainButton();
  }

  function onSheetTap(event) {
    if (dragged) return; // the end of a drag or a pinch, not a tap
    const target = event.target.closest("[data-record]");
    for (const node of document.querySelectorAll("#sheet text.picked")) node.classList.remove("picked");
    if (!target) return;
    const record = target.getAttribute("data-record");
    for (const node of document.querySelectorAll('#sheet text[data-record="' + record + '"]')) {
      node.classList.add("picked");
    }
    showDeal(Number(record));
  }

  // -- the sheet: zoomed with + and − or two fingers, moved by dragging -----------------------
  const ZOOMS = [1, 1.5, 2, 3, 4, 6];
  const MAX_ZOOM = ZOOMS[ZOOMS.length - 1];
  let zoom = 1;
  let dragged = false;

  function sheetBox() {
    return document.getElementById("sheet");
  }

  // The zoom `value` (1: the whole sheet across the page), keeping the sheet's point under
  // (x, y) — page coordinates, the box's middle by default — where it was.
  function setZoom(value, x, y) {
    const box = sheetBox();
    const before = zoom;
    zoom = Math.min(MAX_ZOOM, Math.max(1, value));
    const rect = box.getBoundingClientRect();
    const px = (x === undefined ? rect.width / 2 : x - rect.left) + box.scrollLeft;
    const py = (y === undefined ? rect.height / 2 : y - rect.top) + box.scrollTop;
    box.style.setProperty("--zoom", String(zoom));
    box.classList.toggle("zoomed", zoom > 1);
    box.scrollLeft = (px * zoom) / before - (px - box.scrollLeft);
    box.scrollTop = (py * zoom) / before - (py - box.scrollTop);
    box.dataset.zoom = String(Math.round(zoom * 100) / 100);
    document.getElementById("zoom-out").disabled = zoom <= 1;
    document.getElementById("zoom-in").disabled = zoom >= MAX_ZOOM;
    document.getElementById("zoom-fit").disabled = zoom <= 1;
  }

  function stepZoom(direction) {
    const next = direction > 0 ? ZOOMS.find((z) => z > zoom + 0.01) : [...ZOOMS].reverse().find((z) => z < zoom - 0.01);
    setZoom(next === undefined ? zoom : next);
  }

  // Two fingers pinch (zoom about their middle); one finger or the mouse drags the zoomed sheet.
  const pointers = new Map();
  let pinch = null;
  let drag = null;

  function onPointerDown(event) {
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    dragged = false;
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      pinch = { distance: Math.hypot(a.x - b.x, a.y - b.y) || 1, zoom };
      drag = null;
    } else if (pointers.size === 1 && event.pointerType === "mouse" && zoom > 1) {
      const box = sheetBox();
      drag = { x: event.clientX, y: event.clientY, left: box.scrollLeft, top: box.scrollTop };
    }
  }

  function onPointerMove(event) {
    if (!pointers.has(event.pointerId)) return;
    pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (pinch && pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const distance = Math.hypot(a.x - b.x, a.y - b.y);
      setZoom((pinch.zoom * distance) / pinch.distance, (a.x + b.x) / 2, (a.y + b.y) / 2);
      dragged = true;
      event.preventDefault();
    } else if (drag) {
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 4) dragged = true;
      const box = sheetBox();
      box.scrollLeft = drag.left - dx;
      box.scrollTop = drag.top - dy;
    }
  }

  function onPointerUp(event) {
    pointers.delete(event.pointerId);
    if (pointers.size < 2) pinch = null;
    if (!pointers.size) drag = null;
  }

  function onWheel(event) {
    if (!event.ctrlKey) return; // a trackpad's pinch; a plain wheel scrolls
    event.preventDefault();
    setZoom(zoom * Math.exp(-event.deltaY / 200), event.clientX, event.clientY);
  }

  let svgText = "";
  function showSheet(svg) {
    svgText = svg;
    sheetBox().innerHTML = svg;
  }

  // -- Telegram's own controls ---------------------------------------------------------------
  function call(object, method, ...args) {
    if (object && typeof object[method] === "function") return object[method](...args);
    return undefined;
  }

  function haptic(kind) {
    const tg = telegram();
    if (tg) call(tg.HapticFeedback, "notificationOccurred", kind);
  }

  function usesMainButton() {
    const tg = telegram();
    return Boolean(tg && tg.MainButton && typeof tg.MainButton.setText === "function");
  }

  // The MainButton records the line the form built: shown while there is one to record and no
  // deal's panel is open.
  function updateMainButton() {
    if (!usesMainButton()) return;
    const button = telegram().MainButton;
    const panelOpen = !document.getElementById("deal-panel").hidden;
    const onSheet = (document.body.dataset.tab || "sheet") === "sheet";
    const formShown = onSheet && sheet && !document.getElementById("form-section").hidden;
    const line = document.getElementById("line").value.trim();
    if (panelOpen || !formShown || !line) {
      call(button, "hide");
      return;
    }
    call(button, "setText", t("miniapp-main-send"));
    call(button, "enable");
    call(button, "show");
  }

  let wired = false;
  function setupTelegram() {
    const tg = telegram();
    if (!tg || wired) return;
    wired = true;
    applyTheme();
    call(tg, "ready");
    call(tg, "expand");
    call(tg, "onEvent", "themeChanged", () => {
      applyTheme();
      if (svgText) showSheet(svgText);
    });
    call(tg.BackButton, "onClick", closeDeal);
    if (usesMainButton()) {
      document.body.classList.add("telegram-buttons");
      call(tg.MainButton, "onClick", () => record());
      updateMainButton();
    }
  }

  // -- the deal form: big buttons that build a notation line ---------------------------------
  const choice = { kind: "contract", declarer: null, level: null, suit: null, result: "=",
    roles: {}, tricks: {}, misere: null };

  function active() {
    const players = sheet.players;
    if (players.length === 4 && sheet.next_dealer) return players.filter((p) => p !== sheet.next_dealer);
    return players.slice();
  }

  function buttons(name, options, current, onPick) {
    const box = el("div", { class: "choices", "data-choice": name });
    for (const [label, value] of options) {
      const button = el("button", { type: "button", "data-value": String(value),
        "aria-pressed": String(current === value) });
      for (const ch of String(label)) {
        button.append(ch === "♦" || ch === "♥" ? el("span", { class: "red", text: ch }) : ch);
      }
      button.addEventListener("click", () => {
        onPick(value);
        buildForm();
      });
      box.append(button);
    }
    return box;
  }

  function step(title, node) {
    return [el("p", { class: "step-title", text: title }), node];
  }

  function range(lo, hi) {
    const out = [];
    for (let i = lo; i <= hi; i += 1) out.push(i);
    return out;
  }

  function buildLine() {
    const c = choice;
    if (c.kind === "raspasy") {
      const players = active();
      if (!players.every((p) => c.tricks[p] !== undefined)) return "";
      return "pass " + players.map((p) => p + "/" + c.tricks[p]).join(" ");
    }
    if (!c.declarer) return "";
    if (c.kind === "misere") return c.misere === null ? "" : c.declarer + " misere " + c.misere;
    if (!c.level || !c.suit) return "";
    const defenders = active().filter((p) => p !== c.declarer);
    if (!defenders.every((p) => c.roles[p])) return "";
    const whisters = defenders.filter((p) => c.roles[p] === "vist");
    const played = whisters.length > 0;
    const parts = [c.declarer, c.level + c.suit, played ? c.result : "="];
    for (const p of defenders) {
      let part = c.roles[p] + ":" + p;
      if (whisters.length === 2) {
        if (c.tricks[p] === undefined) return "";
        part += "/" + c.tricks[p];
      }
      parts.push(part);
    }
    return parts.join(" ");
  }

  function buildForm() {
    const steps = document.getElementById("steps");
    const kinds = document.getElementById("kinds");
    kinds.replaceChildren(
      buttons("kind", [[t("miniapp-kind-contract"), "contract"], [t("miniapp-kind-misere"), "misere"],
        [t("miniapp-kind-raspasy"), "raspasy"]], choice.kind, (v) => { choice.kind = v; }),
    );
    kinds.className = "";
    const parts = [];
    const players = active();
    if (choice.kind !== "raspasy") {
      if (choice.declarer && !players.includes(choice.declarer)) choice.declarer = null;
      parts.push(...step(t("miniapp-declarer"), buttons("declarer", players.map((p) => [p, p]),
        choice.declarer, (v) => { choice.declarer = v; })));
    }
    if (choice.kind === "contract") {
      parts.push(...step(t("miniapp-level"), buttons("level", range(6, 10).map((n) => [n, n]),
        choice.level, (v) => { choice.level = v; })));
      parts.push(buttons("suit", SUITS.map(([label, v]) => [label, v === "nt" ? "nt" : label]),
        choice.suit, (v) => { choice.suit = v; }));
      const defenders = players.filter((p) => p !== choice.declarer);
      if (choice.declarer) {
        for (const p of defenders) {
          parts.push(...step(p, buttons("role-" + p, [[t("miniapp-role-vist"), "vist"],
            [t("miniapp-role-pass"), "pass"], [t("miniapp-role-half"), "half"]], choice.roles[p],
          (v) => { choice.roles[p] = v; })));
        }
        const whisters = defenders.filter((p) => choice.roles[p] === "vist");
        if (whisters.length) {
          const results = [["=", "="], ...range(1, 5).map((n) => ["-" + n, "-" + n]),
            ...range(1, 4).map((n) => ["+" + n, "+" + n])];
          parts.push(...step(t("miniapp-result"), buttons("result", results, choice.result,
            (v) => { choice.result = v; })));
        }
        if (whisters.length === 2) {
          for (const p of whisters) {
            parts.push(...step(t("miniapp-tricks-of", { name: p }), buttons("tricks-" + p,
              range(0, 10).map((n) => [n, n]), choice.tricks[p], (v) => { choice.tricks[p] = v; })));
          }
        }
      }
    } else if (choice.kind === "misere") {
      parts.push(...step(t("miniapp-misere-tricks"), buttons("misere", range(0, 10).map((n) => [n, n]),
        choice.misere, (v) => { choice.misere = v; })));
    } else {
      for (const p of players) {
        parts.push(...step(t("miniapp-tricks-of", { name: p }), buttons("tricks-" + p,
          range(0, 10).map((n) => [n, n]), choice.tricks[p], (v) => { choice.tricks[p] = v; })));
      }
    }
    steps.replaceChildren(...parts);
    const line = buildLine();
    if (line) document.getElementById("line").value = line;
    updateMainButton();
  }

  function resetForm() {
    Object.assign(choice, { declarer: null, level: null, suit: null, result: "=", roles: {},
      tricks: {}, misere: null });
    document.getElementById("line").value = "";
    buildForm();
  }

  // One nonce per line sent: a retry of the same line after a lost answer is recorded once.
  let pending = null;
  function submission(line) {
    if (!pending || pending.line !== line) {
      const random = new Uint32Array(2);
      window.crypto.getRandomValues(random);
      pending = { line, nonce: Date.now().toString(36) + random[0].toString(36) + random[1].toString(36) };
    }
    return pending.nonce;
  }

  function onSubmit(event) {
    event.preventDefault();
    record();
  }

  let recording = false;
  async function record() {
    if (recording) return;
    const line = document.getElementById("line").value.trim();
    const message = document.getElementById("form-message");
    const send = document.getElementById("send");
    const tg = telegram();
    const main = usesMainButton() ? tg.MainButton : null;
    message.className = "form-message";
    if (!line) {
      message.textContent = t("miniapp-error-bad-request");
      message.classList.add("error");
      haptic("error");
      return;
    }
    recording = true;
    send.disabled = true;
    send.textContent = t("miniapp-sending");
    call(main, "showProgress", false);
    call(main, "disable");
    try {
      const body = await api("/api/deal", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ start, line, nonce: submission(line) }),
      });
      pending = null;
      message.textContent = t("miniapp-recorded", { number: body.number });
      message.classList.add("ok");
      haptic("success");
      resetForm();
      await refresh();
    } catch (error) {
      message.textContent = error.message;
      message.classList.add("error");
      haptic("error");
    } finally {
      recording = false;
      send.disabled = false;
      send.textContent = t("miniapp-send");
      call(main, "hideProgress");
      updateMainButton();
    }
  }

  // -- loading -------------------------------------------------------------------------------
  async function refresh() {
    const [body, svg, history] = await Promise.all([
      api(q("/api/sheet")),
      api(q("/api/sheet.svg")),
      api(q("/api/history")),
    ]);
    sheet = body;
    showMeta();
    showBalances();
    showSheet(svg);
    showTransfers();
    showHistory(history.lines);
    document.getElementById("form-section").hidden = sheet.finished;
    document.getElementById("main").hidden = false;
    document.body.dataset.deals = String(sheet.deals.length);
    status("");
    updateMainButton();
  }

  async function loadTexts() {
    try {
      const response = await fetch("/api/texts?lang=" + lang);
      texts = (await response.json()).texts || {};
    } catch (e) {
      texts = {};
    }
    translatePage();
  }

  async function main() {
    applyTheme();
    await loadTexts();
    if (!initData) {
      status(t("miniapp-open-in-telegram"), true);
      return;
    }
    const box = sheetBox();
    box.addEventListener("click", onSheetTap);
    box.addEventListener("pointerdown", onPointerDown);
    box.addEventListener("pointermove", onPointerMove);
    for (const type of ["pointerup", "pointercancel", "pointerleave"]) {
      box.addEventListener(type, onPointerUp);
    }
    box.addEventListener("wheel", onWheel, { passive: false });
    document.getElementById("zoom-in").addEventListener("click", () => stepZoom(1));
    document.getElementById("zoom-out").addEventListener("click", () => stepZoom(-1));
    document.getElementById("zoom-fit").addEventListener("click", () => setZoom(1));
    setZoom(1);
    document.getElementById("deal-close").addEventListener("click", closeDeal);
    document.getElementById("deal-form").addEventListener("submit", onSubmit);
    document.getElementById("line").addEventListener("input", updateMainButton);
    setupTelegram();
    try {
      await refresh();
      buildForm();
    } catch (error) {
      status(error.message, true);
      return;
    }
    setInterval(() => {
      if (document.visibilityState === "visible") refresh().catch(() => {});
    }, REFRESH_MS);
  }

  // What the Archive and Stats tabs (tabs.js) share with the sheet's page.
  window.PulkaPage = { api, t, number, el, start, lang, updateMainButton, haptic };

  // telegram-web-app.js loads async and may never load: the page starts without waiting for it
  // (Telegram puts the same initData in the URL fragment) and takes Telegram's controls and
  // theme once it is there.
  window.addEventListener("load", setupTelegram);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", main);
  else main();
})();
