// Profiler (not a test): where the time of a slider input goes. Drives the built
// dist/ in headless Chromium, moves one slider N times (one input per animation
// frame, as a drag does) under Chromium's trace, and prints the main thread's time
// by trace event (script, style, layout, paint, ...) and the hottest functions
// (wasm functions by name where the build keeps the name section).
//
//   node tests/e2e/profile.mjs [--slider bw] [--rate 4] [--mode jump|small] [--inputs 100]
//                              [--url '?embed=...'] [--top 40]
//
// Function names need a build that keeps wasm's name section (no wasm-opt):
//   sed 's/data-wasm-opt="z"/data-wasm-opt="0" data-keep-debug/' index.html > index-prof.html
//   trunk build --release --offline --dist dist-prof index-prof.html
//   BRRR_DIST=dist-prof node tests/e2e/profile.mjs --slider bw
// (both paths are git-ignored). Trace-event times are wall time under the
// throttle: divide by --rate for the unthrottled cost.

import { createHarness, frames } from './helpers.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const SLIDER = opt('--slider', 'bw');
const RATE = Number(opt('--rate', '4'));
const MODE = opt('--mode', 'jump');
const INPUTS = Number(opt('--inputs', '100')) | 0;
const URL_Q = opt('--url', '');
const TOP = Number(opt('--top', '40')) | 0;

async function drive({ id, n, mode }) {
  const el = document.getElementById(`${id}-slider`);
  if (!el) return `missing #${id}-slider`;
  el.scrollIntoView({ block: 'center' });
  const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
  await frame(); // on screen: its charts drawn
  await frame();
  const min = Number(el.min);
  const max = Number(el.max);
  for (let i = 0; i < n; i++) {
    const f = mode === 'jump' ? (i * 0.6180339887498949) % 1 : (() => { const p = (2 * i) / (n - 1); return p <= 1 ? p : 2 - p; })();
    // a task queued from the next frame (a message: no timer clamping)
    await new Promise((r) =>
      requestAnimationFrame(() => {
        const c = new MessageChannel();
        c.port1.onmessage = () => r();
        c.port2.postMessage(0);
      }),
    );
    el.value = String(min + f * (max - min));
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }
  await frame(); // the last input's redraws are in the trace
  await frame();
  return null;
}

const h = await createHarness();
try {
  const page = await h.open(URL_Q, { label: 'profile', viewport: { width: 1440, height: 900 } });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
  await page.evaluate((id) => document.getElementById(`${id}-slider`)?.scrollIntoView({ block: 'center' }), SLIDER);
  await page.waitForSelector('html[data-laid-out]', { state: 'attached' });
  await frames(page, 2); // on screen: its charts drawn

  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: {
      includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'disabled-by-default-v8.cpu_profiler', 'blink.user_timing'],
    },
  });
  const err = await page.evaluate(drive, { id: SLIDER, n: INPUTS, mode: MODE });
  await cdp.send('Tracing.end');
  await done;
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  if (err) throw new Error(err);

  // main thread: the renderer's CrRendererMain
  const mainTid = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const onMain = (e) => mainTid && e.pid === mainTid.pid && e.tid === mainTid.tid;
  // self time per top-level-ish event name: complete events ('X') nest; take self time
  const xs = events.filter((e) => onMain(e) && e.ph === 'X' && typeof e.dur === 'number').sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const self = new Map();
  const stack = [];
  for (const e of xs) {
    while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= e.ts) stack.pop();
    if (stack.length) stack[stack.length - 1].child += e.dur;
    const rec = { ts: e.ts, dur: e.dur, name: e.name, child: 0 };
    stack.push(rec);
    e.__rec = rec;
  }
  for (const e of xs) self.set(e.__rec.name, (self.get(e.__rec.name) || 0) + e.__rec.dur - e.__rec.child);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`slider ${SLIDER}, ${MODE}, ${INPUTS} inputs, CPU ${RATE}x: main-thread self time by trace event (ms per input)`);
  for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 20)) {
    console.log(`  ${(us / 1000 / INPUTS).toFixed(2).padStart(7)}  ${name}`);
  }
  console.log(`  ${(total / 1000 / INPUTS).toFixed(2).padStart(7)}  (all)`);

  // what the layouts and style recalcs touched
  const layouts = xs.filter((e) => e.name === 'Layout');
  const dirty = layouts.map((e) => e.args?.beginData?.dirtyObjects ?? 0).sort((a, b) => a - b);
  const totalObj = layouts.map((e) => e.args?.beginData?.totalObjects ?? 0);
  console.log(`\n${layouts.length} layouts: dirty objects median ${dirty[dirty.length >> 1]}, max ${dirty[dirty.length - 1]}; total objects ${Math.max(...totalObj)}`);
  const roots = new Map();
  for (const e of layouts) for (const r of e.args?.endData?.layoutRoots || []) roots.set(r.nodeName || r.nodeId, (roots.get(r.nodeName || r.nodeId) || 0) + 1);
  console.log('  layout roots:', [...roots].slice(0, 10).map(([k, v]) => `${k} ×${v}`).join(', '));
  const styles = xs.filter((e) => e.name === 'UpdateLayoutTree');
  const ec = styles.map((e) => e.args?.elementCount ?? 0).sort((a, b) => a - b);
  console.log(`${styles.length} style recalcs: elements median ${ec[ec.length >> 1]}, max ${ec[ec.length - 1]}`);

  // CPU profile samples (ProfileChunk events)
  const nodes = new Map();
  const samples = [];
  const deltas = [];
  for (const e of events) {
    if (e.name !== 'ProfileChunk') continue;
    const d = e.args?.data?.cpuProfile;
    if (!d) continue;
    for (const n of d.nodes || []) nodes.set(n.id, n);
    samples.push(...(d.samples || []));
    deltas.push(...(e.args.data.timeDeltas || []));
  }
  const selfBy = new Map();
  for (let i = 0; i < samples.length; i++) {
    const n = nodes.get(samples[i]);
    if (!n) continue;
    const f = n.callFrame;
    const key = `${f.functionName || '(anon)'}  ${f.url ? f.url.split('/').pop() : ''}`;
    selfBy.set(key, (selfBy.get(key) || 0) + (deltas[i + 1] ?? deltas[i] ?? 0));
  }
  console.log(`\nhottest functions, self time (ms per input):`);
  for (const [k, us] of [...selfBy].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
    console.log(`  ${(us / 1000 / INPUTS).toFixed(3).padStart(7)}  ${k.slice(0, 140)}`);
  }
  // inclusive time: each function counted once per sample whose stack holds it
  const incl = new Map();
  for (let i = 0; i < samples.length; i++) {
    const seen = new Set();
    for (let n = nodes.get(samples[i]); n; n = nodes.get(n.parent)) {
      const f = n.callFrame;
      const key = `${f.functionName || '(anon)'}`;
      if (seen.has(key)) continue;
      seen.add(key);
      incl.set(key, (incl.get(key) || 0) + (deltas[i + 1] ?? deltas[i] ?? 0));
    }
  }
  console.log(`\nhottest functions, inclusive time (ms per input):`);
  for (const [k, us] of [...incl].sort((a, b) => b[1] - a[1]).filter(([k]) => !/^\((idle|program|root)\)$/.test(k)).slice(0, TOP)) {
    console.log(`  ${(us / 1000 / INPUTS).toFixed(3).padStart(7)}  ${k.slice(0, 150)}`);
  }
  h.assertClean?.();
} finally {
  await h.close();
}
