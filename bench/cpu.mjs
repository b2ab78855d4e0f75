/**
 * CPU time and peak memory of a command, as the operating system counts them.
 *
 * `cpuTime(command, args, options)` runs the command under bash's `time` keyword and resolves with
 * `{ user, sys, total }` in seconds: the CPU time of the process and of every process it waited for
 * (git, for taskgate), which a loaded machine does not inflate the way it inflates wall-clock time.
 * The command's own stdout and stderr are kept apart from bash's report (which goes to a pipe of its
 * own, fd 3) and come back as `stdout` and `stderr`, with its exit `code`, `signal` and the
 * wall-clock `wall` (seconds), so a caller can check the result before it trusts the time. A
 * command that exits non-zero resolves all the same; only a command that cannot be timed rejects.
 *
 * Options: `cwd`, `env` (added to this process's environment), `input` (a string or Buffer written
 * to its stdin; otherwise stdin is empty).
 *
 * `peakRss(script, args, options)` runs `node --import bench/rss-hook.mjs script args...` the same
 * way and adds `rss`: the peak resident set size of that Node.js process in bytes
 * (`process.resourceUsage().maxRSS`, recorded at exit), its children not included.
 */
import { spawn } from "node:child_process";
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
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn("bash", ["-c", TIMED, "bash", command, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env, LC_NUMERIC: "C" },
      stdio: ["pipe", "pipe", "pipe", "pipe"],
    });
    const out = [];
    const err = [];
    let report = "";
    child.stdout.on("data", (chunk) => out.push(chunk));
    child.stderr.on("data", (chunk) => err.push(chunk));
    child.stdio[3].on("data", (chunk) => (report += chunk));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const wall = (performance.now() - started) / 1000;
      const match = /(\d+(?:\.\d+)?) (\d+(?:\.\d+)?)\s*$/.exec(report);
      if (!match) {
        reject(new Error(`cpuTime: no time report for ${command} ${args.join(" ")} (bash said: ${report.trim()})`));
        return;
      }
      const user = Number(match[1]);
      const sys = Number(match[2]);
      resolve({
        user,
        sys,
        total: Math.round((user + sys) * 1000) / 1000,
        wall,
        code,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      });
    });
    child.stdin.on("error", () => {}); // the command did not read its input: its exit code tells
    child.stdin.end(options.input ?? "");
  });
}

const HOOK = pathToFileURL(join(HERE, "rss-hook.mjs")).href;

export async function peakRss(script, args = [], options = {}) {
  const dir = mkdtempSync(join(tmpdir(), "taskgate-bench-rss-"));
  const file = join(dir, "rss");
  try {
    const result = await cpuTime(process.execPath, ["--import", HOOK, script, ...args], {
      ...options,
      env: { ...options.env, BENCH_RSS_FILE: file },
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
