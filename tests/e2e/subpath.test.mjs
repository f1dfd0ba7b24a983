// The app served below the site root (e.g. https://host/courses/gpu/brrr/), as a
// course page would host it. Runs only when the build can work there: Trunk's
// default public_url "/" makes dist/index.html load "/app.js", which exists only at
// the root, so for such a build this file skips with the reason.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createHarness, clearShots, DEFAULT_ROOT, metric, setSlider, inputValue, pollUntil, screenshot, waitMetric } from './helpers.mjs';

const SUBPATH = '/courses/gpu/brrr/';

/** Where the build expects to live: a prefix, or null if only at the site root. */
function buildPrefix() {
  const index = path.join(DEFAULT_ROOT, 'index.html');
  if (!fs.existsSync(index)) return { prefix: SUBPATH }; // let the harness fail loudly
  const html = fs.readFileSync(index, 'utf8');
  const m = html.match(/["']([^"']*?)[^"'/]+_bg\.wasm["']/);
  if (!m) return { prefix: SUBPATH };
  const dir = m[1]; // e.g. "/", "./", "", "/courses/gpu/brrr/"
  if (dir === '/') return { prefix: null, why: 'dist/index.html loads its wasm from "/" (Trunk public_url "/"): this build works only at the site root' };
  if (dir.startsWith('/')) return { prefix: dir };
  if (/^[a-z]+:/i.test(dir)) return { prefix: null, why: `dist/index.html loads its wasm from ${dir}` };
  return { prefix: SUBPATH };
}

const { prefix, why } = buildPrefix();
let h;

before(async () => {
  clearShots('fail-subpath');
  if (prefix) h = await createHarness({ prefix });
});

after(async () => {
  try {
    if (h) h.assertClean();
  } finally {
    if (h) await h.close();
  }
});

test(`the app works under a sub-path (${prefix ?? SUBPATH})`, { skip: prefix ? false : why }, async () => {
  assert.ok(h.url.endsWith(prefix));
  const page = await h.open('?batch=64&workload=chain', { label: 'subpath' });
  try {
    assert.equal(Number(await inputValue(page, 'batch-box')), 64);
    assert.equal(await inputValue(page, 'workload'), 'chain');
    const before = await metric(page, 'wall_time_s');
    await setSlider(page, 'ops', 2); // 10^2 = 100 ops
    const after = await waitMetric(page, 'wall_time_s', '!==', before);
    assert.notEqual(after, before, 'the ops slider changed nothing');
    const loc = await pollUntil(page, 
      () => page.evaluate(() => ({ path: location.pathname, search: location.search })),
      (l) => new URLSearchParams(l.search).has('ops'),
    );
    assert.equal(loc.path, prefix, `the app rewrote the path to ${loc.path}`);
    assert.ok(new URLSearchParams(loc.search).has('ops'), `URL: ${loc.search}`);
  } catch (err) {
    try {
      err.message += `\n  screenshot: ${await screenshot(page, 'fail-subpath')}`;
    } catch {}
    throw err;
  } finally {
    await h.closePage(page);
  }
});
