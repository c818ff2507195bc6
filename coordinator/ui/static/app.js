// sparkwire's live UI: one small script for the three pages (no build step, no CDN).
// Everything a query says is written as text (textContent), never as markup.
"use strict";

const page = document.body.dataset.page;
const $ = (sel) => document.querySelector(sel);

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

function svg(tag, attrs) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

const fmtTime = (t) => (t ? new Date(t * 1000).toLocaleTimeString() : "");
const fmtSecs = (s) => (s === null || s === undefined ? "" : s < 1 ? (s * 1000).toFixed(1) + " ms" : s.toFixed(2) + " s");
const fmtBytes = (b) => (b < 1024 ? b + " B" : b < 1 << 20 ? (b / 1024).toFixed(1) + " KiB" : (b / (1 << 20)).toFixed(1) + " MiB");

async function getJSON(url) {
  const r = await fetch(url, { credentials: "same-origin" });
  if (!r.ok) throw new Error(url + ": " + r.status);
  return r.json();
}

// Live updates: server-sent events; fn(row) for each query that changed.
function live(fn) {
  const source = new EventSource("/api/events");
  source.addEventListener("query", (e) => fn(JSON.parse(e.data)));
  source.addEventListener("open", () => { $("#live").textContent = "live"; });
  source.addEventListener("dropped", () => { $("#live").textContent = "reconnecting"; });
  source.addEventListener("error", () => { $("#live").textContent = "offline, retrying"; });
}

function queryRow(q) {
  const tr = el("tr");
  tr.id = "q-" + q.id;
  const link = el("a", q.id);
  link.href = "/query/" + q.id;
  const first = el("td");
  first.append(link);
  const ended = q.ended || Date.now() / 1000;
  tr.append(first, el("td", q.summary), el("td", q.user), el("td", q.state, q.state),
    el("td", fmtTime(q.started)), el("td", fmtSecs(ended - q.started), "n"), el("td", q.stage_count, "n"),
    el("td", q.done + "/" + q.tasks, "n"), el("td", q.reruns, "n"), el("td", q.error || ""));
  return tr;
}

async function queries() {
  const body = $("#queries tbody");
  const show = (q) => {
    const row = queryRow(q);
    const old = document.getElementById(row.id);
    if (old) old.replaceWith(row); else body.prepend(row);
  };
  for (const q of (await getJSON("/api/queries")).reverse()) show(q);
  live(show);
}

// The stages as a graph: a column per depth (files first, the result last), an arrow from
// each stage to those reading it, labelled with the producer's boundary and the bytes read
// over it by route (local, shm, zmq, ...; exact on hover), drawn wider the more it carried;
// under a stage that joins, the join's strategy (broadcast or shuffle), and why on hover.
function stageGraph(stages, edges) {
  const depth = new Map();
  for (const s of stages) depth.set(s.id, Math.max(0, ...s.inputs.map((i) => depth.get(i) + 1)));
  const columns = new Map();
  for (const s of stages) columns.set(depth.get(s.id), [...(columns.get(depth.get(s.id)) || []), s.id]);
  const at = new Map();
  const joins = (s) => s.notes.filter((n) => n.includes(" join: "));
  const w = 150, step = w + 130, h = 36 + 14 * Math.max(0, ...stages.map((s) => joins(s).length)), byId = new Map(stages.map((s) => [s.id, s]));
  const box = svg("svg", { id: "stage-graph", width: 40 + columns.size * step,
    height: 30 + Math.max(...[...columns.values()].map((ids) => ids.length)) * (h + 24) });
  for (const [d, ids] of columns) ids.forEach((id, row) => at.set(id, [20 + d * step, 20 + row * (h + 24)]));
  for (const s of stages) for (const i of s.inputs) {
    const [x1, y1] = at.get(i), [x2, y2] = at.get(s.id);
    const routes = edges.filter((e) => e.producer === i && e.consumer === s.id);
    const total = routes.reduce((sum, e) => sum + e.bytes, 0);
    box.append(svg("line", { x1: x1 + w, y1: y1 + h / 2, x2, y2: y2 + h / 2, stroke: "#999",
      "stroke-width": total ? 1 + Math.min(5, Math.log10(1 + total / 1024)) : 1 }));
    const label = svg("text", { x: (x1 + w + x2) / 2, y: (y1 + y2) / 2 + h / 2 - 4, "text-anchor": "middle" });
    label.textContent = byId.get(i).boundary;
    const moved = svg("g", { class: "edge-bytes", "data-from": i, "data-to": s.id });  // a line a route
    const exact = svg("title");
    exact.textContent = routes.map((e) => `${e.route}: ${e.bytes} bytes`).join("; ");
    moved.append(exact, ...routes.map((e, n) => {
      const line = svg("text", { x: (x1 + w + x2) / 2, y: (y1 + y2) / 2 + h / 2 + 10 + 13 * n, "text-anchor": "middle" });
      line.textContent = `${e.route} ${fmtBytes(e.bytes)}`;
      return line;
    }));
    box.append(label, moved);
  }
  for (const s of stages) {
    const [x, y] = at.get(s.id);
    box.append(svg("rect", { x, y, width: w, height: h, rx: 4, fill: `hsl(${(s.id * 67) % 360} 55% 85%)`, stroke: "#666" }));
    const text = svg("text", { x: x + 6, y: y + 15 });
    text.textContent = `stage ${s.id}: ${s.kind}`;
    const sub = svg("text", { x: x + 6, y: y + 29 });
    sub.textContent = `${s.done}/${s.tasks} tasks · ${s.rows} rows`;
    box.append(text, sub);
    // the join's strategy (broadcast or shuffle) in short; why, in full, on hover
    joins(s).forEach((note, i) => {
      const line = svg("text", { x: x + 6, y: y + 43 + 14 * i, class: "join" });
      line.textContent = note.split(" (")[0];
      const why = svg("title");
      why.textContent = note;
      line.append(why);
      box.append(line);
    });
  }
  return box;
}

// Each task run on a timeline: a lane per worker, and within it a row per run that overlaps
// another (a worker runs several tasks at once: one row would hide all but the last drawn).
function gantt(q) {
  const runs = q.task_runs;
  // a lane per worker address, named once a run there has reported its worker's name
  const names = new Map([...q.lost_workers.map((w) => [w.address, w.name]),
    ...runs.filter((t) => t.worker).map((t) => [t.address, t.worker])]);
  const lost = new Set(q.lost_workers.map((w) => w.address));
  const lanes = [...new Set(runs.map((t) => t.address))].sort();
  const now = Date.now() / 1000;
  const t0 = Math.min(q.started, ...runs.map((t) => t.delivered));
  const t1 = Math.max(q.ended || now, ...runs.map((t) => t.ended || now));
  const width = 900, label = 140, row = 20, gap = 8, span = Math.max(t1 - t0, 1e-3);
  const x = (t) => label + ((t - t0) / span) * (width - label - 10);
  const spanOf = (t) => [t.started || t.delivered, t.ended || now];
  const placed = new Map(), top = new Map();
  let y = 0;
  for (const lane of lanes) {
    const ends = [];  // the end of the last run in each row of this lane
    for (const t of runs.filter((r) => r.address === lane).sort((a, b) => spanOf(a)[0] - spanOf(b)[0])) {
      const [start, end] = spanOf(t);
      let i = ends.findIndex((e) => e <= start);
      if (i < 0) { i = ends.length; ends.push(end); } else ends[i] = end;
      placed.set(t, i);
    }
    top.set(lane, y);
    y += Math.max(ends.length, 1) * row + gap;
  }
  const box = svg("svg", { width, height: y + (q.tasks_dropped ? 34 : 20), id: "gantt-svg", role: "img" });
  for (const lane of lanes) {
    const text = svg("text", { x: 4, y: top.get(lane) + 14 });
    text.textContent = (names.get(lane) || lane) + (lost.has(lane) ? " (lost)" : "");
    if (lost.has(lane)) text.setAttribute("class", "lost");
    box.append(text);
  }
  for (const t of runs) {
    const [start, end] = spanOf(t);
    const cls = ["task", t.ended ? "" : "open", t.attempt ? "rerun" : "", t.error ? "failed" : ""].join(" ");
    const rect = svg("rect", {
      class: cls.trim(), x: x(start), y: top.get(t.address) + placed.get(t) * row + 2,
      width: Math.max(x(end) - x(start), 2), height: row - 4, fill: `hsl(${(t.stage * 67) % 360} 55% 50%)`,
      "data-stage": t.stage, "data-task": t.task,
    });
    const title = svg("title");
    title.textContent = `stage ${t.stage} task ${t.task} attempt ${t.attempt} · ${fmtSecs(end - start)} · ${t.rows} rows · ${fmtBytes(t.bytes)}` + (t.error ? " · " + t.error : "");
    rect.append(title);
    box.append(rect);
  }
  for (let i = 0; i <= 4; i++) {  // a tick per quarter of the query's span
    const tick = svg("text", { x: x(t0 + (span * i) / 4), y: y + 14, "text-anchor": i ? (i === 4 ? "end" : "middle") : "start" });
    tick.textContent = fmtSecs((span * i) / 4);
    box.append(tick);
  }
  if (q.tasks_dropped) {
    const note = svg("text", { x: label, y: y + 30 });
    note.textContent = `(${q.tasks_dropped} task runs not kept)`;
    box.append(note);
  }
  return box;
}

async function query() {
  const id = decodeURIComponent(location.pathname.split("/").pop());
  $("#query-id").textContent = id;
  let pending = false;
  const draw = async () => {
    pending = false;
    const q = await getJSON("/api/query/" + encodeURIComponent(id));
    q.edges ??= []; q.lost_workers ??= [];  // a history line an older driver wrote has neither
    $("#summary").textContent = q.summary;
    const ended = q.ended || Date.now() / 1000;
    $("#status").textContent = `${q.state} · ${q.user} · started ${fmtTime(q.started)} · ${fmtSecs(ended - q.started)} · ${q.done}/${q.tasks} tasks · ${q.reruns} re-runs` + (q.error ? " · " + q.error : "");
    $("#status").className = q.state;
    $("#bytes-in").textContent = Object.entries(q.bytes_in).map(([route, n]) => `${route} ${fmtBytes(n)}`).join(" · ") || "none";
    const body = $("#stages tbody");
    body.replaceChildren(...q.stages.map((s) => {
      const tr = el("tr");
      tr.className = "stage";
      tr.append(el("td", s.id, "n"), el("td", s.kind),
        el("td", s.inputs.length ? s.inputs.map((i) => "stage " + i).join(", ") : "files / local data"),
        el("td", s.boundary + (s.partitions > 1 ? ` → ${s.partitions} partitions` : "")),
        el("td", s.done + "/" + s.tasks, "n"), el("td", s.rows, "n"), el("td", fmtBytes(s.bytes), "n"),
        el("td", fmtSecs(s.seconds), "n"), el("td", s.notes.join("; ")));
      return tr;
    }));
    $("#lost").textContent = q.lost_workers.length ? "Workers lost: " + q.lost_workers.map((w) => `${w.name} (${w.address})`).join(", ") + "; what they held ran again" : "";
    $("#graph").replaceChildren(stageGraph(q.stages, q.edges));
    $("#gantt").replaceChildren(gantt(q));
    $("#events").replaceChildren(...q.events.map((e) => el("li",
      `${fmtTime(e.at)} ${e.what}` + (e.stage >= 0 ? ` stage ${e.stage}` : "") + (e.task >= 0 ? ` task ${e.task} attempt ${e.attempt}` : ""))));
  };
  await draw();
  live((row) => {
    if (row.id === id && !pending) { pending = true; setTimeout(draw, 200); }
  });
}

// The workers, refreshed at most once a second while queries change (what a worker's task
// runs reported, its memory in use too: as its latest run ended, hence "as of").
async function workers() {
  let pending = null;
  const draw = async () => {
    pending = null;
    const rows = await getJSON("/api/workers");
    $("#losses").textContent = rows.length ? `${rows[0].losses} worker(s) lost so far` : "";
    $("#workers tbody").replaceChildren(...rows.map((w) => {
      const tr = el("tr");
      tr.id = "w-" + w.name;
      const memory = el("td", (w.memory_used === null ? "–" : fmtBytes(w.memory_used)) + " / " + fmtBytes(w.memory_bound), "n memory");
      memory.title = `${w.memory_used ?? "none heard"} of ${w.memory_bound} bytes`;
      tr.append(el("td", w.name), el("td", w.address), el("td", w.live ? "yes" : "no", w.live ? "" : "failed"),
        el("td", `${Math.min(w.open, w.slots)}/${w.slots}`, "n"), el("td", w.queued, "n"),
        el("td", w.tasks, "n"), el("td", w.failed, "n"), el("td", fmtBytes(w.bytes_in), "n"),
        el("td", fmtBytes(w.bytes_out), "n"), el("td", fmtBytes(w.spill), "n"),
        memory,
        el("td", w.rss === null ? "–" : fmtBytes(w.rss), "n"), el("td", fmtTime(w.memory_at)));
      return tr;
    }));
  };
  await draw();
  live(() => { if (!pending) pending = setTimeout(draw, 1000); });
}

({ queries, query, workers })[page]().catch((e) => { document.body.append(el("p", String(e), "failed")); });
