// Trunk post_build hook: minify wasm-bindgen's JS glue in release builds.
//
// wasm-bindgen writes readable JS (67 KB raw, 11.7 KB gzipped for this app);
// terser brings it to about 31 KB raw, 9.2 KB gzipped. Debug builds (`trunk
// serve`) are left readable. Only the hashed `<name>-<hash>.js` bundles Trunk
// emitted are touched; the service worker (sw.js) is copied as written.
import fs from 'node:fs';
import path from 'node:path';
import { terse } from './terse.mjs';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) {
  console.error('minify.mjs: TRUNK_STAGING_DIR is not set (run as a Trunk post_build hook)');
  process.exit(1);
}
if (process.env.TRUNK_PROFILE !== 'release') process.exit(0);

// Trunk's hashes are hex without zero padding, so 1 to 16 digits.
const bundles = fs.readdirSync(dir).filter((f) => /-[0-9a-f]{1,16}\.js$/.test(f));
if (bundles.length === 0) {
  console.error(`minify.mjs: no hashed JS bundle in ${dir}`);
  process.exit(1);
}
for (const name of bundles) {
  const file = path.join(dir, name);
  const source = fs.readFileSync(file, 'utf8');
  const code = await terse(source, 'minify.mjs', name);
  fs.writeFileSync(file, code);
  console.log(`minify.mjs: ${name} ${source.length} -> ${code.length} bytes`);
}
