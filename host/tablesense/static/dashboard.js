// The director's dashboard: MQTT over WebSockets straight to the broker.
//
// Reads (domain.md "On MQTT"): <base>/bridge/state, <base>/+/state (retained
// board state with its open obligations), <base>/+/readers/+ (retained reader
// health), <base>/+/alert (rulings, QoS 1, at least once: de-duplicated by id)
// and <base>/+/cmd/response. Writes decide/resolve commands to <base>/<table>/cmd
// (QoS 1) with a `req` id and shows the daemon's answer.
//
// Everything shown comes from the network, so it is put on the page with
// textContent and attributes only: never innerHTML (a card name or a note with
// HTML in it is shown as text). The server's Content-Security-Policy allows
// scripts from the server alone, as a second line.
"use strict";

(() => {
  const SEAT_NAMES = { N: "North", E: "East", S: "South", W: "West" };
  const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const OPTION_LABELS = {
    "call-card": "Call the card",
    "call-suit": "Call a suit",
    "require-highest": "Require highest",
    "require-lowest": "Require lowest",
    "require-win": "Require partner to win",
    "require-not-win": "Require partner not to win",
    "treat-as-exposed": "Treat as exposed",
    "demand-new-deal": "Demand a new deal",
    "designate-card": "Designate the card played",
    "accept-lead": "Accept the lead",
    "refuse-lead": "Refuse the lead",
    "become-dummy": "Declarer becomes dummy",
    "accept-play": "Accept the play",
    "refuse-play": "Refuse: play the penalty card",
    "require-lead-suit": "Require lead of the suit",
    "forbid-lead-suit": "Forbid lead of the suit",
    "pc-remains": "Penalty card remains",
    "require-other-suit": "Require another suit",
    "forbid-other-suit": "Forbid another suit",
    "withdraw-substitute": "Withdraw and substitute",
  };
  // What an option needs besides its name: a suit or a card, required or optional.
  const OPTION_NEEDS = {
    "call-suit": ["suit", true],
    "require-other-suit": ["suit", true],
    "forbid-other-suit": ["suit", true],
    "require-lead-suit": ["suit", false],
    "forbid-lead-suit": ["suit", false],
    "designate-card": ["card", true],
    "call-card": ["card", false],
  };
  const ROLE_NAMES = {
    declarer: "declarer", dummy: "dummy", leader: "opening leader", "leaders-partner": "leader's partner",
  };
  const CARD_RE = /^[SHDC][AKQJT98765432]$/;

  const st = {
    cfg: null,
    base: "tablesense",
    client: null,
    credentials: null,
    tables: new Map(), // name -> {state, readers: {seat: health}, node}
    alerts: new Map(), // id -> record
    pending: new Map(), // req -> {table, id, action, option, entry}
    filter: "",
    audio: null,
    sound: false,
    unseen: 0,
    reqCount: 0,
    clientId: "tablesense-dash-" + Math.random().toString(16).slice(2, 10),
  };

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

  // -- sections and the filter ------------------------------------------------
  function sectionOf(table) {
    const m = /^([A-Za-z]+)[-_ ]?\d/.exec(String(table));
    return m ? m[1].toUpperCase() : null;
  }
  function shown(table) {
    const f = st.filter;
    if (!f) return true;
    if (f.startsWith("t:")) return f.slice(2) === String(table);
    if (f.startsWith("s:")) return sectionOf(table) === f.slice(2);
    return true;
  }
  function refreshFilterOptions() {
    const sel = $("filter");
    const names = [...st.tables.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    const sections = [...new Set(names.map(sectionOf).filter(Boolean))].sort();
    const want = [["", "all tables"]];
    if (sections.length > 1) for (const s of sections) want.push(["s:" + s, "section " + s]);
    for (const n of names) want.push(["t:" + n, "table " + n]);
    const have = [...sel.options].map((o) => o.value).join("\u0000");
    if (have === want.map((w) => w[0]).join("\u0000")) return;
    const keep = sel.value;
    sel.replaceChildren(...want.map(([v, label]) => el("option", { value: v, text: label })));
    sel.value = want.some((w) => w[0] === keep) ? keep : "";
  }
  function applyFilter() {
    for (const [name, t] of st.tables) if (t.node) t.node.hidden = !shown(name);
    for (const rec of st.alerts.values()) rec.node.hidden = !shown(rec.table);
    updateCounts();
  }

  // -- tables -----------------------------------------------------------------
  function table(name) {
    let t = st.tables.get(name);
    if (!t) {
      t = { state: null, readers: {}, node: null };
      st.tables.set(name, t);
      refreshFilterOptions();
    }
    return t;
  }

  function renderTable(name) {
    const t = table(name);
    const s = t.state || { phase: "unknown" };
    const card = el("article", { class: "table-card phase-" + String(s.phase), "data-table": name });
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

    const readers = el("div", { class: "readers", "aria-label": "readers" });
    for (const seat of ["N", "E", "S", "W"]) {
      const h = t.readers[seat];
      const state = h ? String(h.state) : "unknown";
      const tip = h ? seatName(seat) + ": " + state + (h.reason ? " (" + h.reason + ")" : "")
        + (h.serial ? " · " + h.serial : "") : seatName(seat) + ": no news";
      readers.append(el("span", { class: "reader reader-" + state, title: tip, "data-seat": seat, text: seat }));
    }
    card.append(readers);

    const pcs = s.penalty_cards || {};
    const pcSeats = Object.keys(pcs).filter((k) => (pcs[k] || []).length);
    if (pcSeats.length) {
      const box = el("div", { class: "penalty" }, el("span", { class: "label", text: "Penalty cards " }));
      for (const seat of pcSeats) box.append(el("span", { class: "pc-seat", text: seat + ": " }), cardsNode(pcs[seat]));
      card.append(box);
    }
    const obs = Array.isArray(s.obligations) ? s.obligations : [];
    if (obs.length) {
      const ul = el("ul", { class: "obligations" });
      for (const o of obs) {
        ul.append(el("li", {}, el("span", { class: "ob-kind", text: words(o.kind) }), " ",
          cardsNode(o.cards), o.until ? " until " + words(o.until) : ""));
      }
      card.append(el("div", { class: "obl" }, el("span", { class: "label", text: "Pending" }), ul));
    }
    card.addEventListener("click", () => {
      const sel = $("filter");
      st.filter = sel.value = st.filter === "t:" + name ? "" : "t:" + name;
      applyFilter();
    });
    card.hidden = !shown(name);

    const grid = $("tables");
    grid.querySelector(".empty")?.remove();
    if (t.node && t.node.parentNode === grid) grid.replaceChild(card, t.node);
    else {
      const after = [...grid.children].find((n) => String(n.dataset.table).localeCompare(name, undefined, { numeric: true }) > 0);
      grid.insertBefore(card, after || null);
    }
    t.node = card;
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
      el("span", { class: "kind", text: words(a.kind) }),
      el("span", { class: "sev", text: sev }),
      el("time", { text: clock(a.t) })));
    node.append(el("p", { class: "text", text: a.text || "" }));
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
    const form = el("form", { class: "resolve" });
    const note = el("input", { class: "note", type: "text", placeholder: "note for the record", "aria-label": "note", maxlength: "500" });
    const btn = el("button", { class: "btn btn-resolve", type: "submit", text: engineAlert ? "Resolve" : "Dismiss" });
    form.append(note, btn);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      if (engineAlert) {
        rec.note = note.value;
        send(rec, "resolve", { type: "resolve", alert: rec.id, note: note.value });
      }
      else close(rec, "dismissed" + (note.value ? ": " + note.value : ""));
    });
    actions.append(form);
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
    const need = OPTION_NEEDS[opt];
    let pick = null;
    if (need && need[0] === "suit") {
      pick = el("select", { "aria-label": opt + " suit" });
      if (!need[1]) pick.append(el("option", { value: "", text: "its suit" }));
      for (const s of ["S", "H", "D", "C"]) pick.append(el("option", { value: s, text: SUIT_SYMBOLS[s] + " " + SUIT_NAMES[s] }));
    } else if (need && need[0] === "card") {
      pick = el("select", { "aria-label": opt + " card" });
      for (const c of a.cards || []) pick.append(el("option", { value: c, text: CARD_RE.test(c) ? SUIT_SYMBOLS[c[0]] + (c[1] === "T" ? "10" : c[1]) : c }));
    }
    const btn = el("button", { class: "btn btn-option", type: "button", "data-option": opt, text: OPTION_LABELS[opt] || words(opt) });
    btn.addEventListener("click", () => {
      const cmd = { type: "decide", alert: rec.id, option: opt };
      if (pick && pick.value) cmd[need[0]] = pick.value;
      send(rec, "decide", cmd);
    });
    wrap.append(btn);
    if (pick) wrap.append(pick);
    return wrap;
  }

  function close(rec, why) {
    if (!rec.open) return;
    rec.open = false;
    rec.node.classList.add("closed");
    rec.node.append(el("p", { class: "closed-why", text: "closed " + clock() + ": " + why }));
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

  // -- commands -----------------------------------------------------------------
  function send(rec, action, cmd) {
    const req = "dash-" + st.clientId.slice(-8) + "-" + (++st.reqCount);
    const topic = st.base + "/" + rec.table + "/cmd";
    const entry = el("li", { class: "pending", text: action + (cmd.option ? " " + cmd.option : "") + ": sent (req " + req + ")" });
    rec.statusNode.append(entry);
    st.pending.set(req, { rec, action, option: cmd.option, entry, note: cmd.note });
    const payload = JSON.stringify({ ...cmd, req });
    if (!st.client || !st.client.connected) entry.append(" · queued until the broker is back");
    st.client?.publish(topic, payload, { qos: 1 }, (err) => {
      if (err) { entry.className = "err"; entry.textContent = action + ": not sent: " + err.message; }
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
    if (st.sound) beep(rec.alert.severity === "director" ? 2 : 1);
  }
  function seen() {
    if (!st.unseen) return;
    st.unseen = 0;
    for (const n of document.querySelectorAll(".alert.fresh")) n.classList.remove("fresh");
    updateCounts();
  }
  function beep(times) {
    const ctx = st.audio;
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
  function toggleSound() {
    st.sound = !st.sound;
    if (st.sound && !st.audio) {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (Ctx) st.audio = new Ctx();
    }
    st.audio?.resume?.();
    const b = $("sound");
    b.textContent = st.sound ? "♪ sound on" : "♪ sound off";
    b.setAttribute("aria-pressed", String(st.sound));
    if (st.sound) beep(1);
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

  // -- the connection -------------------------------------------------------------
  function setConn(kind, text) {
    const c = $("conn");
    c.className = "pill pill-" + kind;
    c.textContent = text;
    const banner = $("banner");
    banner.hidden = kind === "ok" || kind === "wait";
    if (!banner.hidden) banner.textContent = text + ": the page shows what it knew; it reconnects by itself.";
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
      console.warn("not JSON on", topic);
      return;
    }
    if (parts.length === 2 && parts[0] === "bridge" && parts[1] === "state") {
      const online = data && data.state === "online";
      const d = $("daemon");
      d.className = "pill " + (online ? "pill-ok" : "pill-bad");
      d.textContent = online ? "daemon online" : "daemon offline";
      return;
    }
    const name = parts[0];
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
    } else if (parts.length === 3 && parts[1] === "cmd" && parts[2] === "response") {
      onResponse(name, data);
    }
  }

  function connect() {
    const cfg = st.cfg;
    const url = brokerUrl(cfg.broker_url);
    const opts = {
      clientId: st.clientId,
      clean: true,
      protocolVersion: cfg.mqtt_version || 4,
      reconnectPeriod: 2000,
      connectTimeout: 5000,
      keepalive: 20,
      resubscribe: true,
    };
    const creds = st.credentials || (cfg.username ? { username: cfg.username, password: cfg.password } : null);
    if (creds) { opts.username = creds.username; if (creds.password) opts.password = creds.password; }
    setConn("wait", "connecting to " + url + "…");
    const client = window.mqtt.connect(url, opts);
    st.client = client;
    client.on("connect", () => {
      setConn("ok", "broker connected");
      $("login").hidden = true;
      const b = st.base;
      client.subscribe([b + "/bridge/state", b + "/+/state", b + "/+/readers/+", b + "/+/alert",
        b + "/+/cmd/response"], { qos: 1 });
    });
    client.on("reconnect", () => setConn("wait", "reconnecting…"));
    client.on("close", () => { if (!client.disconnecting) setConn("bad", "broker connection lost"); });
    client.on("offline", () => setConn("bad", "broker connection lost"));
    client.on("error", (err) => {
      const code = err && err.code;
      if (code === 4 || code === 5 || code === 134 || code === 135) {
        setConn("bad", "the broker refused the login");
        client.end(true);
        $("login").hidden = false;
      }
    });
    client.on("message", onMessage);
  }

  async function main() {
    $("sound").addEventListener("click", toggleSound);
    $("unseen").addEventListener("click", seen);
    $("filter").addEventListener("change", (ev) => { st.filter = ev.target.value; applyFilter(); });
    $("login").addEventListener("submit", (ev) => {
      ev.preventDefault();
      st.credentials = { username: $("login-user").value, password: $("login-pass").value };
      st.client?.end(true);
      connect();
    });
    document.addEventListener("keydown", seen);
    try {
      const r = await fetch("config.json", { cache: "no-store" });
      st.cfg = await r.json();
    } catch (e) {
      setConn("bad", "no config.json from the daemon");
      return;
    }
    st.base = String(st.cfg.base || "tablesense");
    for (const t of st.cfg.tables || []) { table(String(t)); renderTable(String(t)); }
    if (!window.mqtt) { setConn("bad", "mqtt.min.js did not load"); return; }
    connect();
  }

  window.tablesenseDashboard = st; // for a look from the browser's console
  main();
})();
