// The Mini App's other tabs: the chat's archive (/games, a page at a time) and its statistics
// (/stats and /top, by period), read from /api/games and /api/stats — the same functions as the
// chat's commands. The sheet's page (app.js) lends its helpers through window.PulkaPage.
"use strict";

(function () {
  const page = window.PulkaPage;
  if (!page) return;
  const { api, t, number, el, start } = page;

  let archivePage = 0;
  let period = "all";
  const q = (path, params) => {
    const query = new URLSearchParams(Object.assign({ start }, params || {}));
    return path + "?" + query.toString();
  };

  function balancesText(balances) {
    if (!balances) return "";
    return Object.entries(balances)
      .map(([name, value]) => name + " " + number(value, true))
      .join(" · ");
  }

  function showGame(game) {
    const state = t("miniapp-state-" + game.status);
    const item = el("li", { "data-game": String(game.number) }, [
      el("div", { class: "title" }, [
        el("span", { text: t("miniapp-game", { game: game.number }) + " · " + game.date }),
        el("span", { class: "meta", text: state }),
      ]),
      el("div", { class: "meta", text: game.convention_name + " · " + game.players.join(", ") }),
    ]);
    if (game.balances) {
      item.append(el("div", { class: "result", text: balancesText(game.balances) }));
    }
    return item;
  }

  async function loadArchive() {
    const body = await api(q("/api/games", { page: archivePage }));
    const list = document.getElementById("archive");
    list.replaceChildren(...body.games.map(showGame));
    if (!body.games.length) list.append(el("li", { class: "meta", text: t("miniapp-archive-empty") }));
    archivePage = body.page;
    const pages = Math.max(body.pages, 1);
    document.getElementById("page-label").textContent = t("miniapp-archive-page", {
      page: body.page + 1,
      pages,
    });
    document.getElementById("page-previous").disabled = body.page <= 0;
    document.getElementById("page-next").disabled = body.page + 1 >= pages;
  }

  function contractsText(contracts) {
    return Object.entries(contracts)
      .filter(([, c]) => c.declared > 0)
      .map(([level, c]) => level + ": " + c.made + "/" + c.declared)
      .join(" · ") || "—";
  }

  function showPlayer(player) {
    const details = [];
    if (player.money !== null) details.push(t("miniapp-stats-money", { amount: number(player.money, true) }));
    if (player.best) {
      details.push(t("miniapp-stats-best", { balance: number(player.best.balance, true), game: player.best.game }));
    }
    if (player.worst) {
      details.push(t("miniapp-stats-worst", { balance: number(player.worst.balance, true), game: player.worst.game }));
    }
    details.push(t("miniapp-stats-contracts", { levels: contractsText(player.contracts) }));
    details.push(t("miniapp-stats-miseres", player.miseres));
    if (player.whists_per_deal !== null) {
      details.push(t("miniapp-stats-whists", { value: number(player.whists_per_deal) }));
    }
    if (player.raspasy.per_deal !== null) {
      details.push(
        t("miniapp-stats-raspasy", { value: number(player.raspasy.per_deal), deals: player.raspasy.deals })
      );
    }
    const total = el("span", { class: "total", text: number(player.total, true) });
    total.classList.add(player.total > 0 ? "plus" : player.total < 0 ? "minus" : "even");
    return el("li", { "data-player": player.name }, [
      el("div", { class: "title" }, [el("span", { text: player.place + ". " + player.name }), total]),
      el("div", {
        class: "meta",
        text: t("miniapp-stats-line", {
          games: player.games,
          wins: player.wins,
          average: number(player.average, true),
          rating: player.rating,
        }),
      }),
      el("details", {}, [
        el("summary", { text: t("miniapp-stats-more") }),
        ...details.map((line) => el("div", { text: line })),
      ]),
    ]);
  }

  async function loadStats() {
    const body = await api(q("/api/stats", { period }));
    document.getElementById("stats-head").textContent = t("miniapp-stats-head", { games: body.games });
    const list = document.getElementById("standings");
    list.replaceChildren(...body.players.map(showPlayer));
    if (!body.players.length) list.append(el("li", { class: "meta", text: t("miniapp-stats-empty") }));
  }

  function fail(listId, error) {
    const list = document.getElementById(listId);
    list.replaceChildren(el("li", { class: "meta error", text: error.message }));
  }

  function show(tab) {
    document.body.dataset.tab = tab;
    for (const button of document.querySelectorAll(".tabs [data-tab]")) {
      button.setAttribute("aria-selected", String(button.dataset.tab === tab));
    }
    document.getElementById("archive-tab").hidden = tab !== "archive";
    document.getElementById("stats-tab").hidden = tab !== "stats";
    page.updateMainButton();
    if (tab === "archive") loadArchive().catch((error) => fail("archive", error));
    if (tab === "stats") loadStats().catch((error) => fail("standings", error));
  }

  function wire() {
    for (const button of document.querySelectorAll(".tabs [data-tab]")) {
      button.addEventListener("click", () => show(button.dataset.tab));
    }
    document.getElementById("page-previous").addEventListener("click", () => {
      archivePage = Math.max(archivePage - 1, 0);
      loadArchive().catch((error) => fail("archive", error));
    });
    document.getElementById("page-next").addEventListener("click", () => {
      archivePage += 1;
      loadArchive().catch((error) => fail("archive", error));
    });
    for (const button of document.querySelectorAll("#periods [data-period]")) {
      button.addEventListener("click", () => {
        period = button.dataset.period;
        for (const other of document.querySelectorAll("#periods [data-period]")) {
          other.setAttribute("aria-pressed", String(other === button));
        }
        loadStats().catch((error) => fail("standings", error));
      });
    }
    document.body.dataset.tab = "sheet";
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();
})();
