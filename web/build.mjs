// Bundles mqtt.js for the browser into host/tablesense/static/mqtt.min.js.
//
//   cd web && npm ci && npm run build     # writes the bundle
//   npm run check                          # exits 1 when the committed bundle is stale
//
// Reproducible: the exact versions come from package-lock.json, esbuild's
// output is deterministic for the same input and version, and the banner
// names both versions (tests/test_dashboard_bundle.py compares it with the lock).
import { build } from "esbuild";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "host", "tablesense", "static", "mqtt.min.js");
const version = (name) =>
  JSON.parse(readFileSync(join(here, "node_modules", name, "package.json"), "utf8")).version;

const result = await build({
  entryPoints: [join(here, "src", "mqtt-entry.js")],
  bundle: true,
  minify: true,
  format: "iife",
  globalName: "mqtt",
  platform: "browser",
  target: ["es2020"],
  legalComments: "eof",
  charset: "utf8",
  write: false,
  banner: {
    js: `/*! mqtt.js ${version("mqtt")} (MIT, github.com/mqttjs/MQTT.js) bundled by web/build.mjs with esbuild ${version("esbuild")} */`,
  },
});
const text = result.outputFiles[0].text;
if (process.argv.includes("--check")) {
  let current = "";
  try { current = readFileSync(out, "utf8"); } catch { /* missing */ }
  if (current !== text) {
    console.error(`${out} is not what web/build.mjs makes from package-lock.json: run npm run build`);
    process.exit(1);
  }
  console.log(`${out}: up to date (${text.length} bytes)`);
} else {
  writeFileSync(out, text);
  console.log(`wrote ${out} (${text.length} bytes)`);
}
