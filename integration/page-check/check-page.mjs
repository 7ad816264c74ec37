// Loads the Shepherd sidecar's status page in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core: no browser download) and
// checks what it rendered, then saves a screenshot.
//
//   node check-page.mjs URL SCREENSHOT.png [--policy P] [--app APP_ID]... [--category]
//
// --policy P   the header must name policy P
// --app ID     a row for this application must be shown
// --category   some application must show a category (small/large)
// Exits 0 when every check passed; otherwise prints what failed and exits 1.
import { chromium } from "playwright-core";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const [url, shot, ...rest] = process.argv.slice(2);
if (!url || !shot) {
  console.error("usage: node check-page.mjs URL SCREENSHOT.png [--policy P] [--app ID]... [--category]");
  process.exit(2);
}
const want = { apps: [], policy: null, category: false };
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === "--policy") want.policy = rest[++i];
  else if (rest[i] === "--app") want.apps.push(rest[++i]);
  else if (rest[i] === "--category") want.category = true;
  else { console.error("unknown argument " + rest[i]); process.exit(2); }
}

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "shepherd-chromium-"));
// A fresh profile directory per run (playwright passes it as --user-data-dir).
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); else console.log("ok: " + what); };
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(url, { waitUntil: "load", timeout: 30000 });
  await page.waitForSelector("body[data-loaded]", { timeout: 30000 });
  // Let one more refresh land so the chart has its points.
  await page.waitForTimeout(1500);
  check(errors.length === 0, "no script errors (" + errors.join("; ") + ")");
  check((await page.title()).includes("Shepherd"), "title names Shepherd");
  const fresh = (await page.textContent("#freshness")).trim();
  check(fresh === "live", "freshness pill says live (got: " + fresh + ")");
  const policy = (await page.textContent("#policy")).trim();
  if (want.policy) check(policy === "policy: " + want.policy, "header names policy " + want.policy + " (got: " + policy + ")");
  const cards = await page.$$eval("#cluster .card", (els) => els.map((e) => e.innerText));
  check(cards.length >= 6 && cards.some((c) => c.includes("running apps")), "cluster cards rendered (" + cards.length + ")");
  const queues = await page.$$eval("#queues tbody tr", (rows) => rows.map((r) => r.dataset.queue));
  check(queues.length >= 1, "queues listed (" + queues.join(", ") + ")");
  const rows = await page.$$eval("#apps tbody tr", (rs) => rs.map((r) => ({
    id: r.dataset.appId,
    category: r.querySelector("td.category").textContent,
    reason: r.querySelector("td.reason").textContent,
    state: r.children[4].textContent,
  })));
  check(rows.length >= 1, "applications listed (" + rows.length + ")");
  for (const id of want.apps) check(rows.some((r) => r.id === id), "application " + id + " shown");
  if (want.category) {
    check(rows.some((r) => r.category === "small" || r.category === "large"), "an application shows its DRESS category");
  }
  for (const r of rows) {
    const unfinished = !/FINISHED|FAILED|KILLED/.test(r.state);
    if (unfinished && r.reason !== "—") console.log("wait reason of " + r.id + ": " + r.reason);
  }
  const canvases = await page.$$("#chart .uplot canvas");
  check(canvases.length >= 1, "chart drawn");
  const legend = await page.$$eval("#chart .u-legend .u-series .u-label", (els) => els.map((e) => e.textContent));
  // "delta", or "delta (QUEUE)" when queues have pipelines of their own.
  check(legend.some((l) => l === "delta" || l.startsWith("delta (")), "chart legend has delta (" + legend.join(", ") + ")");
  await page.screenshot({ path: shot, fullPage: true });
  console.log("screenshot: " + shot);
} catch (e) {
  failures.push("page did not load or render: " + e.message);
} finally {
  await browser.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
if (failures.length) {
  for (const f of failures) console.error("FAILED: " + f);
  process.exit(1);
}
console.log("status page: every check passed");
