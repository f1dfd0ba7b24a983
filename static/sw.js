// brrr's service worker: after one visit the page works offline (a classroom with
// bad Wi-Fi). The page is fetched network-first (so a new deploy shows up at once)
// with the cached copy as the fallback; the hashed assets (js, wasm, css) never
// change under a name, so they are served cache-first. Same-origin GETs only.
const CACHE = 'brrr-v1';
// Trunk's content-hashed names (`name-<hex>.js`, `name-<hex>_bg.wasm`, …)
const HASHED = /-[0-9a-f]{8,16}(_bg)?\.[a-z]+$/;
const ASSET = /['"]([^'"\s]+\.(?:js|wasm|css|svg|webmanifest))['"]/g;
const SNIPPET = /['"](\.\/snippets\/[^'"\s]+\.js)['"]/g;

async function precache() {
  const cache = await caches.open(CACHE);
  const scope = self.registration.scope;
  const res = await fetch(scope, { cache: 'no-cache' });
  if (!res.ok) return;
  const html = await res.clone().text();
  await cache.put(scope, res);
  const urls = new Set();
  for (const m of html.matchAll(ASSET)) urls.add(new URL(m[1], scope).href);
  urls.add(new URL('manifest.webmanifest', scope).href);
  await cache.addAll([...urls]);
  // the JS glue imports wasm-bindgen's snippets (./snippets/<crate>/inline0.js):
  // without them the glue does not load offline
  const more = new Set();
  for (const u of urls) {
    if (!u.endsWith('.js')) continue;
    const r = await cache.match(u);
    if (!r) continue;
    for (const m of (await r.text()).matchAll(SNIPPET)) more.add(new URL(m[1], u).href);
  }
  if (more.size) await cache.addAll([...more]);
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().catch(() => {}).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) if (key !== CACHE) await caches.delete(key);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  const scope = self.registration.scope;
  if (req.mode === 'navigate') {
    event.respondWith(
      fetch(req)
        .then((res) => {
          if (res.ok) {
            const copy = res.clone();
            caches.open(CACHE).then((c) => c.put(scope, copy));
          }
          return res;
        })
        .catch(async () => (await caches.match(scope)) || Response.error()),
    );
    return;
  }
  // unhashed names (the trace widget's worker, UI and example, the lab's module,
  // the icons) can change under the same name: network first, the cached copy
  // offline
  if (!HASHED.test(url.pathname)) {
    event.respondWith(
      fetch(req)
        .then((res) => {
          if (res.ok) {
            const copy = res.clone();
            caches.open(CACHE).then((c) => c.put(req, copy));
          }
          return res;
        })
        .catch(async () => (await caches.match(req)) || Response.error()),
    );
    return;
  }
  event.respondWith(
    caches.match(req).then(
      (hit) =>
        hit ||
        fetch(req).then((res) => {
          if (res.ok) {
            const copy = res.clone();
            caches.open(CACHE).then((c) => c.put(req, copy));
          }
          return res;
        }),
    ),
  );
});
