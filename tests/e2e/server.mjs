// A tiny static file server for the built app (dist/), node:http only.
//
//   import { startServer } from './server.mjs';
//   const { url, close } = await startServer({ root, prefix: '/courses/gpu/brrr/' });
//
// Standalone:  node tests/e2e/server.mjs [--root DIR] [--prefix /path/] [--port N] [--gzip]
//
// - serves `root` (default: <repo>/dist) under `prefix` (default "/");
// - a request for the prefix without its trailing slash redirects (301) to it;
// - "/" inside the prefix serves index.html; directories serve their index.html;
// - anything outside the prefix, or escaping the root, is a 404;
// - listens on 127.0.0.1, port 0 (any free port) unless told otherwise;
// - `files` ({ 'name.html': 'text' }) adds in-memory files under the prefix (test
//   pages such as a host page that embeds the app in an iframe), served like any
//   other file; they win over files of the same name in root.

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, '..', '..');
export const DEFAULT_ROOT = path.join(REPO_ROOT, 'dist');

export const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

export function mimeFor(file) {
  return MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

function normalizePrefix(prefix) {
  let p = prefix || '/';
  if (!p.startsWith('/')) p = '/' + p;
  if (!p.endsWith('/')) p += '/';
  return p;
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(body);
}

// Text and wasm a real host compresses (the bench's Lighthouse run serves gzip).
const GZIP_TYPES = /\.(html|js|mjs|css|wasm|svg|json|webmanifest)$/i;
const gzipCache = new Map(); // file -> { mtimeMs, body }

function gzipped(file, st) {
  const hit = gzipCache.get(file);
  if (hit && hit.mtimeMs === st.mtimeMs) return hit.body;
  const body = zlib.gzipSync(fs.readFileSync(file), { level: 9 });
  gzipCache.set(file, { mtimeMs: st.mtimeMs, body });
  return body;
}

/**
 * Serve `root` under `prefix`. `gzip: true` compresses text and wasm for clients
 * that accept it (content-encoding: gzip, level 9, like a static host serving
 * precompressed files); off by default, so the tests see the files as written.
 */
export async function startServer({ root = DEFAULT_ROOT, prefix = '/', port = 0, host = '127.0.0.1', log = false, files = {}, gzip = false } = {}) {
  const absRoot = path.resolve(root);
  const pre = normalizePrefix(prefix);
  const preNoSlash = pre.slice(0, -1); // "" for "/"

  const server = http.createServer((req, res) => {
    const started = Date.now();
    res.on('finish', () => {
      if (log) console.log(`${res.statusCode} ${req.method} ${req.url} ${Date.now() - started}ms`);
    });
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'method not allowed\n', { allow: 'GET, HEAD' });
      return;
    }
    let u;
    try {
      u = new URL(req.url, 'http://localhost');
    } catch {
      send(res, 400, 'bad request\n');
      return;
    }
    const pathname = u.pathname;
    if (preNoSlash && pathname === preNoSlash) {
      send(res, 301, 'moved\n', { location: pre + u.search });
      return;
    }
    if (!pathname.startsWith(pre)) {
      send(res, 404, 'not found\n');
      return;
    }
    let rel;
    try {
      rel = decodeURIComponent(pathname.slice(pre.length));
    } catch {
      send(res, 400, 'bad request\n');
      return;
    }
    if (rel.includes('\0')) {
      send(res, 400, 'bad request\n');
      return;
    }
    if (Object.hasOwn(files, rel)) {
      const body = Buffer.from(files[rel], 'utf8');
      res.writeHead(200, {
        'content-type': mimeFor(rel),
        'content-length': body.length,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    let file = path.resolve(absRoot, '.' + path.posix.sep + rel);
    if (file !== absRoot && !file.startsWith(absRoot + path.sep)) {
      send(res, 404, 'not found\n');
      return;
    }
    let st;
    try {
      st = fs.statSync(file);
      if (st.isDirectory()) {
        if (!pathname.endsWith('/')) {
          send(res, 301, 'moved\n', { location: pathname + '/' + u.search });
          return;
        }
        file = path.join(file, 'index.html');
        st = fs.statSync(file);
      }
    } catch {
      send(res, 404, 'not found\n');
      return;
    }
    if (!st.isFile()) {
      send(res, 404, 'not found\n');
      return;
    }
    if (gzip && GZIP_TYPES.test(file) && /\bgzip\b/.test(String(req.headers['accept-encoding'] || ''))) {
      const body = gzipped(file, st);
      res.writeHead(200, {
        'content-type': mimeFor(file),
        'content-length': body.length,
        'content-encoding': 'gzip',
        vary: 'accept-encoding',
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
      return;
    }
    res.writeHead(200, {
      'content-type': mimeFor(file),
      'content-length': st.size,
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    const stream = fs.createReadStream(file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: actualPort } = server.address();
  const origin = `http://${host}:${actualPort}`;
  const url = origin + pre;
  const close = () =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return { url, origin, prefix: pre, root: absRoot, server, close };
}

// Standalone use.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
  };
  const root = opt('--root', DEFAULT_ROOT);
  const prefix = opt('--prefix', '/');
  const port = Number(opt('--port', '0'));
  if (!fs.existsSync(path.join(root, 'index.html'))) {
    console.error(`warning: ${path.join(root, 'index.html')} does not exist (build with trunk first)`);
  }
  const { url, close } = await startServer({ root, prefix, port, log: true, gzip: args.includes('--gzip') });
  console.log(`serving ${path.resolve(root)} at ${url}`);
  const stop = async () => {
    await close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
