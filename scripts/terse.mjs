// Terser as the release build's hooks use it (minify.mjs: the JS glue; csp.mjs:
// Trunk's inline loader): an ES module, two compress passes, names mangled, no
// comments. A hook whose input terser turns into nothing stops the build.
import { minify } from 'terser';

/** `source` minified; `hook` and `what` name the caller and its input in the error. */
export async function terse(source, hook, what) {
  const out = await minify(source, { module: true, compress: { passes: 2 }, mangle: true, format: { comments: false } });
  if (typeof out.code !== 'string' || out.code.length === 0) {
    console.error(`${hook}: terser returned nothing for ${what}`);
    process.exit(1);
  }
  return out.code;
}
