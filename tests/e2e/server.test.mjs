// The static server the browser tests rely on: MIME types, prefixes, redirects,
// and that nothing outside the served folder is reachable. No browser needed.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer } from './server.mjs';

let dir;
before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brrr-server-'));
  const files = {
    'index.html': '<!doctype html><title>x</title>',
    'app-123.js': 'export {}',
    'app-123_bg.wasm': Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]),
    'style.css': 'body{}',
    'icon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    'p.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
    'd.json': '{}',
    'm.webmanifest': '{}',
    'sub/index.html': '<!doctype html><title>sub</title>',
  };
  for (const [name, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), body);
  }
  fs.writeFileSync(path.join(os.tmpdir(), 'brrr-secret.txt'), 'secret');
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const get = (url, opts = {}) => fetch(url, { redirect: 'manual', ...opts });

for (const prefix of ['/', '/courses/gpu/brrr/']) {
  test(`serves files with the right MIME types under ${prefix}`, async () => {
    const s = await startServer({ root: dir, prefix });
    try {
      assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\//);
      assert.ok(s.url.endsWith(prefix));
      const want = {
        '': 'text/html',
        'index.html': 'text/html',
        'app-123.js': 'text/javascript',
        'app-123_bg.wasm': 'application/wasm',
        'style.css': 'text/css',
        'icon.svg': 'image/svg+xml',
        'p.png': 'image/png',
        'd.json': 'application/json',
        'm.webmanifest': 'application/manifest+json',
        'sub/': 'text/html',
      };
      for (const [rel, type] of Object.entries(want)) {
        const r = await get(s.url + rel + (rel === '' ? '?batch=8' : ''));
        assert.equal(r.status, 200, rel);
        assert.equal(r.headers.get('content-type').split(';')[0], type, rel);
        await r.arrayBuffer();
      }
      const wasm = new Uint8Array(await (await get(s.url + 'app-123_bg.wasm')).arrayBuffer());
      assert.deepEqual([...wasm.slice(0, 4)], [0, 0x61, 0x73, 0x6d]);
      assert.equal((await get(s.url + 'missing.js')).status, 404);
      assert.equal((await get(s.url + '..%2fbrrr-secret.txt')).status, 404);
      assert.equal((await get(s.url + '%2e%2e/%2e%2e/brrr-secret.txt')).status, 404);
      const dirNoSlash = await get(s.url + 'sub');
      assert.equal(dirNoSlash.status, 301);
      assert.equal(dirNoSlash.headers.get('location'), new URL(s.url).pathname + 'sub/');
      assert.equal((await get(s.url + 'index.html', { method: 'POST' })).status, 405);
    } finally {
      await s.close();
    }
  });
}

test('the prefix without its slash redirects to it, keeping the query; outside the prefix is 404', async () => {
  const s = await startServer({ root: dir, prefix: '/courses/gpu/brrr' });
  try {
    const origin = new URL(s.url).origin;
    assert.equal(s.url, origin + '/courses/gpu/brrr/');
    const r = await get(origin + '/courses/gpu/brrr?hw=h100-sxm');
    assert.equal(r.status, 301);
    assert.equal(r.headers.get('location'), '/courses/gpu/brrr/?hw=h100-sxm');
    assert.equal((await get(origin + '/')).status, 404);
    assert.equal((await get(origin + '/index.html')).status, 404);
    assert.equal((await get(origin + '/courses/gpu/brrrx/index.html')).status, 404);
    const ok = await get(origin + '/courses/gpu/brrr/');
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /<title>x<\/title>/);
  } finally {
    await s.close();
  }
});

test('gzip: true compresses text and wasm for clients that accept it, and only for them', async () => {
  const http = await import('node:http');
  const zlib = await import('node:zlib');
  const raw = (url, headers) =>
    new Promise((resolve, reject) => {
      http.get(url, { headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
  const s = await startServer({ root: dir, gzip: true });
  const plain = await startServer({ root: dir });
  try {
    for (const name of ['index.html', 'app-123.js', 'app-123_bg.wasm', 'style.css']) {
      const want = fs.readFileSync(path.join(dir, name));
      const z = await raw(s.url + name, { 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(z.headers['content-encoding'], 'gzip', name);
      assert.equal(Number(z.headers['content-length']), z.body.length, name);
      assert.deepEqual(zlib.gunzipSync(z.body), want, name);
      const id = await raw(s.url + name, {});
      assert.equal(id.headers['content-encoding'], undefined, `${name} without accept-encoding`);
      assert.deepEqual(id.body, want, name);
      const off = await raw(plain.url + name, { 'accept-encoding': 'gzip' });
      assert.equal(off.headers['content-encoding'], undefined, `${name} from a server without gzip`);
    }
    // images are served as they are
    const png = await raw(s.url + 'p.png', { 'accept-encoding': 'gzip' });
    assert.equal(png.headers['content-encoding'], undefined);
  } finally {
    await s.close();
    await plain.close();
  }
});
