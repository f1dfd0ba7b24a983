// Benchmark (not a test): how fast the explorer reacts, how big it is, how soon it
// draws. Drives the built dist/ in headless Chromium.
//
//   node tests/e2e/bench.mjs                 # print the figures
//   node tests/e2e/bench.mjs --lighthouse    # ... and run Lighthouse (slow: ~1 min a run)
//   node tests/e2e/bench.mjs --lighthouse --record   # ... and append a dated row to docs/perf.md
//   options: --inputs N (per slider, default 200, minimum 200), --loads N (default 5),
//            --lh-runs N (Lighthouse runs, median taken; default 3), --no-throttle
//            (skip the 4x CPU-throttled sweeps), --sliders a,b (only these sliders),
//            --sweeps small,4x jump (only these sweeps), --no-loads (skip the load
//            timings). Filtered runs are for iterating: --record refuses them.
//
// 1. Input -> redraw latency for EVERY slider on the full page (the explorer's
//    shared sliders and each widget's own), in four sweeps: small steps and large
//    jumps, each at full speed and with the CPU throttled 4x (DevTools protocol
//    Emulation.setCPUThrottlingRate, as Lighthouse's mobile preset slows a phone).
//    The slider is scrolled into view, then >= 200 `input` events move it (in
//    slider units: log10-scaled): "small" sweeps its range from min to max and
//    back in even steps; "jump" visits the positions i * 0.618... (mod 1) of the
//    range, so every input jumps 38 % or 62 % of the range. Each is timed inside the page with performance.now(),
//    from just before dispatchEvent until the chart of the slider's own section
//    (the roofline for shared sliders) has redrawn -- its data-frame changes --
//    AND the next task has run (a MessageChannel message posted right after the
//    input): the app redraws every visible chart in the microtasks that follow an
//    input, so this is "every visible chart redrawn". Sliders of widgets without a
//    chart are timed to the next task alone. No redraw within 200 ms counts as
//    "no redraw" when the slider's number box shows a new value, or as
//    "unchanged" when it does not (an integer slider whose value rounded to the
//    same number: nothing to redraw). Inputs are paced one per animation frame,
//    each dispatched just after a frame, as a drag delivers them.
// 2. Gzipped size (zlib, level 9) of every .html .js .wasm .css in dist/.
// 3. Time to first chart: performance.now() (ms since navigation start) when the
//    canvas first has data-frame >= 1; median of N fresh loads; the same for an
//    embed (?embed=microbench).
// 4. --lighthouse: Lighthouse's default (mobile) preset -- simulated slow 4G, 4x
//    CPU slowdown, a 412x823 phone -- on the system Chromium (CHROME_PATH, default
//    /usr/bin/chromium) against dist/ served gzipped (tests/e2e/server.mjs, gzip:
//    true); performance and accessibility categories, the median run by score.
//
// Exits non-zero only if it could not measure.

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { createHarness, REPO_ROOT, DEFAULT_ROOT, CHROMIUM } from './helpers.mjs';
import { startServer } from './server.mjs';

const SLIDERS = ['flops', 'bw', 'batch', 'ops', 'hidden', 'overhead'];
const NO_REDRAW_MS = 200;

const argv = process.argv.slice(2);
const flag = (f) => argv.includes(f);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const RECORD = flag('--record');
const INPUTS = Math.max(200, Number(opt('--inputs', '200')) | 0);
const LOADS = Math.max(1, Number(opt('--loads', '5')) | 0);
const ROOT = path.resolve(opt('--root', DEFAULT_ROOT));
const LIGHTHOUSE = flag('--lighthouse');
const LH_RUNS = Math.max(1, Number(opt('--lh-runs', '3')) | 0);
const THROTTLE = !flag('--no-throttle');
const ONLY_SLIDERS = opt('--sliders', '') ? opt('--sliders', '').split(',') : null;
const ONLY_SWEEPS = opt('--sweeps', '') ? opt('--sweeps', '').split(',') : null;
const NO_LOADS = flag('--no-loads');
const ALL_SWEEPS = [
  { name: 'small', mode: 'small', rate: 1 },
  { name: 'jump', mode: 'jump', rate: 1 },
  ...(THROTTLE
    ? [
        { name: '4x small', mode: 'small', rate: 4 },
        { name: '4x jump', mode: 'jump', rate: 4 },
      ]
    : []),
];
const SWEEPS = ALL_SWEEPS.filter((s) => !ONLY_SWEEPS || ONLY_SWEEPS.includes(s.name));

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  // nearest-rank
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i];
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '-');

function table(headers, rows, align) {
  const w = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const cell = (s, i) => (align[i] === 'l' ? String(s).padEnd(w[i]) : String(s).padStart(w[i]));
  const line = (r) => r.map(cell).join('  ');
  return [line(headers), w.map((n) => '-'.repeat(n)).join('  '), ...rows.map(line)].join('\n');
}

/** Runs in the page: the whole sweep for one slider, timed with performance.now(). */
async function sweepInPage({ id, n, noRedrawMs, mode }) {
  const el = document.getElementById(`${id}-slider`);
  const box = document.getElementById(`${id}-box`);
  if (!el) return { error: `missing #${id}-slider` };
  // The chart this slider's widget draws (the explorer's roofline for the shared
  // sliders); widgets without a chart are timed to "every effect has run" alone.
  const home = el.closest('section.widget') || el.closest('.explorer');
  const canvas = (home && home.querySelector('canvas')) || null;
  el.scrollIntoView({ block: 'center' });
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); // on screen, drawn
  const min = Number(el.min);
  const max = Number(el.max);
  if (!(Number.isFinite(min) && Number.isFinite(max) && max > min)) return { error: `#${id}-slider min/max ${el.min}/${el.max}` };
  // a task queued from the next frame (a message, so no timer clamping): each
  // input starts in a task of its own after a frame, as a drag's do
  const afterFrame = () =>
    new Promise((r) =>
      requestAnimationFrame(() => {
        const c = new MessageChannel();
        c.port1.onmessage = () => r();
        c.port2.postMessage(0);
      }),
    );
  const times = [];
  let noRedraw = 0;
  let unchanged = 0;
  for (let i = 0; i < n; i++) {
    let f;
    if (mode === 'jump') {
      // golden-ratio steps: each input lands 38 % or 62 % of the range away
      f = (i * 0.6180339887498949) % 1;
    } else {
      // triangle wave: min -> max -> min over n inputs
      const pos = (2 * i) / (n - 1);
      f = pos <= 1 ? pos : 2 - pos;
    }
    const v = min + f * (max - min);
    await afterFrame();
    const boxBefore = box ? box.value : null;
    const frameBefore = canvas ? canvas.getAttribute('data-frame') : null;
    const result = await new Promise((resolve) => {
      let done = false;
      let timer;
      // The app redraws every chart in the microtasks that follow the input
      // event; the next task (a MessageChannel message) runs after all of them,
      // so it marks "every chart on the page redrawn".
      let redrawn = false;
      let settled = null;
      const finish = () => {
        if (done || (canvas && !redrawn) || settled === null) return;
        done = true;
        mo.disconnect();
        clearTimeout(timer);
        resolve(settled - t0);
      };
      const mc = new MessageChannel();
      mc.port1.onmessage = () => {
        settled = performance.now();
        finish();
      };
      const mo = new MutationObserver(() => {
        if (done) return;
        if (canvas && canvas.getAttribute('data-frame') !== frameBefore) {
          redrawn = true;
          finish();
        }
      });
      if (canvas) mo.observe(canvas, { attributes: true, attributeFilter: ['data-frame'] });
      timer = setTimeout(() => {
        if (done) return;
        done = true;
        mo.disconnect();
        resolve(null);
      }, noRedrawMs);
      const t0 = performance.now();
      el.value = String(v);
      el.dispatchEvent(new Event('input', { bubbles: true }));
      mc.port2.postMessage(0);
    });
    if (result === null) {
      if (box && box.value === boxBefore) unchanged++;
      else noRedraw++;
    } else {
      times.push(result);
    }
  }
  return { n, min, max, times, noRedraw, unchanged };
}

/** Installed before any page script: note when the chart first draws. */
function firstChartProbe() {
  window.__brrrFirstChart = null;
  window.__brrrReady = null;
  const check = () => {
    if (window.__brrrFirstChart === null) {
      const drawn = [...document.querySelectorAll('canvas[data-frame]')].some((c) => Number(c.getAttribute('data-frame')) >= 1);
      if (drawn) window.__brrrFirstChart = performance.now();
    }
    if (window.__brrrReady === null && document.documentElement && document.documentElement.getAttribute('data-ready') === '1') {
      window.__brrrReady = performance.now();
    }
    if (window.__brrrFirstChart !== null && window.__brrrReady !== null) mo.disconnect();
  };
  const mo = new MutationObserver(check);
  mo.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-frame', 'data-ready'] });
}

function gzipSizes(root) {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(html|js|wasm|css)$/i.test(e.name)) {
        const buf = fs.readFileSync(p);
        out.push({ file: path.relative(root, p), raw: buf.length, gz: zlib.gzipSync(buf, { level: 9 }).length });
      }
    }
  };
  walk(root);
  out.sort((a, b) => b.gz - a.gz);
  return out;
}

function gitHead() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** One sweep of every slider on an open page; rows per slider and all times. */
async function sweepAll(page, present, sweep, failures) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: sweep.rate });
  const rows = [];
  const all = [];
  try {
    for (const id of present) {
      const r = await page.evaluate(sweepInPage, { id, n: INPUTS, noRedrawMs: NO_REDRAW_MS, mode: sweep.mode });
      if (r.error) {
        failures.push(`${sweep.name}: ${r.error}`);
        continue;
      }
      const s = [...r.times].sort((a, b) => a - b);
      all.push(...r.times);
      rows.push({ id, n: r.n, redrawn: s.length, median: median(s), p95: quantile(s, 0.95), max: s.length ? s[s.length - 1] : NaN, noRedraw: r.noRedraw, unchanged: r.unchanged });
    }
  } finally {
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 }).catch(() => {});
    await cdp.detach().catch(() => {});
  }
  all.sort((a, b) => a - b);
  return { sweep, rows, all, noRedraw: rows.reduce((a, r) => a + r.noRedraw, 0) };
}

/** Lighthouse's default (mobile) preset, LH_RUNS runs against dist/ served gzipped. */
async function runLighthouse(failures) {
  const { default: lighthouse } = await import('lighthouse');
  const chromeLauncher = await import('chrome-launcher');
  const server = await startServer({ root: ROOT, gzip: true });
  const runs = [];
  try {
    for (let i = 0; i < LH_RUNS; i++) {
      const chrome = await chromeLauncher.launch({
        chromePath: process.env.CHROME_PATH || CHROMIUM,
        chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      });
      try {
        const res = await lighthouse(server.url, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance', 'accessibility'],
        });
        const lhr = res && res.lhr;
        if (!lhr || lhr.runtimeError) {
          failures.push(`lighthouse run ${i + 1}: ${lhr && lhr.runtimeError ? lhr.runtimeError.message : 'no result'}`);
          continue;
        }
        const a = (id) => lhr.audits[id] && lhr.audits[id].numericValue;
        const failing = Object.values(lhr.audits)
          .filter((x) => x.score !== null && x.score < 1 && lhr.categories.accessibility.auditRefs.some((r) => r.id === x.id && r.weight > 0))
          .map((x) => x.id);
        runs.push({
          perf: Math.round(lhr.categories.performance.score * 100),
          a11y: Math.round(lhr.categories.accessibility.score * 100),
          fcp: a('first-contentful-paint'),
          lcp: a('largest-contentful-paint'),
          tbt: a('total-blocking-time'),
          cls: a('cumulative-layout-shift'),
          si: a('speed-index'),
          tti: a('interactive'),
          a11yFailing: failing,
          lcpElement: (() => {
            // Lighthouse 13: the LCP element is the node item of the LCP breakdown insight
            const d = lhr.audits['lcp-breakdown-insight'] || lhr.audits['largest-contentful-paint-element'];
            const items = (d && d.details && d.details.items) || [];
            const node = items.find((x) => x && x.type === 'node') || (items[0] && items[0].node);
            return node ? node.selector || node.snippet || '' : '';
          })(),
        });
      } catch (e) {
        failures.push(`lighthouse run ${i + 1}: ${e && e.message ? e.message : e}`);
      } finally {
        await chrome.kill();
      }
    }
  } finally {
    await server.close();
  }
  return runs;
}

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'index.html'))) {
    console.error(`cannot measure: ${path.join(ROOT, 'index.html')} does not exist (build first: trunk build --release)`);
    return 1;
  }
  const h = await createHarness({ root: ROOT });
  const failures = [];
  const sweeps = [];
  const firstChart = [];
  const embedChart = [];
  const readyTimes = [];
  try {
    // 1. Input -> redraw, four sweeps on one page.
    const page = await h.open('', { label: 'bench sliders', viewport: { width: 1440, height: 900 } });
    // every slider on the full page: the shared ones first, then each widget's own
    const onPage = await page.evaluate(() =>
      [...document.querySelectorAll('input[type=range][id$="-slider"]')].map((e) => e.id.replace(/-slider$/, '')),
    );
    const present = [...SLIDERS.filter((id) => onPage.includes(id)), ...onPage.filter((id) => !SLIDERS.includes(id))].filter(
      (id) => !ONLY_SLIDERS || ONLY_SLIDERS.includes(id),
    );
    if (present.length === 0) failures.push('no slider on the page');
    for (const sweep of SWEEPS) sweeps.push(await sweepAll(page, present, sweep, failures));
    await h.closePage(page);

    // 3b. First chart of an embedded widget (?embed=microbench, a chart widget).
    for (let i = 0; i < (NO_LOADS ? 0 : LOADS); i++) {
      const context = await h.browser.newContext({ viewport: { width: 800, height: 600 } });
      await context.addInitScript(firstChartProbe);
      const p = await context.newPage();
      await p.goto(h.url + '?embed=microbench', { waitUntil: 'load' });
      try {
        await p.waitForFunction(() => window.__brrrFirstChart !== null, null, { timeout: 30_000 });
        embedChart.push(await p.evaluate(() => window.__brrrFirstChart));
      } catch (e) {
        failures.push(`embed load ${i + 1}: no chart within 30 s`);
      }
      await context.close();
    }

    // 3. First chart.
    for (let i = 0; i < (NO_LOADS ? 0 : LOADS); i++) {
      const context = await h.browser.newContext({ viewport: { width: 1440, height: 900 } });
      await context.addInitScript(firstChartProbe);
      const p = await context.newPage();
      await p.goto(h.url, { waitUntil: 'load' });
      try {
        await p.waitForFunction(() => window.__brrrFirstChart !== null, null, { timeout: 30_000 });
        const t = await p.evaluate(() => ({ chart: window.__brrrFirstChart, ready: window.__brrrReady }));
        firstChart.push(t.chart);
        if (t.ready !== null) readyTimes.push(t.ready);
      } catch (e) {
        failures.push(`load ${i + 1}: no chart (canvas#roofline-canvas data-frame >= 1) within 30 s`);
      }
      await context.close();
    }
  } finally {
    await h.close();
  }

  // 4. Lighthouse (its own Chromium and a gzipping server).
  const lh = LIGHTHOUSE ? await runLighthouse(failures) : [];

  // Report.
  console.log(`\nInput -> redraw (every visible chart redrawn), ${INPUTS} inputs per slider and sweep, Chromium headless, no GPU`);
  console.log('p95 ms per slider and sweep (small: even steps min -> max -> min; jump: 38-62 % of the range per input; 4x: CPU throttled 4x)');
  const ids = sweeps.length ? sweeps[0].rows.map((r) => r.id) : [];
  console.log(
    table(
      ['slider', ...sweeps.flatMap((s) => [`${s.sweep.name} med`, `${s.sweep.name} p95`]), 'no redraw', 'unchanged'],
      ids.map((id) => {
        const cells = sweeps.flatMap((s) => {
          const r = s.rows.find((x) => x.id === id);
          return r ? [fmt(r.median), fmt(r.p95)] : ['-', '-'];
        });
        const r0 = sweeps[0].rows.find((x) => x.id === id);
        return [id, ...cells, sweeps.reduce((a, s) => a + (s.rows.find((x) => x.id === id)?.noRedraw || 0), 0), r0 ? r0.unchanged : '-'];
      }),
      ['l', ...sweeps.flatMap(() => ['r', 'r']), 'r', 'r'],
    ),
  );
  for (const s of sweeps) {
    const worst = s.rows.reduce((a, r) => (r.p95 > (a ? a.p95 : -1) ? r : a), null);
    console.log(
      `${s.sweep.name.padEnd(8)} all sliders: median ${fmt(median(s.all))} ms, p95 ${fmt(quantile(s.all, 0.95))} ms, max ${fmt(s.all[s.all.length - 1])} ms, worst slider p95 ${worst ? `${fmt(worst.p95)} ms (${worst.id})` : '-'}, no redraw ${s.noRedraw}`,
    );
  }
  console.log(`("no redraw": the box showed a new value but data-frame did not change within ${NO_REDRAW_MS} ms; "unchanged": the value rounded to the one shown, nothing to redraw)`);

  // the trace widget's worker and UI and the lab's UI are fetched only when their
  // widget first needs them: not part of the first visit (listed apart)
  const ON_DEMAND = /^(brrr-trace-worker|brrr-trace-ui|brrr-lab-ui|trace-worker\.js)/;
  const onDemand = gzipSizes(ROOT).filter((s) => ON_DEMAND.test(s.file));
  const sizes = gzipSizes(ROOT).filter((s) => !ON_DEMAND.test(s.file));
  const kb = (b) => (b / 1024).toFixed(1);
  console.log(`\nOn demand (the trace widget's worker and UI, the lab's UI): ${onDemand.map((s) => `${s.file} ${kb(s.gz)} KB`).join(', ')}`);
  console.log(`\nTransfer size of dist/ at the first visit (gzip -9)`);
  const totalRaw = sizes.reduce((a, s) => a + s.raw, 0);
  const totalGz = sizes.reduce((a, s) => a + s.gz, 0);
  console.log(
    table(
      ['file', 'raw KB', 'gzip KB'],
      [...sizes.map((s) => [s.file, kb(s.raw), kb(s.gz)]), ['total', kb(totalRaw), kb(totalGz)]],
      ['l', 'r', 'r'],
    ),
  );
  const wasmGz = sizes.filter((s) => s.file.endsWith('.wasm')).reduce((a, s) => a + s.gz, 0);

  const fc = median(firstChart);
  console.log(`\nFirst chart drawn: median ${fmt(fc, 0)} ms after navigation start over ${firstChart.length} loads (${firstChart.map((x) => x.toFixed(0)).join(', ')} ms)`);
  const ec = median(embedChart);
  console.log(`Embedded widget (?embed=microbench) first chart: median ${fmt(ec, 0)} ms over ${embedChart.length} loads (${embedChart.map((x) => x.toFixed(0)).join(', ')} ms)`);
  if (readyTimes.length) console.log(`data-ready=1: median ${fmt(median(readyTimes), 0)} ms`);

  // the median run by performance score (then LCP)
  const lhMid = lh.length ? [...lh].sort((a, b) => a.perf - b.perf || b.lcp - a.lcp)[(lh.length - 1) >> 1] : null;
  if (LIGHTHOUSE) {
    console.log(`\nLighthouse (mobile preset: simulated slow 4G, 4x CPU; dist/ served gzipped), ${lh.length} of ${LH_RUNS} runs`);
    console.log(
      table(
        ['run', 'performance', 'LCP s', 'TBT ms', 'CLS', 'FCP s', 'SI s', 'TTI s', 'accessibility', 'LCP element'],
        lh.map((r, i) => [i + 1, r.perf, fmt(r.lcp / 1000), fmt(r.tbt, 0), fmt(r.cls, 3), fmt(r.fcp / 1000), fmt(r.si / 1000), fmt(r.tti / 1000), r.a11y, r.lcpElement.slice(0, 40)]),
        ['r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
      ),
    );
    if (lhMid) console.log(`median run: performance ${lhMid.perf}, LCP ${fmt(lhMid.lcp / 1000)} s, TBT ${fmt(lhMid.tbt, 0)} ms, CLS ${fmt(lhMid.cls, 3)}, accessibility ${lhMid.a11y}${lhMid.a11yFailing.length ? ` (failing: ${lhMid.a11yFailing.join(', ')})` : ''}`);
  }

  const probs = h.describeProblems();
  if (probs.length) console.log(`\nnote: the page reported problems during the benchmark:\n  ${probs.slice(0, 20).join('\n  ')}`);

  if (failures.length) console.error(`\ncould not measure everything:\n  ${failures.join('\n  ')}`);
  const measured = sweeps.length > 0 && sweeps.every((s) => s.rows.length > 0) && firstChart.length > 0 && sizes.length > 0 && (!LIGHTHOUSE || lh.length > 0);

  const filtered = ONLY_SLIDERS || ONLY_SWEEPS || NO_LOADS;
  if (RECORD && filtered) {
    console.error('\nnot recorded: --sliders, --sweeps and --no-loads are for iterating; a row in docs/perf.md measures everything');
    return 1;
  }
  if (RECORD && measured) {
    const file = path.join(REPO_ROOT, 'docs', 'perf.md');
    const header = [
      '| date | commit | small median ms | small p95 ms | jump p95 ms | 4x small p95 ms | 4x jump p95 ms | worst slider p95 ms (sweep) | no redraw | first chart ms | embed first chart ms | wasm gzip KB | total gzip KB | LH performance | LH LCP s | LH TBT ms | LH CLS | LH accessibility |',
      '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ].join('\n');
    let text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Performance log\n';
    if (!text.endsWith('\n')) text += '\n';
    // rows go under the last table of the file; a file without this table gets it
    if (!text.includes(header.split('\n')[0])) text += `\n${header}\n`;
    const by = (name) => sweeps.find((s) => s.sweep.name === name);
    const p95 = (name) => (by(name) ? fmt(quantile(by(name).all, 0.95)) : '–');
    let worst = null;
    for (const s of sweeps) for (const r of s.rows) if (!worst || r.p95 > worst.p95) worst = { ...r, sweep: s.sweep.name };
    const small = by('small');
    const date = new Date().toISOString().slice(0, 10);
    const cells = [
      date,
      gitHead(),
      fmt(median(small.all)),
      p95('small'),
      p95('jump'),
      p95('4x small'),
      p95('4x jump'),
      worst ? `${fmt(worst.p95)} (${worst.id}, ${worst.sweep})` : '–',
      sweeps.reduce((a, s) => a + s.noRedraw, 0),
      fmt(fc, 0),
      fmt(ec, 0),
      kb(wasmGz),
      kb(totalGz),
      lhMid ? lhMid.perf : '–',
      lhMid ? fmt(lhMid.lcp / 1000) : '–',
      lhMid ? fmt(lhMid.tbt, 0) : '–',
      lhMid ? fmt(lhMid.cls, 3) : '–',
      lhMid ? lhMid.a11y : '–',
    ];
    const row = `| ${cells.join(' | ')} |\n`;
    fs.writeFileSync(file, text + row);
    console.log(`\nrecorded in ${path.relative(REPO_ROOT, file)}: ${row.trim()}`);
  } else if (RECORD) {
    console.error('not recorded: the measurements are incomplete');
  }
  return measured ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`cannot measure: ${err && err.stack ? err.stack : err}`);
    process.exit(1);
  },
);
