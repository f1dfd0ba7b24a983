// The last line of defence: a panic in the WASM app shows a banner with the message
// and a reload link carrying the same state, instead of a dead page.
// (This file expects console errors from the deliberate panic, so it checks that
// they are exactly the panic and nothing else.)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHarness } from './helpers.mjs';

let h;
before(async () => {
  h = await createHarness();
});
after(async () => {
  if (h) await h.close();
});

test('a panic shows a banner with a reload link that keeps the state', async () => {
  const page = await h.open('?batch=64&ops=16&debug_panic=1', { label: 'panic' });
  const banner = page.locator('#panic-banner');
  await banner.waitFor({ state: 'visible', timeout: 30_000 });
  const text = await banner.innerText();
  assert.match(text, /internal error/);
  assert.match(text, /debug_panic=1 was requested/);
  const href = await banner.locator('a').getAttribute('href');
  const u = new URL(href);
  assert.equal(u.searchParams.get('batch'), '64');
  assert.equal(u.searchParams.get('ops'), '16');
  // the only problems are the panic itself (its console error and the trap)
  for (const c of h.problems.consoleErrors) assert.match(c.text, /panicked|debug_panic|unreachable/i, c.text);
  assert.ok(h.problems.foreignRequests.length === 0);
});

test('without the hook the page has no banner', async () => {
  const page = await h.open('?batch=64', { label: 'no panic' });
  assert.equal(await page.locator('#panic-banner').count(), 0);
});
