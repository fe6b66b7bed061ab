// The Mini App's page: the live sheet, the why of every number, the settlement, the
// history, and a phone-first deal form. Plain script, no build step, nothing from elsewhere: it
// works when telegram-web-app.js cannot be loaded (initData then comes from the URL fragment).
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
    const parts = [t("miniapp-game", { game: sheet.game })];
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
  }

  function onSheetTap(event) {
    const target = event.target.closest("[data-record]");
    for (const node of document.querySelectorAll("#sheet text.picked")) node.classList.remove("picked");
    if (!target) return;
    const record = target.getAttribute("data-record");
    for (const node of document.querySelectorAll('#sheet text[data-record="' + record + '"]')) {
      node.classList.add("picked");
    }
    showDeal(Number(record));
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

  async function onSubmit(event) {
    event.preventDefault();
    const line = document.getElementById("line").value.trim();
    const message = document.getElementById("form-message");
    const send = document.getElementById("send");
    message.className = "form-message";
    if (!line) {
      message.textContent = t("miniapp-error-bad-request");
      message.classList.add("error");
      return;
    }
    send.disabled = true;
    send.textContent = t("miniapp-sending");
    try {
      const body = await api("/api/deal", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ start, line, nonce: submission(line) }),
      });
      pending = null;
      message.textContent = t("miniapp-recorded", { number: body.number });
      message.classList.add("ok");
      resetForm();
      await refresh();
    } catch (error) {
      message.textContent = error.message;
      message.classList.add("error");
    } finally {
      send.disabled = false;
      send.textContent = t("miniapp-send");
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
    document.getElementById("sheet").innerHTML = svg;
    showTransfers();
    showHistory(history.lines);
    document.getElementById("form-section").hidden = sheet.finished;
    document.getElementById("main").hidden = false;
    document.body.dataset.deals = String(sheet.deals.length);
    status("");
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
    document.getElementById("sheet").addEventListener("click", onSheetTap);
    document.getElementById("deal-close").addEventListener("click", () => {
      document.getElementById("deal-panel").hidden = true;
    });
    document.getElementById("deal-form").addEventListener("submit", onSubmit);
    document.getElementById("zoom").addEventListener("click", (event) => {
      const zoomed = document.getElementById("sheet").classList.toggle("zoomed");
      event.currentTarget.setAttribute("aria-pressed", String(zoomed));
    });
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

  // telegram-web-app.js loads async and may never load: the page starts without waiting for it
  // (Telegram puts the same initData in the URL fragment) and takes its theme once it is there.
  window.addEventListener("load", () => {
    const tg = telegram();
    if (!tg) return;
    applyTheme();
    tg.ready();
    tg.expand();
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", main);
  else main();
})();
