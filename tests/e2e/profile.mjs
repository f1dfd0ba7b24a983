// Profiler (not a test): where the time goes, for one slider's inputs or for the
// page's start. Drives the built dist/ in headless Chromium under Chromium's trace.
//
//   node tests/e2e/profile.mjs [--slider bw] [--rate 4] [--mode jump|small] [--inputs 100]
//                              [--url '?embed=...'] [--top 40]
//                              [--show '#serve'] (a widget whose module loads on demand)
//                              [--writes] (DOM writes by element, not only by widget)
//                              [--drag] (a real pointer drag, 2 x INPUTS/2 moves)
//   node tests/e2e/profile.mjs --mount [--rate 4] [--url ...] [--top 12]
//                              [--over 50] (tasks longer than this, ms)
//                              [--no-sampler] (trace events only: no JS sampling
//                              profiler, which slows the script it samples)
//                              [--compile] (each task's wasm functions compiled
//                              on their first call: V8's wasm.CompileLazy)
//
// A slider: moves it N times (one input per animation frame, as a drag does)
// once the page is quiet (the widgets it scrolled past have loaded), and prints
// per input the main thread's time by trace event (script, style, layout, paint…),
// the script's time by kind (model, view diff, DOM calls, chart draw: each CPU
// sample goes to the innermost frame of its stack that names one), and the
// hottest functions.
// --mount: loads the page at the given CPU slowdown (default 4x, Lighthouse's)
// in a phone-sized window, and prints every main-thread task over 50 ms from
// navigation until the page is built and laid out, with the parts it mounted
// (the app's `brrr:mount:*` user timings), its trace events, its script by kind
// and its hottest functions; and the total blocking time of those tasks.
//
// Function names need a build that keeps wasm's name section (no wasm-opt):
//   sed 's/data-wasm-opt="z"/data-wasm-opt="0" data-keep-debug/' index.html > index-prof.html
//   trunk build --release --offline --dist dist-prof index-prof.html
//   BRRR_DIST=dist-prof node tests/e2e/profile.mjs --slider bw
// (both paths are git-ignored). Trace-event times are wall time under the
// throttle: divide by --rate for the unthrottled cost.

import { createHarness, showMore } from './helpers.mjs';
import { TRACE_CATEGORIES, COMPILE_CATEGORIES, startTrace, mainThread, tasks, selfByEvent, measures, cpuProfile, hottest, byKind, blocking, whenProbe, inPage, lazyCompiles } from './trace-read.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const MOUNT = argv.includes('--mount');
const SLIDER = opt('--slider', 'bw');
const RATE = Number(opt('--rate', '4'));
const MODE = opt('--mode', 'jump');
const INPUTS = Number(opt('--inputs', '100')) | 0;
const URL_Q = opt('--url', '');
const TOP = Number(opt('--top', MOUNT ? '12' : '40')) | 0;
// a widget whose module loads on demand (shapes, serve, dit): shown and awaited first
const SHOW = opt('--show', '');
const OVER = Number(opt('--over', '50'));
const SAMPLER = !argv.includes('--no-sampler');
const COMPILE = argv.includes('--compile');
// a real pointer drag (the mouse pressed on the thumb, moved across the track and
// back, as bench.mjs's drag section does) instead of scripted input events: a
// held slider (`:active`) is what lets the page defer its details
const DRAG = argv.includes('--drag');

const ms = (us, d = 1) => (us / 1000).toFixed(d);
const sorted = (m) => [...m].sort((a, b) => b[1] - a[1]);

async function drive({ id, n, mode, detail }) {
  const el = document.getElementById(`${id}-slider`);
  if (!el) return `missing #${id}-slider`;
  el.scrollIntoView({ block: 'center' });
  await new Promise((r) => setTimeout(r, 300));
  const min = Number(el.min);
  const max = Number(el.max);
  // DOM writes per input, by the widget (or part) they land in
  const writes = new Map();
  const mo = new MutationObserver((records) => {
    for (const r of records) {
      const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      const home = node && (node.closest('section.widget') || node.closest('[data-slot]'));
      const where = detail && node ? ` <${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}${node.classList.length ? `.${[...node.classList].join('.')}` : ''}>` : '';
      const key = `${home ? home.id || home.getAttribute('data-slot') : '(page)'} ${r.type === 'attributes' ? `@${r.attributeName}` : r.type}${where}`;
      writes.set(key, (writes.get(key) || 0) + 1);
    }
  });
  mo.observe(document.body, { subtree: true, attributes: true, characterData: true, childList: true });
  for (let i = 0; i < n; i++) {
    const f = mode === 'jump' ? (i * 0.6180339887498949) % 1 : (() => { const p = (2 * i) / (n - 1); return p <= 1 ? p : 2 - p; })();
    await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    el.value = String(min + f * (max - min));
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }
  await new Promise((r) => setTimeout(r, 300));
  mo.disconnect();
  return { writes: [...writes].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / n]) };
}

/** In the page: count DOM writes by widget until `window.__brrrWrites()` (per input event seen). */
function watchWrites(detail) {
  const writes = new Map();
  let inputs = 0;
  addEventListener('input', () => inputs++, { capture: true });
  const mo = new MutationObserver((records) => {
    for (const r of records) {
      const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      const home = node && (node.closest('section.widget') || node.closest('[data-slot]'));
      const where = detail && node ? ` <${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}>` : '';
      const key = `${home ? home.id || home.getAttribute('data-slot') : '(page)'} ${r.type === 'attributes' ? `@${r.attributeName}` : r.type}${where}`;
      writes.set(key, (writes.get(key) || 0) + 1);
    }
  });
  mo.observe(document.body, { subtree: true, attributes: true, characterData: true, childList: true });
  window.__brrrWrites = () => {
    mo.disconnect();
    const n = Math.max(1, inputs);
    return { inputs, writes: [...writes].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / n]) };
  };
}

/** Resolves once no task has held the main thread over 50 ms for `quietMs` (at most `maxMs`). */
async function quiet({ quietMs = 1000, maxMs = 30000 } = {}) {
  const t0 = performance.now();
  let last = performance.now();
  while (performance.now() - t0 < maxMs) {
    const before = performance.now();
    await new Promise((r) => setTimeout(r, 20));
    if (performance.now() - before > 70) last = performance.now();
    if (performance.now() - last > quietMs) return;
  }
}

function printKinds(profile, per, from, to) {
  const kinds = byKind(profile, from, to);
  const total = [...kinds.values()].reduce((a, b) => a + b, 0);
  return `script ${ms(total / per, 2)} ms: ` + sorted(kinds).map(([k, us]) => `${k} ${ms(us / per, 2)}`).join(', ');
}

async function profileSlider(h) {
  const page = await h.open(URL_Q, { label: 'profile', viewport: { width: 1440, height: 900 } });
  const cdp = await page.context().newCDPSession(page);
  if (SHOW) await showMore(page, SHOW);
  await page.evaluate((id) => document.getElementById(`${id}-slider`)?.scrollIntoView({ block: 'center' }), SLIDER);
  // widgets scrolled past load their modules (the trace widget analyses its example)
  await page.evaluate(quiet);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
  await page.waitForTimeout(300);
  let res;
  let events;
  if (DRAG) {
    const box = await page.locator(`#${SLIDER}-slider`).boundingBox();
    if (!box) throw new Error(`#${SLIDER}-slider has no box`);
    await page.evaluate(watchWrites, process.argv.includes('--writes'));
    const stop = await startTrace(cdp);
    const y = box.y + box.height / 2;
    const x = (f) => box.x + 6 + (box.width - 12) * f;
    const half = Math.max(1, INPUTS >> 1);
    await page.mouse.move(x(0.1), y);
    await page.mouse.down();
    for (let i = 1; i <= 2 * half; i++) await page.mouse.move(x(0.1 + 0.8 * (i <= half ? i / half : (2 * half - i) / half)), y);
    await page.mouse.up();
    await page.waitForTimeout(300);
    events = await stop();
    res = await page.evaluate(() => window.__brrrWrites());
  } else {
    const stop = await startTrace(cdp);
    res = await page.evaluate(drive, { id: SLIDER, n: INPUTS, mode: MODE, detail: process.argv.includes('--writes') });
    events = await stop();
  }
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  if (typeof res === 'string') throw new Error(res);

  const onMain = mainThread(events);
  const self = selfByEvent(events, onMain);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`slider ${SLIDER}, ${MODE}, ${INPUTS} inputs, CPU ${RATE}x: main-thread self time by trace event (ms per input)`);
  for (const [name, us] of sorted(self).slice(0, 20)) console.log(`  ${ms(us / INPUTS, 2).padStart(7)}  ${name}`);
  console.log(`  ${ms(total / INPUTS, 2).padStart(7)}  (all)`);

  const xs = events.filter((e) => onMain(e) && e.ph === 'X');
  const layouts = xs.filter((e) => e.name === 'Layout');
  const dirty = layouts.map((e) => e.args?.beginData?.dirtyObjects ?? 0).sort((a, b) => a - b);
  const totalObj = layouts.map((e) => e.args?.beginData?.totalObjects ?? 0);
  console.log(`\n${layouts.length} layouts: dirty objects median ${dirty[dirty.length >> 1]}, max ${dirty[dirty.length - 1]}; total objects ${Math.max(...totalObj)}`);
  const styles = xs.filter((e) => e.name === 'UpdateLayoutTree');
  const ec = styles.map((e) => e.args?.elementCount ?? 0).sort((a, b) => a - b);
  console.log(`${styles.length} style recalcs: elements median ${ec[ec.length >> 1]}, max ${ec[ec.length - 1]}`);

  const total_writes = res.writes.reduce((a, [, v]) => a + v, 0);
  console.log(`\nDOM writes per input: ${total_writes.toFixed(1)}, by widget and kind: ${res.writes.slice(0, process.argv.includes('--writes') ? 60 : 16).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')}`);
  const profile = cpuProfile(events, onMain);
  console.log(`\n${printKinds(profile, INPUTS)} (per input)`);
  // the input's own task (its event, the effects it ran, up to the next task)
  // and what ran in the tasks after it: off-screen catch-ups, chart draws, frames
  const all = tasks(events, onMain);
  const inputTasks = all.filter((t) => xs.some((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'input' && e.ts >= t.ts && e.ts < t.ts + t.dur));
  if (inputTasks.length) {
    const d = inputTasks.map((t) => t.dur).sort((a, b) => a - b);
    const from = inputTasks[0].ts;
    const to = inputTasks[inputTasks.length - 1].ts + inputTasks[inputTasks.length - 1].dur;
    const inAll = all.filter((t) => t.ts >= from && t.ts < to).reduce((a, t) => a + t.dur, 0);
    const inInput = d.reduce((a, b) => a + b, 0);
    console.log(`input tasks: ${d.length}, median ${ms(d[d.length >> 1], 2)} ms, p95 ${ms(d[Math.min(d.length - 1, Math.ceil(0.95 * d.length) - 1)], 2)} ms; other tasks ${ms((inAll - inInput) / d.length, 2)} ms per input`);
    const inInputKinds = new Map();
    for (const t of inputTasks) for (const [k, us] of byKind(profile, t.ts, t.ts + t.dur)) inInputKinds.set(k, (inInputKinds.get(k) || 0) + us);
    console.log(`  input tasks' script by kind (ms per input): ${sorted(inInputKinds).map(([k, us]) => `${k} ${ms(us / d.length, 2)}`).join(', ')}`);
    const fi = new Map();
    for (const t of inputTasks) for (const [k, us] of hottest(profile, t.ts, t.ts + t.dur).self) fi.set(k, (fi.get(k) || 0) + us);
    // the slowest twentieth of the input tasks: what they do more of
    const slow = [...inputTasks].sort((a, b) => b.dur - a.dur).slice(0, Math.max(1, Math.ceil(inputTasks.length / 20)));
    const fs = new Map();
    for (const t of slow) for (const [k, us] of hottest(profile, t.ts, t.ts + t.dur).self) fs.set(k, (fs.get(k) || 0) + us);
    const ev = new Map();
    for (const t of slow) for (const [k, us] of selfByEvent(events, onMain, t.ts, t.ts + t.dur)) ev.set(k, (ev.get(k) || 0) + us);
    console.log(`  slowest ${slow.length} input tasks (${slow.map((t) => ms(t.dur, 1)).join(', ')} ms): events ${sorted(ev).slice(0, 6).map(([k, us]) => `${k} ${ms(us / slow.length, 2)}`).join(', ')}; hottest ${sorted(fs).filter(([k]) => !/^\((idle|program|root)\)/.test(k)).slice(0, 12).map(([k, us]) => `${k.trim().slice(0, 70)} ${ms(us / slow.length, 2)}`).join(' | ')}`);
    console.log(`  input tasks' hottest (self, ms per input): ${sorted(fi).filter(([k]) => !/^\((idle|program|root)\)/.test(k)).slice(0, 25).map(([k, us]) => `${k.trim().slice(0, 80)} ${ms(us / d.length, 3)}`).join(' | ')}`);
  }
  const { self: fself, incl } = hottest(profile);
  // which app's code ran: the page's wasm, the on-demand module's, their JS glue, the browser's
  const byFile = new Map();
  for (const [k, us] of fself) {
    if (/^\((idle|program|root)\)/.test(k)) continue;
    const file = k.split('  ').pop().replace(/-[0-9a-f]{16}/, '') || '(browser)';
    byFile.set(file, (byFile.get(file) || 0) + us);
  }
  console.log(`\nscript by file (ms per input): ${sorted(byFile).map(([f, us]) => `${f} ${ms(us / INPUTS, 2)}`).join(', ')}`);
  console.log(`\nhottest functions, self time (ms per input):`);
  for (const [k, us] of sorted(fself).filter(([k]) => !/^\((idle|program|root)\)/.test(k)).slice(0, TOP)) {
    console.log(`  ${ms(us / INPUTS, 3).padStart(7)}  ${k.slice(0, 140)}`);
  }
  console.log(`\nhottest functions, inclusive time (ms per input):`);
  for (const [k, us] of sorted(incl).filter(([k]) => !/^\((idle|program|root)\)$/.test(k)).slice(0, TOP)) {
    console.log(`  ${ms(us / INPUTS, 3).padStart(7)}  ${k.slice(0, 150)}`);
  }
}

async function profileMount(h) {
  // Lighthouse's mobile preset's window
  const context = await h.browser.newContext({ viewport: { width: 412, height: 823 }, deviceScaleFactor: 1 });
  await context.addInitScript(whenProbe);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
  const categories = [...(SAMPLER ? TRACE_CATEGORIES : TRACE_CATEGORIES.filter((c) => !c.includes('cpu_profiler'))), ...(COMPILE ? COMPILE_CATEGORIES : [])];
  const stop = await startTrace(cdp, categories);
  await page.goto(h.url + URL_Q, { waitUntil: 'load' });
  // waited on through the DevTools protocol: Playwright's own waits would
  // inject its script into the page, a long task of its own (trace-read.mjs)
  await inPage(cdp, `window.__brrrWhen('html[data-laid-out]')`, 180_000);
  await inPage(cdp, `(${quiet})({ quietMs: 500 })`, 60_000);
  await new Promise((r) => setTimeout(r, 500));
  const events = await stop();
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  const onMain = mainThread(events);
  const nav = events.find((e) => e.name === 'navigationStart' && onMain(e)) || events.find((e) => e.name === 'navigationStart');
  const t0 = nav ? nav.ts : 0;
  const parts = measures(events, 'brrr:mount:');
  const ready = events.find((e) => e.name === 'brrr:ready');
  const all = tasks(events, onMain);
  const long = all.filter((t) => t.dur > OVER * 1000);
  const profile = cpuProfile(events, onMain);
  console.log(`start at ${RATE}x CPU, 412 x 823: ${long.length} tasks over ${OVER} ms, blocking ${blocking(long).toFixed(0)} ms (every task from navigation until laid out)${ready ? `, ready at ${ms(ready.ts - t0, 0)} ms` : ''}`);
  if (COMPILE) {
    const c = lazyCompiles(events, onMain);
    console.log(`compiled on first call (wasm.CompileLazy, the detailed trace adds to it): ${c.n} functions, ${ms(c.us)} ms on the main thread`);
  }
  console.log(`parts (ms, at ms): ${parts.map((m) => `${m.name} ${ms(m.dur)} @${ms(m.ts - t0, 0)}`).join(', ')}`);
  for (const t of long) {
    const inside = parts.filter((m) => m.ts >= t.ts && m.ts < t.ts + t.dur).map((m) => `${m.name} ${ms(m.dur)}`);
    console.log(`\ntask ${ms(t.dur)} ms at ${ms(t.ts - t0, 0)} ms${inside.length ? `, mounting ${inside.join(', ')}` : ''}`);
    console.log('  events: ' + sorted(selfByEvent(events, onMain, t.ts, t.ts + t.dur)).slice(0, 8).map(([n, us]) => `${n} ${ms(us)}`).join(', '));
    if (COMPILE) {
      const c = lazyCompiles(events, onMain, t.ts, t.ts + t.dur);
      console.log(`  compiled on first call: ${c.n} functions, ${ms(c.us)} ms`);
    }
    if (!SAMPLER) continue;
    console.log('  ' + printKinds(profile, 1, t.ts, t.ts + t.dur));
    const { self } = hottest(profile, t.ts, t.ts + t.dur);
    console.log('  self: ' + sorted(self).filter(([k]) => !/^\((idle|program|root)\)/.test(k)).slice(0, TOP).map(([n, us]) => `${n.trim().slice(0, 90)} ${ms(us)}`).join(' | '));
  }
  await context.close();
}

const h = await createHarness();
try {
  if (MOUNT) await profileMount(h);
  else await profileSlider(h);
} finally {
  await h.close();
}
