/**
 * CPU time and peak memory of a command, as the operating system counts them.
 *
 * `cpuTime(command, args, options)` runs the command once under bash's `time` keyword and returns
 * `{ user, sys, total }` in seconds: the CPU time of the process and of every process it waited for
 * (git under the CLI), which a loaded machine does not inflate the way it inflates wall-clock time.
 * bash's `time` reports what getrusage(RUSAGE_CHILDREN) gained while the command ran; Node.js has no
 * way to ask that of a child. The report goes to a pipe of its own (fd 3), so the command's stdout and
 * stderr stay its own; they come back too, with its exit `code`, `signal` and wall-clock `wall`
 * (seconds), so a caller can check the result before it trusts the time.
 *
 * Options: `cwd`; `env` (the whole environment; default this process's); `input` (text for its stdin);
 * `exitCodes` (the exit codes that mean it ran as meant; default `[0]`): any other exit code throws
 * with its stderr, so a broken command is never timed as a fast one. The call is synchronous (the
 * result is a plain object, and awaiting it gives the same).
 *
 * `peakRss(script, args, options)` runs `node --import bench/rss-hook.mjs script args...` the same way
 * and adds `rss`: the peak resident set size of that Node.js process in bytes
 * (`process.resourceUsage().maxRSS`, recorded at exit), its children not included.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * fd 4 keeps the caller's stderr for the command; the group's stderr, where `time` reports, is fd 3.
 * `%3U %3S`: user and system seconds with three decimals.
 */
const TIMED = 'exec 4>&2; TIMEFORMAT="%3U %3S"; { time "$@" 2>&4 3>&- 4>&-; } 2>&3';

export function cpuTime(command, args = [], options = {}) {
  const { cwd, env, input, exitCodes = [0] } = options;
  const started = performance.now();
  const result = spawnSync("bash", ["-c", TIMED, "bash", command, ...args], {
    cwd,
    env: { ...(env ?? process.env), LC_NUMERIC: "C" },
    input: input ?? "",
    encoding: "utf8",
    maxBuffer: 1024 * 1024 * 1024,
    stdio: ["pipe", "pipe", "pipe", "pipe"],
  });
  const wall = (performance.now() - started) / 1000;
  if (result.error) throw new Error(`cannot run bash to time ${command}: ${result.error.message}`);
  const [, stdout, stderr, report] = result.output;
  const shown = [command, ...args].join(" ");
  if (!exitCodes.includes(result.status)) {
    const why = result.status === null ? `signal ${result.signal}` : `exit code ${result.status}`;
    throw new Error(`${shown} failed (${why}): ${stderr.trim().slice(-2000)}`);
  }
  const match = /(\d+(?:\.\d+)?) (\d+(?:\.\d+)?)\s*$/.exec(report);
  if (!match) throw new Error(`no time report from bash for ${shown}: ${JSON.stringify(report.slice(-200))}`);
  const user = Number(match[1]);
  const sys = Number(match[2]);
  return {
    user,
    sys,
    total: Math.round((user + sys) * 1000) / 1000,
    wall,
    code: result.status,
    signal: result.signal,
    stdout,
    stderr,
  };
}

const HOOK = pathToFileURL(join(HERE, "rss-hook.mjs")).href;

export function peakRss(script, args = [], options = {}) {
  const dir = mkdtempSync(join(tmpdir(), "taskgate-bench-rss-"));
  const file = join(dir, "rss");
  try {
    const result = cpuTime(process.execPath, ["--import", HOOK, script, ...args], {
      ...options,
      env: { ...(options.env ?? process.env), BENCH_RSS_FILE: file },
    });
    let rss;
    try {
      rss = Number(readFileSync(file, "utf8"));
    } catch {
      rss = undefined; // the process died before its exit handler ran
    }
    return { ...result, rss };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
