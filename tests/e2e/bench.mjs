// Benchmark (not a test): how fast the explorer reacts, how big it is, how soon it
// draws. Drives the built dist/ in headless Chromium.
//
//   node tests/e2e/bench.mjs            # print the figures
//   node tests/e2e/bench.mjs --record   # ... and append a dated row to docs/perf.md
//   options: --inputs N (per slider, default 200, minimum 200), --loads N (default 5)
//
// 1. Input -> redraw latency for EVERY slider on the full page (the explorer's
//    shared sliders and each widget's own): the slider is scrolled into view, then
//    >= 200 `input` events sweep its range (in slider units: log10-scaled) from
//    min to max and back. Each is timed inside the page with performance.now(),
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
//    canvas first has data-frame >= 1; median of N fresh loads.
//
// Exits non-zero only if it could not measure.

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { createHarness, REPO_ROOT, DEFAULT_ROOT } from './helpers.mjs';

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
async function sweepInPage({ id, n, noRedrawMs }) {
  const el = document.getElementById(`${id}-slider`);
  const box = document.getElementById(`${id}-box`);
  if (!el) return { error: `missing #${id}-slider` };
  // The chart this slider's widget draws (the explorer's roofline for the shared
  // sliders); widgets without a chart are timed to "every effect has run" alone.
  const home = el.closest('section.widget') || el.closest('.explorer');
  const canvas = (home && home.querySelector('canvas')) || null;
  el.scrollIntoView({ block: 'center' });
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 50))));
  const min = Number(el.min);
  const max = Number(el.max);
  if (!(Number.isFinite(min) && Number.isFinite(max) && max > min)) return { error: `#${id}-slider min/max ${el.min}/${el.max}` };
  const afterFrame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const times = [];
  let noRedraw = 0;
  let unchanged = 0;
  for (let i = 0; i < n; i++) {
    // triangle wave: min -> max -> min over n inputs
    const pos = (2 * i) / (n - 1);
    const f = pos <= 1 ? pos : 2 - pos;
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

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'index.html'))) {
    console.error(`cannot measure: ${path.join(ROOT, 'index.html')} does not exist (build first: trunk build --release)`);
    return 1;
  }
  const h = await createHarness({ root: ROOT });
  const failures = [];
  const sliderRows = [];
  const allTimes = [];
  let firstChart = [];
  const embedChart = [];
  let readyTimes = [];
  try {
    // 1. Input -> redraw.
    const page = await h.open('', { label: 'bench sliders', viewport: { width: 1440, height: 900 } });
    // every slider on the full page: the shared ones first, then each widget's own
    const onPage = await page.evaluate(() =>
      [...document.querySelectorAll('input[type=range][id$="-slider"]')].map((e) => e.id.replace(/-slider$/, '')),
    );
    const present = [...SLIDERS.filter((id) => onPage.includes(id)), ...onPage.filter((id) => !SLIDERS.includes(id))];
    if (present.length === 0) failures.push('no slider on the page');
    for (const id of present) {
      const r = await page.evaluate(sweepInPage, { id, n: INPUTS, noRedrawMs: NO_REDRAW_MS });
      if (r.error) {
        failures.push(r.error);
        continue;
      }
      const s = [...r.times].sort((a, b) => a - b);
      allTimes.push(...r.times);
      sliderRows.push({ id, n: r.n, redrawn: s.length, median: median(s), p95: quantile(s, 0.95), max: s.length ? s[s.length - 1] : NaN, noRedraw: r.noRedraw, unchanged: r.unchanged });
    }
    await h.closePage(page);

    // 3b. First chart of an embedded widget (?embed=microbench, a chart widget).
    for (let i = 0; i < LOADS; i++) {
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
    for (let i = 0; i < LOADS; i++) {
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

  // Report.
  console.log(`\nInput -> redraw (canvas data-frame change), ${INPUTS} inputs per slider, Chromium headless, no GPU`);
  console.log(
    table(
      ['slider', 'n', 'redrawn', 'median ms', 'p95 ms', 'max ms', 'no redraw', 'unchanged'],
      sliderRows.map((r) => [r.id, r.n, r.redrawn, fmt(r.median), fmt(r.p95), fmt(r.max), r.noRedraw, r.unchanged]),
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  const all = [...allTimes].sort((a, b) => a - b);
  const noRedrawTotal = sliderRows.reduce((a, r) => a + r.noRedraw, 0);
  console.log(`all sliders: median ${fmt(median(all))} ms, p95 ${fmt(quantile(all, 0.95))} ms, max ${fmt(all[all.length - 1])} ms, no redraw ${noRedrawTotal}`);
  console.log(`("no redraw": the box showed a new value but data-frame did not change within ${NO_REDRAW_MS} ms; "unchanged": the value rounded to the one shown, nothing to redraw)`);

  const sizes = gzipSizes(ROOT);
  const kb = (b) => (b / 1024).toFixed(1);
  console.log(`\nTransfer size of dist/ (gzip -9)`);
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

  const probs = h.describeProblems();
  if (probs.length) console.log(`\nnote: the page reported problems during the benchmark:\n  ${probs.slice(0, 20).join('\n  ')}`);

  if (failures.length) console.error(`\ncould not measure everything:\n  ${failures.join('\n  ')}`);
  const measured = sliderRows.length > 0 && firstChart.length > 0 && sizes.length > 0;

  if (RECORD && measured) {
    const file = path.join(REPO_ROOT, 'docs', 'perf.md');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (!fs.existsSync(file)) {
      fs.writeFileSync(
        file,
        [
          '# Performance log',
          '',
          'Rows appended by `npm run bench -- --record` (tests/e2e/bench.mjs): headless Chromium on the',
          'project machine (2 cores, no GPU), release build from `trunk build --release`.',
          '',
          '- input→redraw: time from an `input` event on a slider until every visible chart has',
          '  redrawn (the roofline canvas\'s `data-frame` changed and the next task ran), full page,',
          '  all sliders together, ' + INPUTS + '+ inputs each;',
          '- no redraw: inputs that changed the value but drew nothing within 200 ms;',
          '- first chart: ms from navigation start to the first drawn chart, median of fresh loads;',
          '  embed: the same for `?embed=microbench`;',
          '- gzip: dist/ .html .js .wasm .css at gzip -9.',
          '',
          '| date | commit | input→redraw median ms | p95 ms | max ms | no redraw | first chart ms | wasm gzip KB | total gzip KB | embed first chart ms |',
          '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
          '',
        ].join('\n'),
      );
    }
    const date = new Date().toISOString().slice(0, 10);
    const row = `| ${date} | ${gitHead()} | ${fmt(median(all))} | ${fmt(quantile(all, 0.95))} | ${fmt(all[all.length - 1])} | ${noRedrawTotal} | ${fmt(fc, 0)} | ${kb(wasmGz)} | ${kb(totalGz)} | ${fmt(ec, 0)} |\n`;
    let text = fs.readFileSync(file, 'utf8');
    if (!text.endsWith('\n')) text += '\n';
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
