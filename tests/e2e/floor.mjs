// Benchmark tool (not a test): the browser's own floor under issue 33's two open
// targets, measured on the built dist/ with no app code in the way.
//
//   node tests/e2e/floor.mjs [--frames 40] [--loads 4] [--rate 4] [--rounds 2]
//
// 1. A frame's rendering. On the full page at 1440 x 900 (the bench's window),
//    the explorer's flops slider centred as the bench leaves it and the page
//    quiet, a script rewrites one digit in N of the explorer's text nodes once
//    per frame, for --frames frames, at --rate x CPU: nothing, the one-line
//    answer alone, the key numbers (the `dd`s), and every text the explorer
//    shows (the `dd`s, list items, table cells, readouts, paragraphs). Printed
//    per frame: the main thread's style, layout, pre-paint, paint, layerize and
//    commit (trace events, ms). No Rust and no Leptos run here: this is what
//    any page with this DOM pays for the change, before any app work.
// 2. The first layout. The built index.html without its scripts (so no app
//    runs) and cut-down copies of it, each loaded --loads times in a fresh
//    412 x 823 context at --rate x CPU: the longest Layout event and the
//    main-thread task that holds it (the first paint's: parse, style, layout),
//    ms. The essay whole (its chapters still deferred, as at the real first
//    paint); the header and the intro (the first screen's text); the intro
//    alone; one paragraph with the same stylesheet.
//
// The trace adds little to these (trace events only, no JS sampler).
import fs from 'node:fs';
import path from 'node:path';
import { createHarness, median, DEFAULT_ROOT } from './helpers.mjs';
import { startTrace, mainThread, selfByEvent, tasks } from './trace-read.mjs';

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const FRAMES = Math.max(10, Number(opt('--frames', '40')) | 0);
const LOADS = Math.max(1, Number(opt('--loads', '4')) | 0);
const RATE = Number(opt('--rate', '4'));
const ROUNDS = Math.max(1, Number(opt('--rounds', '2')) | 0);
const CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'toplevel'];
const PHASES = ['UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'Commit'];

// the static variants: the built page without scripts, whole and cut down
const built = fs.readFileSync(path.join(DEFAULT_ROOT, 'index.html'), 'utf8').replace(/<script[\s\S]*?<\/script>/g, '');
const bodyOf = built.match(/<body>([\s\S]*)<\/body>/);
const header = built.match(/<header[\s\S]*?<\/header>/);
const intro = built.match(/<section id="intro"[\s\S]*?<\/section>/);
if (!bodyOf || !header || !intro) throw new Error('floor.mjs: the built index.html has no <body>, <header> or #intro');
const withBody = (b) => built.replace(bodyOf[0], `<body>${b}</body>`);
const STATIC = {
  'whole essay': built,
  'header + intro': withBody(`${header[0]}<main>${intro[0]}</main>`),
  'intro alone': withBody(`<main>${intro[0]}</main>`),
  'one paragraph': withBody('<main><p>One paragraph of text, with the same stylesheet.</p></main>'),
};
const files = Object.fromEntries(Object.values(STATIC).map((html, i) => [`floor-${i}.html`, html]));

/** In the page: rewrite one digit in each of the texts `sel` finds, once a frame. */
async function rewrite({ sel, n }) {
  const texts = (sel ? [...document.querySelectorAll(sel)] : [])
    .map((e) => [...e.childNodes].find((c) => c.nodeType === 3 && /\d/.test(c.data)))
    .filter(Boolean);
  const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  for (let i = 0; i < n; i++) {
    await frame();
    await frame();
    for (const t of texts) t.data = t.data.replace(/\d/, (d) => String((Number(d) + 3) % 10));
  }
  await frame();
  await frame();
  return texts.length;
}

const CHANGES = {
  nothing: '',
  'the one-line answer': '.explorer-headline',
  'the key numbers': '.explorer dd',
  'every explorer text': '.explorer dd, .explorer li, .explorer td, .explorer .readout, .explorer p, .explorer strong',
};

const h = await createHarness({ files });
try {
  console.log(`Chromium ${h.browser.version()}, CPU ${RATE}x\n`);
  const page = await h.open('', { label: 'floor', viewport: { width: 1440, height: 900 } });
  const cdp = await page.context().newCDPSession(page);
  await page.evaluate(() => document.getElementById('flops-slider')?.scrollIntoView({ block: 'center' }));
  await page.waitForFunction(() => document.querySelectorAll('.explorer dd').length > 0, null, { timeout: 60_000 });
  await page.waitForTimeout(2000);
  const rows = {};
  for (let r = 0; r < ROUNDS; r++) {
    for (const [what, sel] of Object.entries(CHANGES)) {
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: RATE });
      const stop = await startTrace(cdp, CATEGORIES);
      const n = await page.evaluate(rewrite, { sel, n: FRAMES });
      const events = await stop();
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      const self = selfByEvent(events, mainThread(events));
      const per = PHASES.map((p) => (self.get(p) || 0) / 1000 / FRAMES);
      (rows[what] ||= { n, runs: [] }).runs.push(per);
    }
  }
  console.log(`1. One frame's rendering when the page's script changes N texts of the explorer (1440 x 900, ms per frame, median of ${ROUNDS} rounds of ${FRAMES} frames)`);
  console.log(['change'.padEnd(22), 'N'.padStart(3), ...PHASES.map((p) => p.replace('UpdateLayoutTree', 'style').padStart(9)), 'all'.padStart(7)].join(' '));
  for (const [what, { n, runs }] of Object.entries(rows)) {
    const cols = PHASES.map((_, i) => median(runs.map((x) => x[i])));
    console.log([what.padEnd(22), String(n).padStart(3), ...cols.map((v) => v.toFixed(2).padStart(9)), cols.reduce((a, b) => a + b, 0).toFixed(2).padStart(7)].join(' '));
  }

  console.log(`\n2. The first layout of the static page (no scripts), 412 x 823, ${LOADS} loads each: longest Layout / the task holding it, ms`);
  const names = Object.keys(STATIC);
  const loads = Object.fromEntries(names.map((k) => [k, []]));
  for (let i = 0; i < LOADS; i++) {
    for (const [j, name] of names.entries()) {
      const context = await h.browser.newContext({ viewport: { width: 412, height: 823 }, deviceScaleFactor: 1 });
      try {
        const p = await context.newPage();
        const c = await context.newCDPSession(p);
        await c.send('Emulation.setCPUThrottlingRate', { rate: RATE });
        const stop = await startTrace(c, CATEGORIES);
        await p.goto(`${h.url}floor-${j}.html`, { waitUntil: 'load' });
        await p.waitForTimeout(500);
        const events = await stop();
        // the page's renderer: the main thread that parsed the document (a new
        // context starts in a renderer of its own, beside about:blank's)
        const parsed = events.find((e) => e.ph === 'X' && e.name === 'ParseHTML' && String(e.args?.beginData?.url || '').includes(`floor-${j}.html`));
        if (!parsed) throw new Error(`floor.mjs: no ParseHTML of floor-${j}.html in the trace`);
        const onMain = (e) => e.pid === parsed.pid && e.tid === parsed.tid;
        const first = events.filter((e) => onMain(e) && e.ph === 'X' && e.name === 'Layout').sort((a, b) => b.dur - a.dur)[0];
        const task = first && tasks(events, onMain).find((t) => t.ts <= first.ts && first.ts < t.ts + t.dur);
        loads[name].push([first ? first.dur / 1000 : 0, task ? task.dur / 1000 : 0]);
      } finally {
        await context.close();
      }
    }
  }
  for (const name of names) {
    const xs = loads[name];
    console.log(`  ${name.padEnd(16)} layout ${xs.map((x) => x[0].toFixed(0)).join(', ').padEnd(18)} task ${xs.map((x) => x[1].toFixed(0)).join(', ')}  (median ${median(xs.map((x) => x[0])).toFixed(0)} / ${median(xs.map((x) => x[1])).toFixed(0)})`);
  }
} finally {
  await h.close();
}
