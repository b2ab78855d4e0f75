#!/usr/bin/env node
// dist/cli/main.js is the bundled entry after `npm run build` (scripts/bundle-cli.mjs), or tsc's own
// output after a tsc-only build: the same `main` either way. It loads each command's modules when the
// command runs, so keep this file to the one import.
import { main } from "../dist/cli/main.js";

process.exitCode = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
});
