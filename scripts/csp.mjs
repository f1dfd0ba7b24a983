// Trunk post_build hook: add a Content-Security-Policy <meta> to the built
// index.html. Its inline scripts (Trunk's wasm loader, index.html's first-paint
// theme script) are allowed by their sha256 hashes, so the policy needs neither
// 'unsafe-inline' for scripts nor 'unsafe-eval' ('wasm-unsafe-eval' lets
// WebAssembly compile). The stylesheet is inlined by Trunk (one request less
// before the first paint) and allowed by its hash; any other style element or
// sheet must come from the page's origin. Style *attributes* (set by the app for
// bar widths) are allowed.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { terse } from './terse.mjs';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('csp.mjs: TRUNK_STAGING_DIR is not set (run as a Trunk post_build hook)');
  process.exit(1);
}
const file = path.join(dir, 'index.html');
let html = fs.readFileSync(file, 'utf8');
// A release build drops the inlined stylesheet's comments and indentation
// before hashing it (issue 33: ~1.8 KB of the first visit's gzipped bytes were
// CSS comments). Here, not in minify.mjs: Trunk runs a stage's hooks at once,
// so only this script may rewrite index.html. A comment never sits inside a
// string in static/style.css (checked: the build fails if one does).
if (process.env.TRUNK_PROFILE === 'release') {
  html = html.replace(/(<style[^>]*>)([\s\S]*?)(<\/style>)/g, (_, open, css, close) => {
    if (/["'][^"'\n]*\/\*/.test(css)) {
      console.error('csp.mjs: a string in the inlined stylesheet holds "/*"; cannot drop its comments');
      process.exit(1);
    }
    // and the spaces around { } ; , > and after :, which never matter outside
    // a string (every rule's CSSOM text in Chromium was the same before and
    // after on 2026-12-03); a string with a space beside one of them stops the
    // build rather than lose it
    const uncommented = css.replace(/\/\*[\s\S]*?\*\//g, '');
    for (const [str] of uncommented.matchAll(/"[^"\n]*"|'[^'\n]*'/g)) {
      if (/\s[{};,>:]|[{};,>:]\s/.test(str)) {
        console.error(`csp.mjs: the string ${str} in the inlined stylesheet has a space beside one of { } ; , > :, which the release build drops`);
        process.exit(1);
      }
    }
    const bare = uncommented
      .replace(/\s*([{};,>])\s*/g, '$1')
      .replace(/:\s+/g, ':')
      .replace(/;}/g, '}')
      .trim();
    return open + bare + close;
  });
  // and drops index.html's comments (notes for this repository's readers,
  // ~600 gzipped bytes of the first visit), outside the script and style
  // elements, whose text is not HTML
  html = html
    .split(/(<(script|style)\b[^>]*>[\s\S]*?<\/\2>)/)
    .map((part, i) => (i % 3 === 0 ? part.replace(/<!--[\s\S]*?-->/g, '') : i % 3 === 1 ? part : ''))
    .join('');
  // and minifies Trunk's inline loader (Trunk.toml, pattern_script), as
  // minify.mjs does the JS glue
  const loaders = [...html.matchAll(/(<script type="module">)([\s\S]*?)(<\/script>)/g)];
  for (const [whole, open, js, close] of loaders) {
    const code = await terse(js, 'csp.mjs', 'the inline loader');
    html = html.replace(whole, () => open + code + close);
  }
}
const hashes = [];
for (const m of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)) {
  hashes.push(`'sha256-${crypto.createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
}
const styleHashes = [];
for (const m of html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g)) {
  styleHashes.push(`'sha256-${crypto.createHash('sha256').update(m[1], 'utf8').digest('base64')}'`);
}
const policy = [
  "default-src 'self'",
  `script-src 'self' 'wasm-unsafe-eval' ${hashes.join(' ')}`.trim(),
  `style-src 'self' ${styleHashes.join(' ')}`.trim(),
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join('; ');
const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
html = html.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>\s*/g, '');
html = html.replace(/<meta charset="utf-8">/i, (m) => `${m}\n  ${meta}`);
if (!html.includes(meta)) {
  console.error('csp.mjs: could not place the CSP meta tag (no <meta charset="utf-8">)');
  process.exit(1);
}
fs.writeFileSync(file, html);
console.log(`csp.mjs: CSP added with ${hashes.length} inline script and ${styleHashes.length} style hash(es)`);
