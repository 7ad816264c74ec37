// Shepherd status page: reads the sidecar's JSON API every 5 s and renders
// cluster cards, the DRESS chart (uPlot), queues and applications.
"use strict";

const $ = (sel) => document.querySelector(sel);

function text(tag, value, cls) {
  const el = document.createElement(tag);
  el.textContent = value === null || value === undefined ? "—" : String(value);
  if (cls) el.className = cls;
  return el;
}

async function getJson(path) {
  const r = await fetch(path, { cache: "no-store" });
  if (!r.ok && r.status !== 503) throw new Error(path + ": HTTP " + r.status);
  return r.json();
}

function card(key, value) {
  const d = document.createElement("div");
  d.className = "card";
  d.appendChild(text("div", value, "v"));
  d.appendChild(text("div", key, "k"));
  return d;
}

function renderHeader(status, cluster) {
  const stale = status.rm.stale || (status.engine.configured && status.engine.stale);
  const f = $("#freshness");
  f.textContent = stale ? "STALE data" + (status.rm.last_error ? ": " + status.rm.last_error : "") : "live";
  f.className = "pill " + (stale ? "stale" : "ok");
  const policy = cluster.engine && cluster.engine.policy;
  $("#policy").textContent = "policy: " + (policy || (cluster.scheduler_type || "unknown"));
  $("#rm").textContent = "RM " + (status.rm.active_address || "?") + (status.rm.ha_state ? " (" + status.rm.ha_state + ")" : "");
}

function renderCluster(cluster) {
  const m = cluster.metrics || {};
  const box = $("#cluster");
  box.replaceChildren(
    card("running apps", m.appsRunning),
    card("pending apps", m.appsPending),
    card("memory allocated", m.totalMB ? Math.round((100 * m.allocatedMB) / m.totalMB) + " %" : "—"),
    card("vcores allocated", m.allocatedVirtualCores !== undefined ? m.allocatedVirtualCores + " / " + m.totalVirtualCores : "—"),
    card("containers", m.containersAllocated),
    card("active nodes", m.activeNodes)
  );
}

function renderQueues(q) {
  const body = $("#queues tbody");
  body.replaceChildren();
  for (const queue of q.queues) {
    const tr = document.createElement("tr");
    tr.dataset.queue = queue.name;
    const rm = queue.rm || {};
    const engine = queue.engine || {};
    const pipeline = queue.pipeline ? (queue.pipeline.policy || JSON.stringify(queue.pipeline).slice(0, 60)) : (engine.policy || q.policy || "—");
    const pending = Array.isArray(engine.pending) ? engine.pending[0] + " MB, " + engine.pending[1] + " vcores" : "—";
    for (const v of [queue.path, pipeline, rm.running_apps || 0, rm.pending_apps || 0, rm.allocated_memory_mb || 0, rm.allocated_vcores || 0, pending]) {
      tr.appendChild(text("td", v));
    }
    body.appendChild(tr);
  }
}

function renderApps(a) {
  const body = $("#apps tbody");
  body.replaceChildren();
  for (const app of a.apps) {
    const tr = document.createElement("tr");
    tr.dataset.appId = app.id;
    const cat = typeof app.category === "string" ? app.category : app.category ? JSON.stringify(app.category) : null;
    tr.appendChild(text("td", app.id));
    tr.appendChild(text("td", app.name));
    tr.appendChild(text("td", app.user));
    tr.appendChild(text("td", app.queue));
    tr.appendChild(text("td", app.state + (app.final_status && app.final_status !== "UNDEFINED" ? " / " + app.final_status : "")));
    tr.appendChild(text("td", cat, cat ? "category cat-" + cat : "category"));
    tr.appendChild(text("td", app.running_containers));
    tr.appendChild(text("td", app.allocated_memory_mb));
    tr.appendChild(text("td", app.wait_reason, "reason"));
    body.appendChild(tr);
  }
}

let plot = null;
let plotNames = "";

function renderChart(chart) {
  const names = Object.keys(chart.lines).filter((k) => chart.lines[k].length > 0);
  const note = $("#chart-note");
  if (names.length === 0) {
    note.textContent = "No data yet (the engine's DRESS series appear when the policy is dress).";
    return;
  }
  note.textContent = names.some((n) => n.startsWith("delta")) ? "" : "No queue's pipeline has a DRESS reserve; showing cluster allocation.";
  // Align every line on the union of timestamps (uPlot wants one x axis).
  const xs = Array.from(new Set(names.flatMap((n) => chart.lines[n].map((p) => p[0])))).sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const data = [xs.map((x) => x / 1000)];
  for (const n of names) {
    const col = new Array(xs.length).fill(null);
    for (const [t, v] of chart.lines[n]) col[index.get(t)] = v;
    data.push(col);
  }
  const colors = ["#d62728", "#2ca02c", "#9467bd", "#1f77b4", "#ff7f0e"];
  const key = names.join("|");
  if (plot && plotNames === key) {
    plot.setData(data);
    return;
  }
  if (plot) plot.destroy();
  plotNames = key;
  const opts = {
    width: Math.max(400, $("#chart").clientWidth - 20),
    height: 240,
    scales: { y: { range: [0, 1] } },
    axes: [{}, { size: 60, values: (u, ticks) => ticks.map((t) => Math.round(t * 100) + " %") }],
    series: [{}].concat(names.map((n, i) => ({ label: n, stroke: colors[i % colors.length], width: 2, spanGaps: true }))),
  };
  plot = new uPlot(opts, data, $("#chart"));
}

async function refresh() {
  try {
    const [status, cluster, queues, apps, chart] = await Promise.all([
      getJson("/api/v1/status"),
      getJson("/api/v1/cluster"),
      getJson("/api/v1/queues"),
      getJson("/api/v1/apps?state=all&limit=200"),
      getJson("/api/v1/chart/dress"),
    ]);
    renderHeader(status, cluster);
    renderCluster(cluster);
    renderQueues(queues);
    renderApps(apps);
    renderChart(chart);
    document.body.dataset.loaded = String(Date.now());
  } catch (e) {
    const f = $("#freshness");
    f.textContent = "sidecar unreachable: " + e.message;
    f.className = "pill stale";
  }
}

refresh();
setInterval(refresh, 5000);
