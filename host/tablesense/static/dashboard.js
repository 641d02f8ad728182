// The director's dashboard: MQTT over WebSockets straight to the broker.
//
// Reads (docs/contract.md "MQTT"; the state payload in docs/dashboard.md):
// <base>/bridge/state and <base>/bridge/daemon (the daemon and its id: offline,
// everything shown is its last word and nothing is actionable), <base>/+/state
// (retained board state with its table view), <base>/+/readers/+ (retained
// reader health), <base>/+/alert (rulings, QoS 1, at least once: de-duplicated
// by id), <base>/+/alerts (retained: every alert of the session with who
// answered it and when: the one truth every device and every reload shows) and
// <base>/+/cmd/response.
// Writes decide/resolve/reopen commands to <base>/<table>/cmd/by/<login> (QoS 1), so
// the daemon journals them with the director's broker login; the broker's ACL
// lets each login write only under its own name, and lets viewers write nothing.
//
// From the daemon's web server: config.json (no password in it: the page asks),
// catalogue.json (every kind and option: labels, what an option needs, help;
// nothing of it is written here), record.json and report.html (the record),
// dd.json (double-dummy analysis of a table's position).
//
// Everything shown comes from the network, so it is put on the page with
// textContent and attributes only: never innerHTML (a card name or a note with
// HTML in it is shown as text). The server's Content-Security-Policy allows
// scripts from the server alone, as a second line.
"use strict";

(() => {
  const SEATS = ["N", "E", "S", "W"];
  const SEAT_NAMES = { N: "North", E: "East", S: "South", W: "West" };
  const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const ROLE_NAMES = {
    declarer: "declarer", dummy: "dummy", leader: "opening leader", "leaders-partner": "leader's partner",
  };
  const CARD_RE = /^[SHDC][AKQJT98765432]$/;
  const MINE_KEY = "tablesense.myTables";
  const CUE_KEY = "tablesense.cue";
  const LOGIN_KEY = "tablesense.login";
  const SORT_KEY = "tablesense.sort";
  const SEV_RANK = { director: 2, penalty: 1 };

  const st = {
    cfg: null,
    cat: { kinds: {}, options: {} },
    base: "tablesense",
    client: null,
    credentials: null,
    role: null, // "director" | "viewer" | null (not known yet)
    tables: new Map(), // name -> {state, readers: {seat: health}, node, need}
    daemon: null, // null: not known yet; else {online, since, id}
    sort: "table", // "table" | "need"
    alerts: new Map(), // id -> record
    pending: new Map(), // req -> {table, id, action, option, entry}
    filter: "",
    mine: new Set(),
    viewing: null, // the table shown in the table view
    dd: null, // the last double-dummy analysis: {table, key, pending, result}
    session: null, // the daemon's answer to our login: {ok, user, role} (record, report, dd)
    audio: null,
    sound: false,
    unseen: 0,
    reqCount: 0,
    clientId: "tablesense-dash-" + Math.random().toString(16).slice(2, 10),
  };

  function store(kind) {
    try { return kind === "session" ? window.sessionStorage : window.localStorage; } catch (e) { return null; }
  }
  // -- small DOM helpers: text only --------------------------------------------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = String(v);
      else if (k.startsWith("data-")) node.dataset[k.slice(5).replace(/-(.)/g, (_, c) => c.toUpperCase())] = String(v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  const $ = (id) => document.getElementById(id);
  const seatName = (s) => SEAT_NAMES[s] || String(s);
  const words = (s) => String(s || "").replace(/-/g, " ");

  function cardNode(card) {
    const c = String(card);
    if (!CARD_RE.test(c)) return el("span", { class: "card", text: c });
    const rank = c[1] === "T" ? "10" : c[1];
    return el("span", { class: "card suit-" + c[0].toLowerCase(), title: c },
      el("span", { class: "sym", text: SUIT_SYMBOLS[c[0]] }), rank);
  }
  function cardsNode(cards) {
    const span = el("span", { class: "cards" });
    for (const c of cards || []) span.append(cardNode(c), " ");
    return span;
  }
  function contractNode(contract, doubled) {
    if (!contract) return el("span", { text: "—" });
    const c = String(contract);
    const strain = c.slice(-1);
    const level = c.slice(0, -1);
    const span = el("span", { class: "contract" }, level);
    if (SUIT_SYMBOLS[strain]) span.append(el("span", { class: "suit-" + strain.toLowerCase(), text: SUIT_SYMBOLS[strain] }));
    else span.append(strain === "N" ? "NT" : strain);
    if (doubled === 1) span.append(" ×");
    if (doubled === 2) span.append(" ××");
    return span;
  }
  function clock(ms) {
    const d = new Date(typeof ms === "number" && ms > 1e12 ? ms : Date.now());
    return d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
  }

  function kindLabel(kind) {
    const k = st.cat.kinds[kind];
    return k ? k.label : words(kind);
  }
  function optionEntry(opt) {
    return st.cat.options[opt] || { label: words(opt), help: "", needs: null, required: false };
  }

  // -- sections, the filter, my tables -------------------------------------------
  function sectionOf(table) {
    const m = /^([A-Za-z]+)[-_ ]?\d/.exec(String(table));
    return m ? m[1].toUpperCase() : null;
  }
  function shown(table) {
    const f = st.filter;
    if (!f) return true;
    if (f === "mine") return st.mine.size === 0 || st.mine.has(String(table));
    if (f.startsWith("t:")) return f.slice(2) === String(table);
    if (f.startsWith("s:")) return sectionOf(table) === f.slice(2);
    return true;
  }
  function tableNames() {
    return [...st.tables.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  }
  function refreshFilterOptions() {
    const sel = $("filter");
    const names = tableNames();
    const sections = [...new Set(names.map(sectionOf).filter(Boolean))].sort();
    const want = [["", "all tables"], ["mine", "my tables" + (st.mine.size ? " (" + st.mine.size + ")" : "")]];
    if (sections.length > 1) for (const s of sections) want.push(["s:" + s, "section " + s]);
    for (const n of names) want.push(["t:" + n, "table " + n]);
    const have = [...sel.options].map((o) => o.value + "=" + o.textContent).join("\u0000");
    if (have !== want.map((w) => w[0] + "=" + w[1]).join("\u0000")) {
      const keep = st.filter;
      sel.replaceChildren(...want.map(([v, label]) => el("option", { value: v, text: label })));
      sel.value = want.some((w) => w[0] === keep) ? keep : "";
    }
    refreshMine();
  }
  function refreshMine() {
    const list = $("mine-list");
    const names = tableNames();
    if ([...list.querySelectorAll("input")].map((i) => i.value).join("\u0000") === names.join("\u0000")) return;
    list.replaceChildren(...names.map((n) => {
      const box = el("input", { type: "checkbox", value: n, checked: st.mine.has(n) });
      box.addEventListener("change", () => {
        if (box.checked) st.mine.add(n); else st.mine.delete(n);
        store("local")?.setItem(MINE_KEY, JSON.stringify([...st.mine]));
        refreshFilterOptions();
        setFilter("mine");
      });
      return el("label", { class: "mine-item" }, box, "table " + n);
    }));
  }
  function setFilter(value) {
    st.filter = value;
    $("filter").value = value;
    store("local")?.setItem(MINE_KEY + ".filter", value);
    applyFilter();
  }
  function applyFilter() {
    for (const [name, t] of st.tables) if (t.node) t.node.hidden = !shown(name);
    for (const rec of st.alerts.values()) rec.node.hidden = !shown(rec.table);
    renderNeeding();
    updateCounts();
  }

  // -- tables ---------------------------------------------------------------------
  function table(name) {
    let t = st.tables.get(name);
    if (!t) {
      t = { state: null, readers: {}, node: null, need: null };
      st.tables.set(name, t);
      refreshFilterOptions();
    }
    return t;
  }

  // -- readers ----------------------------------------------------------------------
  // A reader's retained health is published under its name: a seat's own reader is
  // named by the seat; a reader covering several seats (a camera over the table) has
  // its own name and lists them in `seats`.
  function covers(name, h) {
    return Array.isArray(h.seats) ? h.seats.map(String) : SEATS.includes(name) ? [name] : [];
  }

  const READER_RANK = { offline: 2, unknown: 1, online: 0 };

  function readerState(h) {
    if (daemonDown()) return "offline"; // nobody watches the readers: their retained word is stale
    const state = String(h.state);
    return state in READER_RANK ? state : "unknown";
  }

  function readerLabel(name, h) {
    const seats = covers(name, h);
    const who = SEATS.includes(name) && seats.length === 1 && seats[0] === name
      ? seatName(name) + "'s reader" : "reader " + name + " (" + seats.map(seatName).join(", ") + ")";
    return who + ": " + String(h.state) + (h.reason ? " (" + h.reason + ")" : "")
      + (h.serial ? " · " + h.serial : "");
  }

  function readersNode(all) {
    const box = el("div", { class: "readers", "aria-label": "readers" });
    const named = Object.entries(all).filter(([, h]) => h && typeof h === "object");
    // a seat's dot: every reader covering it, the worst of their states
    for (const seat of SEATS) {
      const hs = named.filter(([name, h]) => covers(name, h).includes(seat));
      let state = hs.length ? "online" : "unknown";
      for (const [, h] of hs) if (READER_RANK[readerState(h)] > READER_RANK[state]) state = readerState(h);
      const tip = hs.length ? seatName(seat) + " · " + hs.map(([name, h]) => readerLabel(name, h)).join(" · ")
        : seatName(seat) + ": no news";
      box.append(el("span", { class: "reader reader-" + state, title: tip, "data-seat": seat, text: seat }));
    }
    // then each reader covering several seats, with the seats it covers and its health
    for (const [name, h] of named) {
      if (!Array.isArray(h.seats)) continue;
      const seats = covers(name, h);
      box.append(el("span", {
        class: "reader-multi reader-" + readerState(h), title: readerLabel(name, h),
        "data-reader": name, "data-seats": seats.join(" "),
      }, el("span", { class: "reader-name", text: name }), el("span", { class: "reader-seats", text: seats.join(" ") })));
    }
    return box;
  }

  function renderTable(name) {
    const t = table(name);
    const s = t.state || { phase: "unknown" };
    const card = el("article", {
      class: "table-card phase-" + String(s.phase) + (st.viewing === name ? " viewing" : ""),
      "data-table": name, tabindex: "0", role: "button", "aria-label": "table " + name + ": open the table view",
    });
    card.append(el("header", {},
      el("h3", { text: "Table " + name }),
      el("span", { class: "phase", text: words(s.phase) })));
    const dl = el("dl", { class: "facts" });
    const fact = (k, v) => dl.append(el("dt", { text: k }), el("dd", {}, v));
    if (s.board !== undefined) {
      fact("Board", String(s.board) + (s.vul ? " · vul " + s.vul : ""));
      fact("Dealer", s.dealer ? seatName(s.dealer) : "—");
      fact("Contract", s.declarer
        ? el("span", {}, contractNode(s.contract, s.doubled), " by " + seatName(s.declarer))
        : el("span", { text: s.contract ? String(s.contract) : "—" }));
      fact("Turn", s.turn ? seatName(s.turn) : "—");
      if (s.tricks) fact("Tricks", "NS " + (s.tricks.NS ?? 0) + " · EW " + (s.tricks.EW ?? 0));
      if (s.code) fact("Laws", String(s.code));
    }
    card.append(dl);

    card.append(readersNode(t.readers));
    const stale = staleReaders(t.readers);
    if (daemonDown()) {
      card.classList.add("offline");
      card.append(el("p", { class: "table-offline", text: "offline: the daemon stopped" + (st.daemon.since ? " at " + clock(st.daemon.since) : "") }));
    } else if (stale.length) {
      card.classList.add("stale");
      card.append(el("p", { class: "stale-readers", text: "readers not heard: " + stale.join(", ") }));
    }
    const need = t.need;
    card.dataset.open = String(need ? need.open : 0);
    if (need && need.open) {
      card.classList.add("needs", "needs-" + (need.severity || "penalty"));
      card.append(el("p", { class: "need", "data-worst": need.worst || "" },
        el("b", { class: "need-count", text: need.open + " open" }), " · " + kindLabel(need.worst) + " · ",
        el("span", { class: "age", "data-since": String(need.oldest || ""), text: age(need.oldest) })));
    }

    const pcs = s.penalty_cards || {};
    const pcSeats = Object.keys(pcs).filter((k) => (pcs[k] || []).length);
    if (pcSeats.length) {
      const box = el("div", { class: "penalty" }, el("span", { class: "label", text: "Penalty cards " }));
      for (const seat of pcSeats) box.append(el("span", { class: "pc-seat", text: seat + ": " }), cardsNode(pcs[seat]));
      card.append(box);
    }
    const open = () => openView(st.viewing === name ? null : name);
    card.addEventListener("click", open);
    card.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); open(); } });
    card.hidden = !shown(name);

    const grid = $("tables");
    grid.querySelector(".empty")?.remove();
    if (t.node && t.node.parentNode === grid) grid.replaceChild(card, t.node);
    else grid.append(card);
    t.node = card;
    sortGrid();
    renderNeeding();
    if (st.viewing === name) renderView();
  }

  // -- the room at a glance: which table needs the director, and how much -------------
  function daemonDown() { return st.daemon !== null && !st.daemon.online; }
  function staleReaders(all) {
    return Object.entries(all).filter(([, h]) => h && typeof h === "object" && String(h.state) !== "online")
      .map(([name, h]) => (SEATS.includes(name) ? seatName(name) : name) + (h.reason ? " (" + words(h.reason) + ")" : ""));
  }
  function age(t) {
    if (typeof t !== "number" || t <= 0) return "";
    const s = Math.max(0, Math.round((Date.now() - t) / 1000));
    return s < 60 ? s + " s" : s < 3600 ? Math.round(s / 60) + " min" : Math.floor(s / 3600) + " h " + Math.round((s % 3600) / 60) + " min";
  }
  // more need first: a director-severity alert, then more open alerts, then the oldest
  function needKey(name) {
    const n = st.tables.get(name)?.need;
    if (!n || !n.open) return [0, 0, 0];
    return [SEV_RANK[n.severity] || 0, n.open, -(n.oldest || 0)];
  }
  function byNeed(a, b) {
    const ka = needKey(a), kb = needKey(b);
    for (let i = 0; i < 3; i++) if (ka[i] !== kb[i]) return kb[i] - ka[i];
    return a.localeCompare(b, undefined, { numeric: true });
  }
  function sortGrid() {
    const grid = $("tables");
    const names = tableNames();
    if (st.sort === "need") names.sort(byNeed);
    const nodes = names.map((n) => st.tables.get(n)?.node).filter((n) => n && n.parentNode === grid);
    if (nodes.every((n, i) => grid.children[i] === n)) return;
    for (const n of nodes) grid.append(n);
  }
  function renderNeeding() {
    const box = $("needing-list");
    if (!box) return;
    const names = tableNames().filter((n) => (st.tables.get(n)?.need?.open || 0) > 0 && shown(n)).sort(byNeed);
    $("needing").classList.toggle("none", names.length === 0);
    if (!names.length) { box.replaceChildren(el("li", { class: "empty", text: "no table needs you now" })); return; }
    box.replaceChildren(...names.map((n) => {
      const need = st.tables.get(n).need;
      const b = el("button", { class: "btn need-btn needs-" + (need.severity || "penalty"), type: "button", "data-table": n },
        el("b", { text: "Table " + n }), " · " + need.open + " open · " + kindLabel(need.worst) + " · ",
        el("span", { class: "age", "data-since": String(need.oldest || ""), text: age(need.oldest) }));
      b.addEventListener("click", () => {
        openView(n);
        const first = [...$("alerts").querySelectorAll(".alert")].find((x) => x.dataset.table === n && !x.hidden);
        first?.scrollIntoView({ block: "nearest" });
      });
      return el("li", {}, b);
    }));
  }
  function tickAges() {
    for (const a of document.querySelectorAll(".age[data-since]")) {
      const t = Number(a.dataset.since);
      if (t) a.textContent = age(t);
    }
  }
  function setSort(value) {
    st.sort = value === "need" ? "need" : "table";
    $("sort").value = st.sort;
    store("local")?.setItem(SORT_KEY, st.sort);
    sortGrid();
  }

  // -- the table view: a vugraph of one table -----------------------------------------
  function openView(name) {
    const prev = st.viewing;
    st.viewing = name;
    $("tv").hidden = name === null;
    for (const n of [prev, name]) if (n !== null && n !== undefined && st.tables.get(n)?.node) st.tables.get(n).node.classList.toggle("viewing", n === name);
    if (name !== null) {
      renderView();
      $("tv").scrollIntoView({ block: "nearest" });
    }
  }

  // cards: the seat's cards in suit order; sensed: the state's card positions
  function suitRows(cards, sensed, lying) {
    const rows = el("div", { class: "suits" });
    for (const suit of ["S", "H", "D", "C"]) {
      const row = el("div", { class: "suit-row suit-" + suit.toLowerCase() }, el("span", { class: "sym", text: SUIT_SYMBOLS[suit] }));
      const mine = cards.filter((c) => String(c)[0] === suit);
      if (!mine.length) row.append(el("span", { class: "void", text: "—" }));
      for (const card of mine) {
        const p = sensed[card] || {};
        const zone = String(p.zone || "unknown");
        const face = String(p.face || "unknown");
        const up = face === "up" || lying.has(card);
        row.append(el("span", {
          class: "hc" + (up ? " hc-up" : "") + (zone !== "hand" && zone !== "unknown" ? " hc-" + zone : ""),
          title: card + " · " + zone + (face !== "unknown" ? ", face " + face : ""), "data-card": card,
          text: card[1] === "T" ? "10" : card[1],
        }));
      }
      rows.append(row);
    }
    return rows;
  }

  function renderView() {
    const name = st.viewing;
    if (name === null) return;
    const t = table(name);
    const s = t.state || {};
    const v = s.view || {};
    $("tv-h").textContent = "Table " + name + (s.board !== undefined ? " · board " + s.board : "");
    const body = el("div", { class: "tv-body", "data-table": name });
    if (!v.hands) {
      body.append(el("p", { class: "empty", text: s.board === undefined ? "no board yet" : "waiting for the deal…" }));
      $("tv-body").replaceChildren(body);
      return;
    }
    const lying = new Map((v.lying || []).map((l) => [l.card, l]));
    const grid = el("div", { class: "tv-grid" });
    const roleOf = (seat) => {
      if (!s.declarer) return "";
      if (seat === s.declarer) return "declarer";
      if (seat === s.dummy) return "dummy";
      return "defender";
    };
    for (const seat of SEATS) {
      const hand = el("div", { class: "tv-seat tv-" + seat.toLowerCase() + (v.turn === seat ? " on-turn" : ""), "data-seat": seat });
      hand.append(el("h3", {}, seatName(seat), el("span", { class: "tv-role", text: (roleOf(seat) ? " · " + roleOf(seat) : "") + (s.dealer === seat ? " · dealer" : "") + (v.turn === seat ? " · to play" : "") })));
      hand.append(suitRows(v.hands[seat] || [], s.cards || {}, lying));
      const here = (v.lying || []).filter((l) => l.seat === seat && l.status !== "dummy");
      if (here.length) {
        const ul = el("ul", { class: "tv-lying" });
        for (const l of here) {
          ul.append(el("li", { "data-status": l.status, "data-card": l.card }, cardNode(l.card), " ",
            el("b", { text: l.label }), l.obliges ? " — " + l.obliges : "", l.ruling ? el("span", { class: "ruling-id", text: " (" + l.ruling + ")" }) : null));
        }
        hand.append(ul);
      }
      grid.append(hand);
    }
    const mid = el("div", { class: "tv-trick", "aria-label": "current trick" });
    const tr = v.trick || { cards: [] };
    mid.append(el("p", { class: "tv-trick-title", text: tr.cards && tr.cards.length
      ? "trick " + tr.number + " · led by " + seatName(tr.leader) : (s.phase === "play" || s.phase === "lead" ? "trick " + ((tr.number || 0) + 1) + ": nothing played yet" : words(s.phase)) }));
    const spots = el("div", { class: "tv-spots" });
    for (const seat of SEATS) {
      const play = (tr.cards || []).find((p) => p[0] === seat);
      // a card sensed in the trick zone before the engine counts it: shown, marked "sensed"
      const sensed = play ? null : (tr.pending || []).find((p) => p[0] === seat);
      spots.append(el("div", { class: "tv-spot tv-spot-" + seat.toLowerCase() + (sensed ? " pending" : ""), "data-seat": seat },
        play ? cardNode(play[1]) : sensed ? cardNode(sensed[1]) : null,
        play && tr.leader === seat ? el("span", { class: "led", text: "led" }) : null,
        sensed ? el("span", { class: "led", text: "sensed" }) : null));
    }
    mid.append(spots);
    const tk = v.tricks || {};
    mid.append(el("p", { class: "tv-tricks", text: "tricks NS " + (tk.NS ?? 0) + " · EW " + (tk.EW ?? 0) }));
    grid.append(mid);
    body.append(grid);

    const info = el("div", { class: "tv-info" });
    const a = v.auction || {};
    const auc = el("div", { class: "tv-auction" }, el("h4", { text: "Auction" }));
    if (a.contract) auc.append(el("p", { class: "tv-contract" }, contractNode(a.contract, a.doubled), a.declarer ? " by " + seatName(a.declarer) : ""));
    const calls = a.calls || [];
    if (calls.length) {
      const tbl = el("table", { class: "auction" });
      tbl.append(el("tr", {}, ...["W", "N", "E", "S"].map((x) => el("th", { text: x }))));
      let row = el("tr", {});
      const startCol = ["W", "N", "E", "S"].indexOf(a.dealer || calls[0][0]);
      for (let i = 0; i < startCol; i++) row.append(el("td", {}));
      let col = startCol;
      for (const [, call] of calls) {
        row.append(el("td", {}, callNode(call)));
        col++;
        if (col === 4) { tbl.append(row); row = el("tr", {}); col = 0; }
      }
      if (col) tbl.append(row);
      auc.append(tbl);
    } else auc.append(el("p", { class: "empty", text: "no calls yet" }));
    info.append(auc);

    const dummyCards = (v.lying || []).filter((l) => l.status === "dummy");
    if (dummyCards.length) info.append(el("p", { class: "tv-dummy" }, el("b", { text: "Dummy's display: " }), cardsNode(dummyCards.map((l) => l.card))));
    if ((v.restrictions || []).length) {
      const ul = el("ul", { class: "tv-restrictions" });
      for (const r of v.restrictions) ul.append(el("li", { text: r.text }));
      info.append(el("div", {}, el("h4", { text: "In force" }), ul));
    }
    const als = v.alerts || [];
    const alBox = el("div", { class: "tv-alerts" }, el("h4", { text: "This board's alerts" }));
    if (!als.length) alBox.append(el("p", { class: "empty", text: "none" }));
    else {
      const ul = el("ul", {});
      for (const x of als) {
        ul.append(el("li", { class: x.open ? "open" : "closed", "data-alert-id": x.id },
          el("b", { text: kindLabel(x.kind) }), " ", cardsNode(x.cards), " ",
          el("span", { class: "citation", text: x.citation || "" }),
          el("span", { class: "tv-alert-state", text: x.open ? (x.decided ? " · decided" : " · open") : " · closed" })));
      }
      alBox.append(ul);
    }
    info.append(alBox);
    body.append(info);

    const dd = el("div", { class: "tv-dd" });
    const ddBtn = el("button", { class: "btn", type: "button", text: "double dummy from here", hidden: st.session?.role !== "director" });
    const ddOut = el("div", { class: "dd-out", "aria-live": "polite" });
    ddBtn.addEventListener("click", () => doubleDummy(name));
    showDD(name, ddOut, s);
    dd.append(ddBtn, el("a", { class: "btn btn-quiet", href: "report.html?table=" + encodeURIComponent(name) + (s.board !== undefined ? "&board=" + s.board : ""), target: "_blank", rel: "noopener", text: "this board's report" }), ddOut);
    body.append(dd);
    $("tv-body").replaceChildren(body);
  }

  function callNode(call) {
    const c = String(call);
    if (c === "P") return el("span", { text: "pass" });
    if (c === "X") return el("span", { class: "dbl", text: "×" });
    if (c === "XX") return el("span", { class: "dbl", text: "××" });
    return contractNode(c, 0);
  }

  // The view is drawn again at every state message: the analysis is kept apart, with the
  // position it was made from, and drawn from there.
  function positionKey(s) {
    return JSON.stringify([s.board, s.played ? s.played.length : 0, s.trick || []]);
  }
  // The daemon's documents (record, report, double dummy) are given to a broker login
  // too: the page hands its login over once connected and gets a session cookie.
  async function openSession() {
    const creds = st.credentials;
    const headers = {};
    if (creds && creds.username) {
      const bytes = new TextEncoder().encode(creds.username + ":" + (creds.password || ""));
      headers.Authorization = "Basic " + btoa(String.fromCharCode(...bytes));
    }
    try {
      const r = await fetch("session", { cache: "no-store", headers });
      st.session = await r.json();
    } catch (e) {
      st.session = { ok: false, error: "no answer from the daemon" };
    }
    if (st.viewing !== null) renderView();
    if ($("record-box").open) loadRecord();
  }

  async function doubleDummy(name) {
    const s = table(name).state || {};
    st.dd = { table: name, key: positionKey(s), pending: true };
    renderView();
    let r;
    try {
      const resp = await fetch("dd.json?table=" + encodeURIComponent(name), { cache: "no-store" });
      r = await resp.json();
    } catch (e) {
      r = { ok: false, error: "no answer from the daemon" };
    }
    if (st.dd && st.dd.table === name) { st.dd.pending = false; st.dd.result = r; }
    renderView();
  }
  function showDD(name, out, s) {
    const d = st.dd;
    if (!d || d.table !== name) return;
    if (d.pending) { out.replaceChildren(el("p", { class: "empty", text: "solving…" })); return; }
    const r = d.result;
    if (!r.ok) { out.replaceChildren(el("p", { class: "err", text: String(r.error) })); return; }
    const lines = [el("p", { class: "dd-summary" },
      "With best play from here, declarer's side takes ", el("b", { text: String(r.declarer_tricks) }), " tricks",
      r.result === null || r.result === undefined ? "" : " (" + (r.result === 0 ? "made exactly" : r.result > 0 ? "made with " + r.result + " over" : "down " + (-r.result)) + ")",
      "; " + seatName(r.on_play) + " to play, " + r.remaining + " tricks left.")];
    const cards = el("p", { class: "dd-cards" }, el("span", { class: "label", text: seatName(r.on_play) + "'s cards → declarer's tricks: " }));
    for (const c of r.cards || []) cards.append(el("span", { class: "dd-card" }, cardNode(c.card), "→" + (r.won ? (r.won[r.declarer === "N" || r.declarer === "S" ? "NS" : "EW"] || 0) + c.tricks : c.tricks)), " ");
    lines.push(cards);
    if (r.dd_table) {
      const tbl = el("table", { class: "dd-table" });
      tbl.append(el("tr", {}, el("th", { text: "the deal" }), ...["N", "S", "E", "W"].map((x) => el("th", { text: x }))));
      for (const strain of ["N", "S", "H", "D", "C"]) {
        tbl.append(el("tr", {}, el("th", {}, strain === "N" ? "NT" : el("span", { class: "suit-" + strain.toLowerCase(), text: SUIT_SYMBOLS[strain] })),
          ...["N", "S", "E", "W"].map((x) => el("td", { text: String(r.dd_table[strain][x]) }))));
      }
      lines.push(tbl);
    }
    if (d.key !== positionKey(s)) lines.unshift(el("p", { class: "err", text: "The play has moved on since: solve again for the position now." }));
    lines.push(el("p", { class: "note-small", text: "Double dummy: every card seen, best play by both sides; one thing a director weighs for an adjusted score (Laws 12C, 64C)." }));
    out.replaceChildren(...lines);
  }

  // -- alerts -----------------------------------------------------------------
  function addAlert(a, live) {
    if (!a || typeof a !== "object" || typeof a.id !== "string") return null;
    const known = st.alerts.get(a.id);
    if (known) return known; // at-least-once delivery: the second copy is dropped
    const rec = {
      id: a.id, alert: a, table: String(a.table ?? ""), live, open: true,
      seenInState: false, boardOver: false, decided: [], note: "", node: null, statusNode: null,
    };
    rec.node = buildAlert(rec);
    st.alerts.set(a.id, rec);
    const list = $("alerts");
    list.querySelector(".empty")?.remove();
    list.prepend(rec.node);
    rec.node.hidden = !shown(rec.table);
    refreshActions(rec);
    if (live) cue(rec);
    updateCounts();
    return rec;
  }

  function buildAlert(rec) {
    const a = rec.alert;
    const sev = ["penalty", "director", "info"].includes(a.severity) ? a.severity : "director";
    const node = el("article", { class: "alert sev-" + sev, "data-alert-id": rec.id, "data-table": rec.table });
    node.append(el("header", {},
      el("span", { class: "where", text: "Table " + rec.table + (a.board !== undefined ? " · board " + a.board : "") }),
      el("span", { class: "kind", text: kindLabel(a.kind) }),
      el("span", { class: "sev", text: sev }),
      el("time", { text: clock(a.t) })));
    node.append(el("p", { class: "text", text: a.text || "" }));
    const help = st.cat.kinds[a.kind]?.help;
    if (help) node.append(el("details", { class: "kind-help" }, el("summary", { text: "what is " + kindLabel(a.kind).toLowerCase() + "?" }), el("p", { text: help })));
    const meta = el("p", { class: "meta" });
    if (a.citation) meta.append(el("span", { class: "citation", text: a.citation }));
    if (a.offender) meta.append(el("span", { class: "offender", text: "offender " + seatName(a.offender) + (a.role ? " (" + (ROLE_NAMES[a.role] || words(a.role)) + ")" : "") }));
    if (a.cards && a.cards.length) meta.append(el("span", { class: "alert-cards" }, "cards ", cardsNode(a.cards)));
    if (a.until) meta.append(el("span", { class: "until", text: "until " + words(a.until) }));
    if (a.supersedes && a.supersedes.length) meta.append(el("span", { class: "supersedes", text: "replaces " + a.supersedes.join(", ") }));
    node.append(meta);

    const actions = el("div", { class: "actions" });
    const options = Array.isArray(a.options) ? a.options : [];
    if (options.length) {
      const row = el("div", { class: "options", role: "group", "aria-label": "the non-offending side's options" });
      for (const opt of options) row.append(optionControl(rec, String(opt)));
      actions.append(row);
    }
    const engineAlert = /^.+-\d+-\d+$/.test(rec.id) && a.kind !== "reader-offline";
    node.append(el("ul", { class: "decisions", "aria-label": "decisions, from every device" }));
    const form = el("form", { class: "resolve" });
    const note = el("input", { class: "note", type: "text", placeholder: "note for the record", "aria-label": "note", maxlength: "500" });
    const btn = el("button", { class: "btn btn-resolve", type: "submit", text: engineAlert ? "Resolve" : "Dismiss" });
    form.append(note, btn);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      rec.note = note.value;
      send(rec, "resolve", { type: "resolve", alert: rec.id, note: note.value });
      // the daemon's own alerts (not rulings) go at once here; the daemon's ledger
      // dismisses them on every other device
      if (!engineAlert) close(rec, "dismissed" + (note.value ? ": " + note.value : ""));
    });
    actions.append(form);
    // an answered alert takes no second decision until a director re-opens it (journaled)
    const reopen = el("button", { class: "btn btn-reopen", type: "button", text: "Re-open", hidden: true, title: "take the answer back: the alert takes a new decision" });
    reopen.addEventListener("click", () => send(rec, "reopen", { type: "reopen", alert: rec.id, note: note.value }));
    actions.append(reopen);
    if ("speechSynthesis" in window) {
      const speak = el("button", { class: "btn btn-quiet", type: "button", text: "read aloud" });
      speak.addEventListener("click", () => {
        window.speechSynthesis.cancel();
        window.speechSynthesis.speak(new SpeechSynthesisUtterance(a.text || ""));
      });
      actions.append(speak);
    }
    node.append(actions);
    rec.statusNode = el("ul", { class: "responses" });
    node.append(rec.statusNode);
    node.addEventListener("pointerenter", seen);
    return node;
  }

  function optionControl(rec, opt) {
    const a = rec.alert;
    const wrap = el("span", { class: "option" });
    const entry = optionEntry(opt);
    const need = entry.needs;
    let pick = null;
    if (need === "suit") {
      pick = el("select", { "aria-label": entry.label + ": suit" });
      if (!entry.required) pick.append(el("option", { value: "", text: "its suit" }));
      for (const s of ["S", "H", "D", "C"]) pick.append(el("option", { value: s, text: SUIT_SYMBOLS[s] + " " + SUIT_NAMES[s] }));
    } else if (need === "card") {
      pick = el("select", { "aria-label": entry.label + ": card" });
      if (!entry.required) pick.append(el("option", { value: "", text: "the card" }));
      for (const c of a.cards || []) pick.append(el("option", { value: c, text: CARD_RE.test(c) ? SUIT_SYMBOLS[c[0]] + (c[1] === "T" ? "10" : c[1]) : c }));
    } else if (need === "seat") {
      pick = el("select", { "aria-label": entry.label + ": player" });
      if (!entry.required) pick.append(el("option", { value: "", text: "whoever may" }));
      for (const s of SEATS) pick.append(el("option", { value: s, text: seatName(s) }));
    }
    const btn = el("button", { class: "btn btn-option", type: "button", "data-option": opt, text: entry.label, title: entry.help || "" });
    btn.addEventListener("click", () => {
      const cmd = { type: "decide", alert: rec.id, option: opt };
      if (pick && pick.value) cmd[need] = pick.value;
      send(rec, "decide", cmd);
    });
    wrap.append(btn);
    if (pick) wrap.append(pick);
    return wrap;
  }

  function close(rec, why, t) {
    if (!rec.open) return;
    rec.open = false;
    rec.node.classList.add("closed");
    rec.node.append(el("p", { class: "closed-why", text: "closed " + clock(t) + ": " + why }));
    for (const b of rec.node.querySelectorAll(".actions button, .actions input, .actions select")) b.disabled = true;
    $("history").prepend(rec.node);
    updateCounts();
  }

  // The board an alert belongs to is over: its options lapsed, but it stays
  // open until the director resolves it (a note for the record, a score to adjust).
  function boardOver(rec) {
    if (rec.boardOver) return;
    rec.boardOver = true;
    rec.node.classList.add("board-over");
    for (const b of rec.node.querySelectorAll(".options button, .options select")) b.disabled = true;
    rec.node.querySelector(".actions").before(
      el("p", { class: "lapsed", text: "board " + rec.alert.board + " is over: the options lapsed" }));
  }

  function reconcileState(name, s) {
    if (!s || s.board === undefined) return;
    const obs = Array.isArray(s.obligations) ? s.obligations : [];
    const ids = new Set();
    const replacedBy = {};
    for (const o of obs) {
      if (!o || typeof o.id !== "string") continue;
      ids.add(o.id);
      for (const old of o.supersedes || []) replacedBy[old] = o.id;
      const rec = st.alerts.get(o.id) || addAlert(o, false);
      if (rec) rec.seenInState = true;
    }
    for (const rec of st.alerts.values()) {
      if (!rec.open || rec.table !== name || rec.alert.kind === "reader-offline") continue;
      if (rec.alert.board !== undefined && rec.alert.board !== s.board) boardOver(rec);
      else if (replacedBy[rec.id]) close(rec, "superseded by " + replacedBy[rec.id]);
      else if (rec.seenInState && !ids.has(rec.id)) close(rec, "resolved" + (rec.note ? ": " + rec.note : ""));
    }
  }

  function reconcileReader(name, seat, h) {
    if (!h || h.state !== "online") return;
    for (const rec of st.alerts.values()) {
      if (rec.open && rec.table === name && rec.alert.kind === "reader-offline"
          && rec.alert.reader === seat && (h.since || 0) >= (rec.alert.t || 0)) {
        close(rec, seatName(seat) + "'s reader is back online");
      }
    }
  }

  // -- the ledger: every alert of the session, the same on every device --------------
  function applyLedger(name, led) {
    if (!led || typeof led !== "object") return;
    const t = table(name);
    t.need = { open: Number(led.open ? led.open.length : 0), worst: led.worst || null, severity: led.severity || null, oldest: led.oldest || null };
    for (const e of [...(led.open || []), ...(led.closed || [])]) {
      if (!e || typeof e.id !== "string") continue;
      const rec = st.alerts.get(e.id) || addAlert(e, false);
      if (!rec) continue;
      rec.ledger = e;
      const cur = t.state ? t.state.board : undefined;
      if (rec.open && cur !== undefined && rec.alert.board !== undefined && rec.alert.board !== cur
          && /^.+-\d+-\d+$/.test(rec.id)) boardOver(rec);
      showDecisions(rec, e.decisions || []);
      if (e.status === "closed") close(rec, String(e.closed || "closed") + (e.closed_by ? " (" + e.closed_by + ")" : ""), e.closed_t);
      else {
        if (!rec.open) reopenRec(rec);
        setAnswered(rec, e.status === "answered");
      }
    }
    renderTable(name);
    updateCounts();
  }
  function decisionText(d) {
    if (d.action === "reopen") return "re-opened" + (d.note ? ": " + d.note : "");
    if (d.action === "resolve") return "resolved" + (d.note ? ": " + d.note : "");
    return "decided " + optionEntry(d.option).label + (d.suit ? " " + SUIT_SYMBOLS[d.suit] : "") + (d.card ? " " + d.card : "") + (d.seat ? " " + seatName(d.seat) : "");
  }
  function showDecisions(rec, ds) {
    const ul = rec.node.querySelector(".decisions");
    if (!ul) return;
    const key = JSON.stringify(ds);
    if (ul.dataset.key === key) return;
    ul.dataset.key = key;
    ul.replaceChildren(...ds.map((d) => el("li", { class: "decision decision-" + d.action, "data-by": d.by || "" },
      el("time", { text: clock(d.t) }), " ", el("b", { class: "by", text: d.by || "no login" }), " " + decisionText(d))));
  }
  // answered: the option taken stays marked, the others are off until a director re-opens it
  function setAnswered(rec, answered) {
    rec.answered = answered;
    rec.node.classList.toggle("answered", answered);
    const last = [...(rec.ledger?.decisions || [])].reverse().find((d) => d.action === "decide" || d.action === "reopen");
    for (const b of rec.node.querySelectorAll(".options .btn-option")) {
      b.classList.toggle("chosen", answered && last && last.action === "decide" && b.dataset.option === last.option);
    }
    refreshActions(rec);
  }
  function reopenRec(rec) {
    rec.open = true;
    rec.node.classList.remove("closed");
    rec.node.querySelector(".closed-why")?.remove();
    for (const b of rec.node.querySelectorAll(".actions button, .actions input, .actions select")) b.disabled = false;
    $("alerts").prepend(rec.node);
    refreshActions(rec);
    updateCounts();
  }
  // what may be pressed: nothing while the daemon is offline; no option on an answered
  // alert or a board that is over; Re-open only on an answered alert
  function refreshActions(only) {
    const down = daemonDown();
    document.body.classList.toggle("daemon-offline", down);
    for (const rec of only ? [only] : st.alerts.values()) {
      const off = down || !rec.open;
      for (const b of rec.node.querySelectorAll(".options button, .options select")) b.disabled = off || rec.answered || rec.boardOver;
      for (const b of rec.node.querySelectorAll(".resolve button, .resolve input")) b.disabled = off;
      const re = rec.node.querySelector(".btn-reopen");
      if (re) { re.hidden = !rec.answered; re.disabled = off; }
    }
  }
  function showDaemon() {
    const d = $("daemon");
    const dm = st.daemon;
    const online = dm && dm.online;
    d.className = "pill " + (online ? "pill-ok" : "pill-bad");
    d.textContent = online ? "daemon online" : "daemon offline";
    d.title = (dm && dm.id ? "daemon " + dm.id + " · " : "") + (online ? "online" : "offline since " + clock(dm ? dm.since : Date.now()));
    if (dm && dm.id) d.dataset.daemon = dm.id;
    const banner = $("daemon-banner");
    banner.hidden = !!online || dm === null;
    if (!banner.hidden) banner.textContent = "The daemon is offline (since " + clock(dm.since) + "): the tables and alerts shown are its last word, and nothing can be decided until it is back.";
  }

  // -- commands -----------------------------------------------------------------
  function cmdTopic(table) {
    const user = st.credentials && st.credentials.username;
    return st.base + "/" + table + "/cmd" + (user ? "/by/" + user : "");
  }

  function send(rec, action, cmd) {
    if (daemonDown()) {
      rec.statusNode.append(el("li", { class: "err", text: "✗ " + action + ": the daemon is offline: nothing can be decided now" }));
      return;
    }
    const req = "dash-" + st.clientId.slice(-8) + "-" + (++st.reqCount);
    const topic = cmdTopic(rec.table);
    const entry = el("li", { class: "pending", text: action + (cmd.option ? " " + cmd.option : "") + ": sent (req " + req + ")" });
    rec.statusNode.append(entry);
    st.pending.set(req, { rec, action, option: cmd.option, entry, note: cmd.note });
    const payload = JSON.stringify({ ...cmd, req });
    if (!st.client || !st.client.connected) entry.append(" · queued until the broker is back");
    st.client?.publish(topic, payload, { qos: 1 }, (err) => {
      if (err) {
        st.pending.delete(req);
        entry.className = "err";
        entry.textContent = "✗ " + action + ": not sent: " + (err.code === 135 ? "the broker does not let " + (st.credentials?.username || "you") + " act" : err.message);
      }
    });
    logCmd("→ " + topic + " " + payload);
    setTimeout(() => {
      if (st.pending.has(req)) entry.append(" · no answer yet (is the daemon running?)");
    }, 10000);
  }

  function onResponse(table, r) {
    logCmd("← " + table + " " + JSON.stringify(r));
    const p = r && st.pending.get(r.req);
    if (!p) return;
    st.pending.delete(r.req);
    if (r.ok) {
      p.entry.className = "ok";
      p.entry.textContent = "✓ " + p.action + (p.option ? " " + p.option : "") + " journaled"
        + (r.rulings && r.rulings.length ? " → rulings " + r.rulings.join(", ") : "");
      if (p.action === "decide") {
        p.rec.decided.push(p.option);
        p.rec.node.querySelector('[data-option="' + CSS.escape(p.option) + '"]')?.classList.add("chosen");
      } else if (p.action === "resolve") {
        close(p.rec, "resolved" + (p.note ? ": " + p.note : ""));
      }
    } else {
      p.entry.className = "err";
      p.entry.textContent = "✗ " + p.action + (p.option ? " " + p.option : "") + ": "
        + (r.error || "refused") + (r.field ? " (" + r.field + ")" : "");
      if (r.answered) p.entry.classList.add("refused-answered");
    }
  }

  function logCmd(line) {
    const log = $("cmdlog");
    log.prepend(el("li", { text: clock() + " " + line }));
    while (log.children.length > 50) log.lastChild.remove();
  }

  // -- cues ---------------------------------------------------------------------
  function cue(rec) {
    rec.node.classList.add("fresh");
    st.unseen += 1;
    if (!st.sound) return;
    beep(rec.alert.severity === "director" ? 2 : 1);
    // a phone in a pocket: vibrate (only once the page has been touched, as browsers require)
    if (navigator.vibrate && navigator.userActivation?.hasBeenActive) navigator.vibrate(rec.alert.severity === "director" ? [200, 100, 200] : 200);
  }
  function seen() {
    if (!st.unseen) return;
    st.unseen = 0;
    for (const n of document.querySelectorAll(".alert.fresh")) n.classList.remove("fresh");
    updateCounts();
  }
  // Browsers let a page make sound only after a user gesture: the audio context is made
  // at the first one (a tap on the cue button, or any tap once the cue was left on).
  function audio() {
    if (!st.audio && navigator.userActivation?.hasBeenActive) {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (Ctx) st.audio = new Ctx();
    }
    if (st.audio && st.audio.state === "suspended") st.audio.resume();
    return st.audio;
  }
  function beep(times) {
    const ctx = audio();
    if (!ctx) return;
    let t = ctx.currentTime + 0.02;
    for (let i = 0; i < times; i++) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = "sine";
      osc.frequency.value = i % 2 ? 660 : 880;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.3, t + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.18);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t);
      osc.stop(t + 0.2);
      t += 0.25;
    }
  }
  function toggleSound(ev, quiet) {
    st.sound = !st.sound;
    store("local")?.setItem(CUE_KEY, st.sound ? "on" : "off");
    const b = $("sound");
    b.textContent = st.sound ? "♪ cue on" : "♪ cue off";
    b.setAttribute("aria-pressed", String(st.sound));
    if (st.sound && !quiet) beep(1);
  }

  function updateCounts() {
    let open = 0, closed = 0;
    for (const rec of st.alerts.values()) {
      if (!shown(rec.table)) continue;
      if (rec.open) open++; else closed++;
    }
    $("open-count").textContent = String(open);
    $("history-count").textContent = String(closed);
    const u = $("unseen");
    u.hidden = st.unseen === 0;
    u.textContent = st.unseen + " new";
    document.title = (st.unseen ? "(" + st.unseen + ") " : "") + "tablesense · director";
    const list = $("alerts");
    if (!list.querySelector(".alert")) {
      if (!list.querySelector(".empty")) list.append(el("p", { class: "empty", text: "no open alerts" }));
    } else list.querySelector(".empty")?.remove();
  }

  // -- the record ---------------------------------------------------------------------
  async function loadRecord() {
    if (!st.session) { $("record-list").replaceChildren(el("p", { class: "empty", text: "logging in to the daemon…" })); return; }
    if (!st.session.ok) { $("record-list").replaceChildren(el("p", { class: "err", text: "The record needs a login the broker accepts: " + (st.session.error || "log in") })); return; }
    const q = $("record-q").value.trim();
    const qs = q ? "?q=" + encodeURIComponent(q) : "";
    $("record-print").href = "report.html" + qs;
    $("record-json").href = "record.json" + qs;
    const list = $("record-list");
    list.replaceChildren(el("p", { class: "empty", text: "loading…" }));
    let r;
    try {
      const resp = await fetch("record.json" + qs, { cache: "no-store" });
      r = await resp.json();
    } catch (e) {
      list.replaceChildren(el("p", { class: "err", text: "no record from the daemon" }));
      return;
    }
    const boards = (r.boards || []).filter((b) => shown(b.table));
    if (!boards.length) { list.replaceChildren(el("p", { class: "empty", text: q ? "nothing matches “" + q + "”" : "nothing recorded yet" })); return; }
    const out = [];
    let evening = null;
    for (const b of boards) {
      if (b.evening !== evening) { evening = b.evening; out.push(el("h3", { class: "rec-evening", text: "Evening of " + evening })); }
      const box = el("article", { class: "rec-board", "data-table": b.table, "data-board": b.board });
      box.append(el("header", {}, el("b", { text: "Table " + b.table + " · board " + b.board }), " ",
        b.contract ? el("span", {}, contractNode(b.contract, b.doubled), b.declarer ? " by " + seatName(b.declarer) : "") : "",
        el("a", { class: "btn btn-quiet", href: "report.html?table=" + encodeURIComponent(b.table) + "&board=" + b.board, target: "_blank", rel: "noopener", text: "print" })));
      const ul = el("ul", { class: "rec-rulings" });
      for (const x of b.rulings || []) {
        if (x.severity === "info") continue;
        const li = el("li", { "data-alert-id": x.id }, el("b", { text: x.id + " " + kindLabel(x.kind) }), " ", cardsNode(x.cards), " ",
          el("span", { class: "citation", text: x.citation || "" }));
        const ds = el("ul", { class: "rec-decisions" });
        for (const d of x.decisions || []) {
          const what = decisionText(d);
          ds.append(el("li", { class: d.refused ? "refused" : "" }, el("time", { text: clock(d.t) }), " ", el("b", { class: "by", text: d.by || "no login" }), " " + what + (d.refused ? " (refused: " + d.refused + ")" : "")));
        }
        if (!(x.decisions || []).length) ds.append(el("li", { class: "empty", text: "no decision or note yet" }));
        li.append(ds);
        ul.append(li);
      }
      if (!ul.children.length) ul.append(el("li", { class: "empty", text: "no rulings" }));
      box.append(ul);
      out.push(box);
    }
    list.replaceChildren(...out);
  }

  // -- the connection and the login -----------------------------------------------------
  function setConn(kind, text) {
    const c = $("conn");
    c.className = "pill pill-" + kind;
    c.textContent = text;
    const banner = $("banner");
    banner.hidden = kind === "ok" || kind === "wait" || kind === "login";
    if (!banner.hidden) banner.textContent = text + ": the page shows what it knew; it reconnects by itself.";
  }

  function setRole(role) {
    st.role = role;
    document.body.classList.toggle("role-viewer", role === "viewer");
    document.body.classList.toggle("role-director", role === "director");
    const r = $("role");
    const user = st.credentials?.username;
    r.hidden = role === null;
    r.className = "pill " + (role === "director" ? "pill-ok" : "pill-unknown");
    r.textContent = (user ? user + " · " : "") + (role || "");
    r.title = role === "viewer" ? "the broker lets this login see, not act" : "the broker lets this login act on alerts";
  }

  // Who may act is the broker's ACL, not the page's: a command published (MQTT v5, QoS 1)
  // to a table that does not exist, under the login's own name, is acknowledged when the
  // ACL lets the login command and refused "not authorized" (0x87) when it does not. The
  // daemon answers it "no table here" and journals nothing.
  function probeRole(client) {
    const user = st.credentials?.username;
    if (!user || (st.cfg.mqtt_version || 5) < 5) { setRole("director"); return; }
    client.publish(st.base + "/~role/cmd/by/" + user, JSON.stringify({ type: "whoami", req: "role-" + st.clientId }), { qos: 1 },
      (err) => setRole(err && err.code === 135 ? "viewer" : "director"));
  }

  function brokerUrl(template) {
    let host = window.location.hostname || "127.0.0.1";
    if (host.includes(":") && !host.startsWith("[")) host = "[" + host + "]";
    return String(template || "ws://{host}:9001").replace("{host}", host);
  }

  function onMessage(topic, payload) {
    const prefix = st.base + "/";
    if (!topic.startsWith(prefix)) return;
    const parts = topic.slice(prefix.length).split("/");
    let data;
    try {
      data = JSON.parse(new TextDecoder().decode(payload));
    } catch (e) {
      return; // not ours to show
    }
    if (parts.length === 2 && parts[0] === "bridge" && parts[1] === "state") {
      const online = data && data.state === "online";
      const was = st.daemon;
      st.daemon = { online, since: was && was.online === online ? was.since : Date.now(), id: was ? was.id : null };
      showDaemon();
      if (!was || was.online !== online) { for (const n of st.tables.keys()) renderTable(n); refreshActions(); }
      return;
    }
    if (parts.length === 2 && parts[0] === "bridge" && parts[1] === "daemon") {
      st.daemon = { ...(st.daemon || { online: false, since: Date.now() }), id: data && data.daemon ? String(data.daemon) : null };
      showDaemon();
      return;
    }
    const name = parts[0];
    if (name.startsWith("~")) return;
    if (parts.length === 2 && parts[1] === "state") {
      table(name).state = data;
      renderTable(name);
      reconcileState(name, data);
    } else if (parts.length === 3 && parts[1] === "readers") {
      table(name).readers[parts[2]] = data;
      renderTable(name);
      reconcileReader(name, parts[2], data);
    } else if (parts.length === 2 && parts[1] === "alert") {
      addAlert(data, true);
    } else if (parts.length === 2 && parts[1] === "alerts") {
      applyLedger(name, data);
    } else if (parts.length === 3 && parts[1] === "cmd" && parts[2] === "response") {
      onResponse(name, data);
    }
  }

  function askLogin(why) {
    setConn("login", "log in");
    setRole(null);
    $("login").hidden = false;
    $("layout").hidden = true;
    if (why) $("login-why").textContent = why;
    const user = $("login-user");
    if (!user.value && st.cfg.username) user.value = st.cfg.username;
    (user.value ? $("login-pass") : user).focus();
  }

  function connect() {
    const cfg = st.cfg;
    const url = brokerUrl(cfg.broker_url);
    const opts = {
      clientId: st.clientId,
      clean: true,
      protocolVersion: cfg.login === false ? (cfg.mqtt_version || 4) : (cfg.mqtt_version || 5),
      reconnectPeriod: 2000,
      connectTimeout: 5000,
      keepalive: 20,
      resubscribe: true,
    };
    const creds = st.credentials;
    if (creds) { opts.username = creds.username; if (creds.password) opts.password = creds.password; }
    setConn("wait", "connecting to " + url + "…");
    const client = window.mqtt.connect(url, opts);
    st.client = client;
    client.on("connect", () => {
      setConn("ok", "broker connected");
      $("login").hidden = true;
      $("layout").hidden = false;
      $("logout").hidden = !creds;
      if (creds) store("session")?.setItem(LOGIN_KEY, JSON.stringify(creds));
      if (!st.session || !st.session.ok) openSession();
      const b = st.base;
      client.subscribe([b + "/bridge/state", b + "/bridge/daemon", b + "/+/state", b + "/+/readers/+",
        b + "/+/alert", b + "/+/alerts", b + "/+/cmd/response"], { qos: 1 });
      probeRole(client);
    });
    client.on("reconnect", () => setConn("wait", "reconnecting…"));
    client.on("close", () => { if (!client.disconnecting) setConn("bad", "broker connection lost"); });
    client.on("offline", () => setConn("bad", "broker connection lost"));
    client.on("error", (err) => {
      const code = err && err.code;
      if (code === 4 || code === 5 || code === 134 || code === 135) {
        client.end(true);
        store("session")?.removeItem(LOGIN_KEY);
        st.credentials = null;
        askLogin("The broker refused that user name or password.");
      }
    });
    client.on("message", onMessage);
  }

  function logout() {
    fetch("session?logout=1", { cache: "no-store" }).catch(() => {});
    st.session = null;
    store("session")?.removeItem(LOGIN_KEY);
    st.credentials = null;
    st.client?.end(true);
    st.client = null;
    $("logout").hidden = true;
    $("login-pass").value = "";
    askLogin("Logged out.");
  }

  async function main() {
    $("sound").addEventListener("click", toggleSound);
    $("unseen").addEventListener("click", seen);
    $("logout").addEventListener("click", logout);
    $("tv-close").addEventListener("click", () => openView(null));
    $("filter").addEventListener("change", (ev) => setFilter(ev.target.value));
    $("sort").addEventListener("change", (ev) => setSort(ev.target.value));
    setInterval(tickAges, 15000);
    $("mine-edit").addEventListener("click", () => {
      const box = $("mine");
      box.hidden = !box.hidden;
      $("mine-edit").setAttribute("aria-expanded", String(!box.hidden));
    });
    $("record-box").addEventListener("toggle", () => { if ($("record-box").open) loadRecord(); });
    $("record-form").addEventListener("submit", (ev) => { ev.preventDefault(); loadRecord(); });
    $("login").addEventListener("submit", (ev) => {
      ev.preventDefault();
      st.credentials = { username: $("login-user").value.trim(), password: $("login-pass").value };
      st.client?.end(true);
      connect();
    });
    document.addEventListener("keydown", seen);
    try { st.mine = new Set(JSON.parse(store("local")?.getItem(MINE_KEY) || "[]").map(String)); } catch (e) { st.mine = new Set(); }
    st.filter = store("local")?.getItem(MINE_KEY + ".filter") || "";
    st.sort = store("local")?.getItem(SORT_KEY) === "need" ? "need" : "table";
    $("sort").value = st.sort;
    if (store("local")?.getItem(CUE_KEY) === "on") toggleSound(null, true);
    try {
      const [cfg, cat] = await Promise.all([
        fetch("config.json", { cache: "no-store" }).then((r) => r.json()),
        fetch("catalogue.json", { cache: "no-store" }).then((r) => r.json()),
      ]);
      st.cfg = cfg;
      st.cat = { kinds: cat.kinds || {}, options: cat.options || {} };
    } catch (e) {
      setConn("bad", "no config.json or catalogue.json from the daemon");
      return;
    }
    st.base = String(st.cfg.base || "tablesense");
    for (const t of st.cfg.tables || []) { table(String(t)); renderTable(String(t)); }
    refreshFilterOptions();
    $("filter").value = st.filter;
    applyFilter();
    if (!window.mqtt) { setConn("bad", "mqtt.min.js did not load"); return; }
    if (st.cfg.login === false) { connect(); return; }
    try { st.credentials = JSON.parse(store("session")?.getItem(LOGIN_KEY) || "null"); } catch (e) { st.credentials = null; }
    if (st.credentials && st.credentials.username) connect();
    else askLogin();
  }

  window.tablesenseDashboard = st; // for a look from the browser's console
  main();
})();
