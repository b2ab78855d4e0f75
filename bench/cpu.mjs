/**
 * The CPU time of one command: user and system seconds of the process and of every process it waited
 * for (git under the CLI, say). Wall-clock time on a shared machine measures the neighbours as much as
 * the command; CPU time does not count the time the command spends waiting for a core.
 *
 * bash's `time` reports what getrusage(RUSAGE_CHILDREN) gained while the command ran, which includes
 * the command's own children once they are waited for. Node.js has no way to ask that of a child.
 */
import { spawnSync } from "node:child_process";

const SCRIPT = 'TIMEFORMAT="%3U %3S"; { time "$@" >/dev/null 2>&3; } 3>&2 2>&1';

/**
 * Runs `command args` once, its output discarded, and returns its CPU time in seconds:
 * `{ user, sys, total }`. Options: `cwd`, `env`, `input` (text for its stdin), and `exitCodes` (the
 * exit codes that mean it ran as meant; default `[0]`): any other exit code throws with its stderr, so
 * a broken command is never timed as a fast one.
 */
export function cpuTime(command, args = [], options = {}) {
  const { cwd, env, input, exitCodes = [0] } = options;
  const result = spawnSync("bash", ["-c", SCRIPT, "bash", command, ...args], {
    cwd,
    env: env ?? process.env,
    input: input ?? "",
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw new Error(`cannot run bash to time ${command}: ${result.error.message}`);
  const shown = [command, ...args].join(" ");
  if (!exitCodes.includes(result.status)) {
    const why = result.status === null ? `signal ${result.signal}` : `exit code ${result.status}`;
    throw new Error(`${shown} failed (${why}): ${result.stderr.trim().slice(-2000)}`);
  }
  const match = /(\d+\.\d+) (\d+\.\d+)\s*$/.exec(result.stdout);
  if (!match) throw new Error(`no time report from bash for ${shown}: ${JSON.stringify(result.stdout.slice(-200))}`);
  const user = Number(match[1]);
  const sys = Number(match[2]);
  return { user, sys, total: Math.round((user + sys) * 1000) / 1000 };
}
