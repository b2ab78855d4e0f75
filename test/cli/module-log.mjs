/**
 * `node --import ./module-log.mjs ...` writes the URL of every module the process loads, one a line,
 * to the file named by $TASKGATE_MODULE_LOG (builtins included, as `node:...`). lazy-load.test.ts
 * runs the CLI under it. The file is both the `--import` that registers the hook, on the main thread,
 * and the hook itself, which Node.js runs on a thread of its own.
 */
import { appendFileSync } from "node:fs";
import { register } from "node:module";
import { isMainThread } from "node:worker_threads";

let log;

export function initialize(data) {
  log = data.log;
}

export async function load(url, context, nextLoad) {
  appendFileSync(log, `${url}\n`);
  return nextLoad(url, context);
}

if (isMainThread) {
  const file = process.env.TASKGATE_MODULE_LOG;
  if (!file) throw new Error("module-log.mjs: set TASKGATE_MODULE_LOG to the file to write");
  register(import.meta.url, { data: { log: file } });
}
