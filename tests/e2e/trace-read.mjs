// Reading a Chromium trace (CDP Tracing, ReportEvents) of the page: its main
// thread's tasks, the time by trace event, the main thread's CPU profile, and
// where each millisecond went by kind of work. Shared by profile.mjs (one slider,
// or the page's start) and bench.mjs (the start's long tasks). Not a test.

/** The categories profile.mjs and bench.mjs trace. */
export const TRACE_CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8.execute',
  'disabled-by-default-v8.cpu_profiler',
  'blink.user_timing',
  'toplevel',
];

/** Starts a trace on `cdp`; the returned function ends it and gives its events. */
export async function startTrace(cdp, categories = TRACE_CATEGORIES) {
  const events = [];
  const onData = (e) => events.push(...e.value);
  cdp.on('Tracing.dataCollected', onData);
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { transferMode: 'ReportEvents', traceConfig: { includedCategories: categories } });
  return async () => {
    await cdp.send('Tracing.end');
    await done;
    cdp.off('Tracing.dataCollected', onData);
    return events;
  };
}

/** The renderer's main thread: a predicate on events. */
export function mainThread(events) {
  // the page's renderer: the CrRendererMain that ran the most tasks
  const names = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const count = new Map();
  for (const e of events) if (e.name === 'RunTask') count.set(`${e.pid}:${e.tid}`, (count.get(`${e.pid}:${e.tid}`) || 0) + 1);
  const best = names.sort((a, b) => (count.get(`${b.pid}:${b.tid}`) || 0) - (count.get(`${a.pid}:${a.tid}`) || 0))[0];
  return (e) => !!best && e.pid === best.pid && e.tid === best.tid;
}

/** The main thread's top-level tasks (not nested in another), sorted by start. */
export function tasks(events, onMain = mainThread(events)) {
  const all = events
    .filter((e) => onMain(e) && e.ph === 'X' && typeof e.dur === 'number' && (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask'))
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const top = [];
  for (const e of all) if (!top.length || e.ts >= top[top.length - 1].ts + top[top.length - 1].dur) top.push(e);
  return top;
}

/** Self time (µs) per trace-event name of the main thread's complete events in [from, to). */
export function selfByEvent(events, onMain, from = -Infinity, to = Infinity) {
  const xs = events
    .filter((e) => onMain(e) && e.ph === 'X' && typeof e.dur === 'number' && e.ts >= from && e.ts < to)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const recs = [];
  const stack = [];
  for (const e of xs) {
    while (stack.length && stack[stack.length - 1].ts + stack[stack.length - 1].dur <= e.ts) stack.pop();
    if (stack.length) stack[stack.length - 1].child += e.dur;
    const rec = { ts: e.ts, dur: e.dur, name: e.name, child: 0 };
    stack.push(rec);
    recs.push(rec);
  }
  const self = new Map();
  // a task's own name says nothing: only what ran inside it
  for (const r of recs) if (!/RunTask$/.test(r.name)) self.set(r.name, (self.get(r.name) || 0) + r.dur - r.child);
  return self;
}

/** User-timing measures (`performance.measure`) whose name starts with `prefix`: {name, ts, dur} in µs. */
export function measures(events, prefix) {
  const open = new Map();
  const out = [];
  for (const e of events) {
    if (!e.cat || !e.cat.includes('blink.user_timing') || !e.name.startsWith(prefix)) continue;
    const k = `${e.name}|${e.id2?.local ?? e.id}`;
    if (e.ph === 'b') open.set(k, e.ts);
    else if (e.ph === 'e' && open.has(k)) {
      out.push({ name: e.name.slice(prefix.length), ts: open.get(k), dur: e.ts - open.get(k) });
      open.delete(k);
    }
  }
  return out.sort((a, b) => a.ts - b.ts);
}

/** The main thread's CPU profile: its samples with their time (µs, trace clock) and the node tree. */
export function cpuProfile(events, onMain) {
  const prof = events.find((e) => e.name === 'Profile' && onMain(e));
  const nodes = new Map();
  const samples = [];
  if (!prof) return { nodes, samples };
  let t = prof.args?.data?.startTime ?? 0;
  for (const e of events) {
    if (e.name !== 'ProfileChunk' || e.id !== prof.id || e.pid !== prof.pid) continue;
    const d = e.args?.data?.cpuProfile;
    if (!d) continue;
    for (const n of d.nodes || []) nodes.set(n.id, n);
    const deltas = e.args.data.timeDeltas || [];
    (d.samples || []).forEach((id, i) => {
      t += deltas[i] || 0;
      samples.push({ id, t });
    });
  }
  // each sample stands for the time until the next
  for (let i = 0; i < samples.length; i++) samples[i].dt = i + 1 < samples.length ? samples[i + 1].t - samples[i].t : 0;
  return { nodes, samples };
}

/** Self and inclusive time (µs) per function over the samples in [from, to). */
export function hottest(profile, from = -Infinity, to = Infinity) {
  const self = new Map();
  const incl = new Map();
  for (const s of profile.samples) {
    if (s.t < from || s.t >= to) continue;
    const n = profile.nodes.get(s.id);
    if (!n) continue;
    const f = n.callFrame;
    const key = `${f.functionName || '(anon)'}  ${f.url ? f.url.split('/').pop() : ''}`;
    self.set(key, (self.get(key) || 0) + s.dt);
    const seen = new Set();
    for (let m = n; m; m = profile.nodes.get(m.parent)) {
      const k = m.callFrame.functionName || '(anon)';
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) || 0) + s.dt);
    }
  }
  return { self, incl };
}

/**
 * Where the script time went, by kind: each sample goes to the innermost frame
 * of its stack that names a kind (wasm names need a build with the name
 * section: profile.mjs's header says how). A `brrr::model` frame under a
 * chart's draw is the model's, a DOM call under a memo is the DOM's.
 */
const KINDS = [
  ['model', /^brrr::(model|state|geom|factory)::|^<brrr::(model|state|geom|factory)::/],
  ['chart draw', /^brrr::ui::chart::|^<brrr::ui::chart::|plotters|as brrr::ui::chart::plot::Plot>|^(fillRect|fillText|stroke|fill|lineTo|moveTo|beginPath|measureText|drawImage|getImageData|putImageData|arc|clearRect|setLineDash|save|restore|set font|set fillStyle|set strokeStyle)$|CanvasRenderingContext2d/],
  ['DOM calls', /^(setAttribute|removeAttribute|insertBefore|appendChild|removeChild|cloneNode|createElement|createTextNode|set textContent|set nodeValue|set innerHTML|set data|set value|replaceWith|remove|before|after|addEventListener|removeEventListener|getAttribute|classList|toggle|add)$|^__wbg_(set|insert|append|remove|clone|create|add|get)|web_sys::features::gen_(Node|Element|Document|HtmlElement|DomTokenList|CssStyleDeclaration)/],
  ['view diff (leptos)', /reactive_graph|tachys|leptos|any_spawner|^<brrr::ui::|^brrr::ui::/],
  ['url/history', /replaceState|brrr::ui::shell::store/],
  ['GC', /^\(garbage collector\)$/],
];

export function byKind(profile, from = -Infinity, to = Infinity) {
  const out = new Map();
  for (const s of profile.samples) {
    if (s.t < from || s.t >= to) continue;
    let kind = null;
    let leaf = profile.nodes.get(s.id);
    if (!leaf) continue;
    const lf = leaf.callFrame.functionName;
    if (lf === '(idle)' || lf === '(program)' || lf === '(root)') continue;
    for (let m = leaf; m && !kind; m = profile.nodes.get(m.parent)) {
      const name = m.callFrame.functionName || '';
      for (const [k, re] of KINDS) {
        if (re.test(name)) {
          kind = k;
          break;
        }
      }
    }
    kind = kind || 'other script';
    out.set(kind, (out.get(kind) || 0) + s.dt);
  }
  return out;
}

/** The browser's own rendering work by trace event: style, layout, paint… (µs). */
export const RENDERING = ['UpdateLayoutTree', 'Layout', 'PrePaint', 'Paint', 'Layerize', 'Commit', 'HitTest', 'IntersectionObserverController::computeIntersections', 'ParseHTML'];

/** Total Blocking Time of `tasks` (µs → ms): what each task over 50 ms ran past 50 ms. */
export function blocking(ts) {
  return ts.reduce((a, t) => a + Math.max(0, t.dur / 1000 - 50), 0);
}

/**
 * For a start load: installed before any page script (`context.addInitScript`),
 * it gives the page `__brrrWhen(selector)`, a promise that resolves once the
 * selector matches. Waited on with [`inPage`], it lets a tool wait for the page
 * without Playwright's waitForSelector/evaluate, which first inject Playwright's
 * own script into the page: a task of 64-101 ms at 4x CPU right after `load`,
 * and one of 50-57 ms for an evaluate (a trace's EvaluateScript with no URL),
 * which a long-task count would charge to the page.
 */
export function whenProbe() {
  window.__brrrWhen = (sel) =>
    new Promise((resolve) => {
      const look = () => (document.querySelector(sel) ? resolve(true) : setTimeout(look, 25));
      look();
    });
}

/** `expr`'s value in the page (a promise awaited), through the DevTools protocol; throws after `ms`. */
export async function inPage(cdp, expr, ms) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not within ${ms / 1000} s: ${expr.slice(0, 60)}`)), ms);
  });
  try {
    const r = await Promise.race([cdp.send('Runtime.evaluate', { expression: expr, awaitPromise: true, returnByValue: true }), late]);
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description || r.exceptionDetails.text);
    return r.result.value;
  } finally {
    clearTimeout(timer);
  }
}

/** The trace categories that time each wasm function's compile on its first call (`wasm.CompileLazy`). */
export const COMPILE_CATEGORIES = ['v8.wasm', 'disabled-by-default-v8.wasm.detailed'];

/** Time (µs) and count of the first-call compiles (`wasm.CompileLazy`) on the main thread in [from, to). */
export function lazyCompiles(events, onMain, from = -Infinity, to = Infinity) {
  let us = 0;
  let n = 0;
  for (const e of events) {
    if (e.name !== 'wasm.CompileLazy' || e.ph !== 'X' || !onMain(e) || e.ts < from || e.ts >= to) continue;
    us += e.dur || 0;
    n++;
  }
  return { us, n };
}
