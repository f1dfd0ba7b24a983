// Shared helpers for the browser tests and the benchmark: start the static server
// on dist/, launch the system Chromium through playwright-core, open pages that
// record console errors/warnings, page errors and every request, and read the
// app's DOM contract (readouts, sliders, number boxes, the roofline canvas).

import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import { startServer, REPO_ROOT, DEFAULT_ROOT as DIST } from './server.mjs';

/** The built app: dist/ at the repo root, or $BRRR_DIST. */
export const DEFAULT_ROOT = process.env.BRRR_DIST ? path.resolve(process.env.BRRR_DIST) : DIST;
export { REPO_ROOT };
export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const OUT_DIR = path.join(HERE, 'out');

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--enable-unsafe-webgpu',
  '--use-webgpu-adapter=swiftshader',
];

/** The median of some numbers (the mean of the middle two for an even count); NaN for none. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export const READY_TIMEOUT_MS = Number(process.env.E2E_READY_TIMEOUT_MS || 30_000);

/** The eight readouts of the explorer, by `data-metric` name. */
/**
 * The page's one rule for regimes (model::limit): the cost whose halving shortens
 * the step most, a tie within 1 % going to the larger time share. `m` holds the
 * three speedups and the three shares under `prefix` (`''`, `'llm_'`, `'dit_'`).
 */
export function limitRegime(m, prefix = '') {
  const s = {
    compute: m[`${prefix}speedup_flops2`],
    memory: m[`${prefix}speedup_bw2`],
    overhead: m[`${prefix}speedup_overhead_half`],
  };
  const best = Math.max(s.compute, s.memory, s.overhead);
  const tied = Object.keys(s).filter((k) => s[k] * 1.01 >= best);
  if (tied.length === 1 || m[`${prefix}share_compute`] === undefined) return tied;
  const share = (k) => m[`${prefix}share_${k}`];
  const top = Math.max(...tied.map(share));
  return tied.filter((k) => share(k) === top);
}

export const METRICS = [
  'wall_time_s',
  'achieved_flops',
  'achieved_bw',
  'intensity',
  'regime',
  'share_compute',
  'share_memory',
  'share_overhead',
  'speedup_flops2',
  'speedup_bw2',
  'speedup_overhead_half',
];

export function ensureOutDir() {
  fs.mkdirSync(OUT_DIR, { recursive: true });
  return OUT_DIR;
}

/** Throws a clear error when the app has not been built. */
export function assertBuilt(root = DEFAULT_ROOT) {
  const index = path.join(root, 'index.html');
  if (!fs.existsSync(index)) {
    throw new Error(`${index} does not exist: build the app first (trunk build --release)`);
  }
}

/** How long closing a context or the browser may take before it is forced. */
const CLOSE_TIMEOUT_MS = 30_000;

/**
 * Close a launched browser; if it has not closed in CLOSE_TIMEOUT_MS (a graceful
 * close can wait forever on a stuck renderer or GPU process, and Playwright's has
 * no bound), SIGKILL the process group of every Chromium this process launched
 * (Playwright starts each one detached, as its own group).
 */
export async function closeBrowser(browser) {
  try {
    await bounded(browser.close(), CLOSE_TIMEOUT_MS, 'the browser to close');
  } catch (e) {
    const pids = launchedChromiums();
    console.error(`# ${e.message}; killing Chromium (pids ${pids.join(', ') || 'none found'})`);
    for (const pid of pids) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {}
    }
  }
}

/** The pids of the Chromium processes this process started (its children running CHROMIUM). */
export function launchedChromiums() {
  const mine = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      const exe = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0')[0];
      if (path.basename(exe).startsWith('chrom') || exe === CHROMIUM) mine.push(Number(d));
    } catch {}
  }
  return mine;
}

export async function launchBrowser() {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium not found at ${CHROMIUM} (set CHROMIUM_PATH)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
}

/** URLs that never leave the page: inline data and in-page blobs. */
function isLocalScheme(u) {
  return u.protocol === 'data:' || u.protocol === 'blob:' || u.href === 'about:blank';
}

/**
 * One harness per test file: a server on dist/, a browser, and a log of everything
 * that went wrong on any page it opened.
 *
 *   const h = await createHarness();
 *   const page = await h.open('?batch=8', { label: 'my test' });
 *   ...
 *   h.assertClean();   // in an after() hook
 *   await h.close();
 */
export async function createHarness({ root = DEFAULT_ROOT, prefix = '/', files = {} } = {}) {
  assertBuilt(root);
  const server = await startServer({ root, prefix, files });
  const origin = new URL(server.url).origin;
  let browser;
  try {
    browser = await launchBrowser();
  } catch (e) {
    await server.close();
    throw e;
  }
  const problems = {
    consoleErrors: [], // {label, type, text, location}
    pageErrors: [], // {label, message}
    foreignRequests: [], // {label, url}
    failedResponses: [], // {label, url, status}
  };
  const requests = []; // {label, url}
  const contexts = new Set();

  function track(page, label) {
    page.on('console', (msg) => {
      const type = msg.type();
      if (type === 'error' || type === 'warning') {
        const loc = msg.location();
        problems.consoleErrors.push({
          label,
          type,
          text: msg.text(),
          location: loc && loc.url ? `${loc.url}:${loc.lineNumber}` : '',
        });
      }
    });
    page.on('pageerror', (err) => {
      problems.pageErrors.push({ label, message: String(err && (err.stack || err.message || err)) });
    });
    page.on('crash', () => problems.pageErrors.push({ label, message: 'page crashed' }));
    page.on('request', (req) => {
      const url = req.url();
      requests.push({ label, url });
      let u;
      try {
        u = new URL(url);
      } catch {
        problems.foreignRequests.push({ label, url });
        return;
      }
      if (isLocalScheme(u)) return;
      if (u.origin !== origin) problems.foreignRequests.push({ label, url });
    });
    page.on('websocket', (ws) => {
      const url = ws.url();
      requests.push({ label, url });
      let foreign = true;
      try {
        const u = new URL(url);
        foreign = !(u.host === new URL(origin).host);
      } catch {}
      if (foreign) problems.foreignRequests.push({ label, url });
    });
    page.on('response', (res) => {
      if (res.status() >= 400) problems.failedResponses.push({ label, url: res.url(), status: res.status() });
    });
  }

  /**
   * Open a fresh context + page at `query` (e.g. "?batch=8" or "" for defaults)
   * and wait until the app says it is ready.
   */
  async function open(query = '', { label = query || '(defaults)', viewport = { width: 1280, height: 800 }, ready = true } = {}) {
    const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
    contexts.add(context);
    const page = await context.newPage();
    track(page, label);
    const q = query === '' || query.startsWith('?') ? query : '?' + query;
    await page.goto(server.url + q, { waitUntil: 'load' });
    if (ready) {
      await waitReady(page);
      // an embed of a widget loaded on demand: its module mounted too
      const embed = new URLSearchParams(q).get('embed');
      if (ON_DEMAND_IDS.includes(embed)) await showMore(page, `#${embed}`);
    }
    return page;
  }

  async function closePage(page) {
    await closeContext(page.context());
  }

  /** Close a context this harness opened (or one a test opened on `browser`), bounded. */
  async function closeContext(context) {
    contexts.delete(context);
    await bounded(context.close(), CLOSE_TIMEOUT_MS, 'a browser context to close').catch(() => {});
  }

  function describeProblems() {
    const lines = [];
    for (const c of problems.consoleErrors) lines.push(`console ${c.type} [${c.label}]: ${c.text} ${c.location}`);
    for (const p of problems.pageErrors) lines.push(`page error [${p.label}]: ${p.message}`);
    for (const r of problems.foreignRequests) lines.push(`request left ${origin} [${r.label}]: ${r.url}`);
    for (const r of problems.failedResponses) lines.push(`HTTP ${r.status} [${r.label}]: ${r.url}`);
    return lines;
  }

  /** The checks every test file runs in its after() hook. */
  function assertClean() {
    const lines = describeProblems();
    assert.equal(
      problems.consoleErrors.length + problems.pageErrors.length + problems.foreignRequests.length,
      0,
      `pages had console errors/warnings, page errors or requests off ${origin}:\n  ${lines.join('\n  ')}`,
    );
    // A 404 also shows as a console error; keep the check explicit anyway.
    assert.equal(problems.failedResponses.length, 0, `failed responses:\n  ${lines.join('\n  ')}`);
  }

  async function close() {
    for (const c of [...contexts]) await closeContext(c);
    await closeBrowser(browser);
    await server.close();
  }

  /**
   * Open a page for test `t`, run `fn(page)`, and on failure save a screenshot named
   * `fail-<shotPrefix>-<test>` (its path is added to the error). Also fails the test
   * if this page logged errors/warnings, failed a request or left the origin.
   * `prepare(page)` runs before `fn` (e.g. emulate reduced motion and reload);
   * `shot` saves a screenshot under that name whatever happens.
   */
  async function withPage(t, query, fn, { viewport, shot, shotPrefix = 'page', prepare } = {}) {
    const label = `${t.name} ${query || '(defaults)'}`;
    const page = await open(query, { label, viewport });
    try {
      if (prepare) await prepare(page);
      await fn(page);
    } catch (err) {
      try {
        const file = await screenshot(page, `fail-${shotPrefix}-${slug(t.name)}`);
        err.message += `\n  screenshot: ${file}\n  url: ${page.url()}`;
      } catch {}
      throw err;
    } finally {
      if (shot) {
        try {
          await screenshot(page, shot);
        } catch {}
      }
      const mine = describeProblems().filter((l) => l.includes(`[${label}]`));
      await closePage(page);
      assert.deepEqual(mine, [], `problems on ${label}`);
    }
  }

  return { server, origin, url: server.url, browser, open, closePage, closeContext, withPage, problems, requests, describeProblems, assertClean, close };
}

// ---------------------------------------------------------------------------
// Page helpers (the DOM contract)

/**
 * Resolves once the app says it is ready (`data-ready`: the first screen built)
 * and, unless `{ all: false }`, every part below it too: the page builds those
 * as a reader comes near them (`data-pending` until then); this builds the rest
 * at once through the page's print path (`beforeprint` builds every waiting
 * part), so a test can read any widget without scrolling to it first.
 */
export async function waitReady(page, timeout = READY_TIMEOUT_MS, { all = true } = {}) {
  await page.waitForSelector('html[data-ready="1"]', { state: 'attached', timeout });
  if (all) await buildAll(page);
}

/**
 * Every part the page left waiting (`[data-slot][data-pending]`) built now, as
 * before printing, with the parts those leave for later (`.later` until built).
 */
export async function buildAll(page) {
  await page.evaluate(() => {
    if (document.querySelector('[data-slot][data-pending]')) window.dispatchEvent(new Event('beforeprint'));
  });
  await page.waitForFunction(() => !document.querySelector('[data-slot][data-pending], .later'), null, { timeout: READY_TIMEOUT_MS });
}

function parseValue(v) {
  if (v === null || v === undefined) return v;
  const t = String(v).trim();
  if (t !== '' && Number.isFinite(Number(t))) return Number(t);
  return String(v);
}

/** `data-value` of `[data-metric="name"]`: a number if numeric, else the string. Throws if absent. */
export async function metric(page, name) {
  const raw = await page.evaluate((n) => {
    const el = document.querySelector(`[data-metric="${n}"]`);
    return el ? { v: el.getAttribute('data-value') } : null;
  }, name);
  if (raw === null) throw new Error(`no element [data-metric="${name}"] on the page`);
  return parseValue(raw.v);
}

/** All readouts at once, as {name: value}; a missing one is `undefined`. */
export async function metrics(page, names = METRICS) {
  const raw = await page.evaluate((ns) => {
    const out = {};
    for (const n of ns) {
      const el = document.querySelector(`[data-metric="${n}"]`);
      out[n] = el ? el.getAttribute('data-value') : undefined;
    }
    return out;
  }, names);
  const out = {};
  for (const n of names) out[n] = raw[n] === undefined ? undefined : parseValue(raw[n]);
  return out;
}

export function sha1(s) {
  return crypto.createHash('sha1').update(s).digest('hex');
}

/** sha1 of the canvas' PNG data URL. */
export async function canvasHash(page, selector = 'canvas#roofline-canvas') {
  const data = await page.evaluate((sel) => {
    const c = document.querySelector(sel);
    if (!c) return null;
    return c.toDataURL('image/png');
  }, selector);
  if (data === null) throw new Error(`no canvas ${selector}`);
  return sha1(data);
}

/**
 * One canvas pixel's [r, g, b] at canvas pixel (x, y), copied to a fresh 1 × 1
 * canvas first: repeated readbacks of the chart's own context make Chromium warn
 * about willReadFrequently (a console warning fails the test).
 */
export async function canvasPixel(page, selector = 'canvas#roofline-canvas', x = 2, y = 2) {
  return page.evaluate(([sel, x, y]) => {
    const c = document.querySelector(sel);
    if (!c) return null;
    const t = document.createElement('canvas');
    t.width = 1;
    t.height = 1;
    const cx = t.getContext('2d');
    cx.drawImage(c, x, y, 1, 1, 0, 0, 1, 1);
    return [...cx.getImageData(0, 0, 1, 1).data].slice(0, 3);
  }, [selector, x, y]);
}

/** The roofline canvas' `data-frame` counter (NaN if absent). */
export async function frame(page) {
  return page.evaluate(() => {
    const c = document.querySelector('canvas#roofline-canvas');
    return c ? Number(c.getAttribute('data-frame')) : NaN;
  });
}

/** Set `#name-slider`'s value and dispatch a bubbling `input` event, as a drag would. */
export async function setSlider(page, name, value) {
  await page.evaluate(
    ([n, v]) => {
      const el = document.getElementById(`${n}-slider`);
      if (!el) throw new Error(`no #${n}-slider`);
      el.value = String(v);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    },
    [name, value],
  );
}

/** min/max/value of `#name-slider`, as numbers. */
export async function sliderRange(page, name) {
  return page.evaluate((n) => {
    const el = document.getElementById(`${n}-slider`);
    if (!el) return null;
    return { min: Number(el.min), max: Number(el.max), value: Number(el.value), step: el.step, type: el.type };
  }, name);
}

/** Select all text in `#name-box` and type `text` with the keyboard (input events fire). */
export async function typeBox(page, name, text) {
  const box = page.locator(`#${name}-box`);
  await box.click();
  await box.press('ControlOrMeta+a');
  if (text === '') await box.press('Backspace');
  else await page.keyboard.type(text);
}

/** The current value of an input/select by id. */
export async function inputValue(page, id) {
  return page.locator(`#${id}`).inputValue();
}

/** The widget list (`state::widgets::widget_list!`) as the browser tests read it:
 * tests/e2e/data/widgets.json, `{ id, onDemand }` in page order, which a native test
 * (`the_browser_tests_list_is_the_registry`) keeps equal to the list, so a new widget
 * needs no test list; widgets.test.mjs checks the page's widgets against it. */
const WIDGETS = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'tests', 'e2e', 'data', 'widgets.json'), 'utf8'));

/** Every widget id, in the page's order. */
export const WIDGET_IDS = WIDGETS.map((w) => w.id);

/** The ids of the widgets the page loads on demand (their own module; `showMore`). */
export const ON_DEMAND_IDS = WIDGETS.filter((w) => w.onDemand).map((w) => w.id);

/** The page's current query string (`?…`). */
/**
 * The page's query string once the app has written it: the app mirrors its state
 * into the address bar when the state has been still for 250 ms
 * (`<html data-url-pending>` while a write waits), so this waits for that first.
 */
export async function search(page) {
  await page.waitForFunction(() => !document.documentElement.hasAttribute('data-url-pending'), null, { timeout: READY_TIMEOUT_MS });
  return page.evaluate(() => location.search);
}

/**
 * The text of `locator` as a reader sees it: scrolled into view, read after the next
 * two frames. Widgets off screen are not rendered (CSS `content-visibility: auto`)
 * and the `innerText` of content that is not rendered is empty.
 */
export async function readText(locator) {
  await show(locator);
  return locator.innerText();
}

/**
 * Scroll `locator` into view until its widget knows it is on screen (its
 * section has lost the `away` class the page sets off-screen, which lets CSS
 * skip its rendering) and two more frames have been drawn: it is rendered.
 */
export async function show(locator) {
  const page = locator.page();
  const el = await locator.elementHandle();
  // A part above it that grows as it is built or loads its module (a widget
  // built near the screen, the lab's or serve's own module) can push it off the
  // screen again before its widget hears it is on it: scroll to it again then,
  // as a reader would (each wait is on the page: shown, or moved off the screen).
  for (let i = 0; ; i++) {
    await locator.scrollIntoViewIfNeeded();
    const got = await page.waitForFunction((e) => {
      if (!e.closest('section.widget')?.classList.contains('away')) return 'shown';
      const r = e.getBoundingClientRect();
      return r.bottom < 0 || r.top > innerHeight ? 'moved' : false;
    }, el, { timeout: READY_TIMEOUT_MS });
    if ((await got.jsonValue()) === 'shown') break;
    if (i >= 10) throw new Error('show: the element kept moving off the screen after each scroll to it');
  }
  await settle(page);
}

/**
 * A widget loaded on demand (`ON_DEMAND_IDS`: their own module, mounted by
 * the stand-in when the widget first comes on screen): scrolled into view, and
 * resolved once its app has mounted (`.more-app` has children; a failed load
 * shows `data-more-load="error"` and fails here with its message).
 */
export async function showMore(page, sel) {
  await page.locator(sel).scrollIntoViewIfNeeded();
  await page.waitForSelector(`${sel} .more-app > *, ${sel} [data-more-load=error]`, { timeout: 60_000 });
  const err = await page.locator(`${sel} [data-more-load=error]`).count();
  if (err) throw new Error(await page.locator(`${sel} [data-more-message]`).innerText());
  await settle(page);
}

/** One parameter of a query string, or null. */
export const param = (query, key) => new URLSearchParams(query).get(key);

/**
 * Resolves once the page has drawn its next `n` animation frames. The app's
 * effects run in microtasks right after an input, and what it learns from the
 * browser's observers (a widget came on screen, a canvas changed width) is
 * delivered at a frame: after two frames, both have run.
 */
export async function frames(page, n = 2, timeout = READY_TIMEOUT_MS) {
  // a Locator's evaluate would hand the element to the function as `n` (and
  // wait forever): always the page's
  if (typeof page.page === 'function') page = page.page();
  await bounded(
    page.evaluate(
      (n) =>
        new Promise((resolve) => {
          const step = (k) => (k === 0 ? resolve() : requestAnimationFrame(() => step(k - 1)));
          step(n);
        }),
      n,
    ),
    timeout,
    `${n} animation frame(s) of ${page.url()}: none came (the page's main thread or its compositor is stuck)`,
  );
}

/**
 * `promise`, or an error naming `what` once `ms` pass without it: a bound for a
 * failure only (Playwright's evaluate and close have none), so that a stuck page
 * or browser fails the test that met it, with its name, instead of the whole file
 * running into the runner's cap.
 */
export async function bounded(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`waited ${ms} ms for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Let the app react to what a test just did: its next two frames (see `frames`). */
export async function settle(page) {
  await frames(page, 2);
}

/**
 * Read `fn` (async) again at each of the page's frames until `pred(value)` holds;
 * returns the last value read (the caller's assert says what was wanted) once
 * `timeout` ms pass without it, a bound for a failure only. Callers wait on what
 * the page shows: a readout, an attribute, the address it wrote.
 */
export async function pollUntil(page, fn, pred, { timeout = READY_TIMEOUT_MS } = {}) {
  const end = Date.now() + timeout;
  let v = await fn();
  while (!pred(v) && Date.now() < end) {
    await frames(page, 1);
    v = await fn();
  }
  return v;
}

/**
 * Wait until readout `name`'s `data-value` (parsed as `metric` does) compares to
 * `value` by `op` (one of === !== < <= > >=), checked in the page at each frame;
 * returns the value then.
 */
export async function waitMetric(page, name, op, value, timeout = READY_TIMEOUT_MS) {
  const handle = await page.waitForFunction(
    ([n, op, want]) => {
      const raw = document.querySelector(`[data-metric="${n}"]`)?.getAttribute('data-value');
      if (raw === null || raw === undefined) return false;
      const t = raw.trim();
      const v = t !== '' && Number.isFinite(Number(t)) ? Number(t) : raw;
      const ok = {
        '===': () => v === want,
        '!==': () => v !== want,
        '<': () => v < want,
        '<=': () => v <= want,
        '>': () => v > want,
        '>=': () => v >= want,
      }[op];
      if (!ok) throw new Error(`waitMetric: no operator ${op}`);
      return ok() ? { v } : false;
    },
    [name, op, value],
    { timeout },
  );
  return (await handle.jsonValue()).v;
}

/** Wait until the canvas `selector` has been drawn more than `after` times (its `data-frame`). */
export async function drawnPast(page, selector = 'canvas#roofline-canvas', after = 0, timeout = READY_TIMEOUT_MS) {
  const handle = await page.waitForFunction(
    ([sel, n]) => {
      const f = Number(document.querySelector(sel)?.getAttribute('data-frame') || 0);
      return f > n ? f : false;
    },
    [selector, after],
    { timeout },
  );
  return handle.jsonValue();
}

export async function screenshot(page, name, { fullPage = true } = {}) {
  ensureOutDir();
  const file = path.join(OUT_DIR, name.endsWith('.png') ? name : `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}

/** Remove screenshots left by an earlier run: out/NAMEPREFIX*.png. */
export function clearShots(namePrefix) {
  if (!fs.existsSync(OUT_DIR)) return;
  for (const f of fs.readdirSync(OUT_DIR)) {
    if (f.startsWith(namePrefix) && f.endsWith('.png')) fs.rmSync(path.join(OUT_DIR, f), { force: true });
  }
}

/** Screenshot name from a test name. */
export function slug(s) {
  return String(s)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
}

/**
 * One harness for a test file, with the hooks every file needs: started before the
 * first test, and after the last one the file fails on any console error/warning,
 * page error, failed response or off-origin request, then everything is closed.
 * Returns a stand-in that forwards to the harness once it exists.
 */
export function useHarness(opts) {
  const ref = { h: null };
  before(async () => {
    ref.h = await createHarness(opts);
  });
  after(async () => {
    try {
      if (ref.h) ref.h.assertClean();
    } finally {
      if (ref.h) await ref.h.close();
    }
  });
  return new Proxy({}, { get: (_, key) => (ref.h ? ref.h[key] : undefined) });
}
