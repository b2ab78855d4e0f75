#!/usr/bin/env node
/**
 * The guard before every edit, as an agent harness pays for it: one `taskgate can-edit` process, and
 * one `taskgate agent hook claude-code` process fed Claude Code's PreToolUse JSON, from process start
 * to exit, in a checkout of a 10,000-task repository of each preset (bench/repos.mjs, cloned into a
 * work tree). Target: under 100 ms each, wall clock and CPU time (user + system, git included:
 * bench/cpu.mjs). A bare `node -e ""` is measured alongside: what any Node.js process costs to start.
 *
 * With the helper (`taskgate agent serve`, which the integrations start) running, the same hook is
 * measured again: a Node.js start and one question over its socket; and the question alone, as the
 * opencode plugin asks it from inside opencode, without a process.
 *
 * Every figure is the median of BENCH_RUNS runs (default 7) after one warm-up run, the measurements
 * interleaved round by round; each run's answer is checked (exit code, allowed or not, the task)
 * before its time is kept. Settings: BENCH_TASKS (10,000), BENCH_RUNS (7). Prints `BENCH_ROW {...}`
 * per figure and `BENCH_JSON {...}` last.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { createConnection } from "node:net";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cpuTime } from "./cpu.mjs";
import { RUNS, benchRow, cleanUp, intFromEnv, tempDirs } from "./lib.mjs";
import { buildBoard, buildPhases } from "./repos.mjs";
import { claudeCommand } from "../dist/cli/agent-install.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BIN = join(ROOT, "bin/taskgate.js");
const TASKS = intFromEnv("BENCH_TASKS", 10_000, 100);
const TARGET_MS = 100;

if (!existsSync(join(ROOT, "dist/cli/main.js"))) {
  console.error("bench: dist/cli/main.js is missing: run npm run build first");
  process.exit(1);
}

const int = (n) => n.toLocaleString("en-US");
/** The command `agent install claude-code` writes into .claude/settings.json, for this checkout. */
const INSTALLED = claudeCommand(`${process.execPath} ${BIN}`);
const median = (values) => {
  const list = [...values].sort((a, b) => a - b);
  const mid = list.length >> 1;
  return list.length % 2 ? list[mid] : (list[mid - 1] + list[mid]) / 2;
};

/** A work tree of a bare benchmark repository. */
function checkout(bare, label) {
  const dir = mkdtempSync(join(tmpdir(), `taskgate-bench-agents-${label}-`));
  tempDirs.push(dir);
  execFileSync("git", ["clone", "-q", bare, dir], { stdio: "ignore" });
  return dir;
}

/** A phases task at `implement` (project files are its scope), found by its `.state`. */
function implementTask(dir) {
  for (const name of readdirSync(join(dir, "tasks"))) {
    const state = readFileSync(join(dir, "tasks", name, ".state"), "utf8").trim();
    if (state === "implement") return name;
  }
  throw new Error("no task at implement");
}

/** A board task in progress, its owner, and a file inside its paths. */
function inProgressTask(dir) {
  const ledger = JSON.parse(readFileSync(join(dir, "state/tasks.json"), "utf8"));
  const definitions = JSON.parse(readFileSync(join(dir, "planning/tasks.json"), "utf8")).tasks;
  for (const [id, entry] of Object.entries(ledger.tasks)) {
    if (entry.status !== "in_progress" || !entry.owner?.includes("/")) continue;
    const glob = definitions.find((item) => item.id === id)?.paths?.[0];
    if (!glob) continue;
    const [login, agent] = entry.owner.split("/");
    return { id, login, agent, file: `${glob.replace(/\/?\*\*.*$/, "")}/guarded.ts` };
  }
  throw new Error("no task in progress with paths");
}

/** One measured command: its arguments, environment, stdin, and the check of its answer. */
function measures(phasesDir, boardDir) {
  const phasesTask = implementTask(phasesDir);
  const board = inProgressTask(boardDir);
  const boardEnv = {
    ...process.env,
    TASKGATE_LOGIN: board.login,
    TASKGATE_AGENT: board.agent,
    TASKGATE_AGENT_HELPER: "0",
  };
  const allowedJson = (task) => (result) => {
    const answer = JSON.parse(result.stdout);
    return result.code === 0 && answer.allowed && answer.task === task ? undefined : result.stdout.slice(0, 300);
  };
  const event = (dir, file) =>
    JSON.stringify({
      session_id: "bench",
      cwd: dir,
      hook_event_name: "PreToolUse",
      tool_name: "Write",
      tool_input: { file_path: join(dir, file), content: "x" },
    });
  const silent = (result) => (result.code === 0 && result.stdout === "" ? undefined : result.stdout.slice(0, 300));
  return [
    { name: "bare Node.js start", args: ["-e", ""], check: () => undefined },
    {
      name: `phases can-edit --task (${int(TASKS)} tasks)`,
      args: [BIN, "can-edit", "src/guarded.ts", "--task", phasesTask, "--json"],
      cwd: phasesDir,
      check: allowedJson(phasesTask),
      target: true,
    },
    {
      name: `phases agent hook claude-code, TASKGATE_TASK (${int(TASKS)} tasks)`,
      args: [BIN, "agent", "hook", "claude-code"],
      cwd: phasesDir,
      env: { ...process.env, TASKGATE_TASK: phasesTask, CLAUDE_PROJECT_DIR: phasesDir, TASKGATE_AGENT_HELPER: "0" },
      input: event(phasesDir, "src/guarded.ts"),
      check: silent,
      target: true,
    },
    {
      name: `phases agent hook claude-code, TASKGATE_TASK, helper running (${int(TASKS)} tasks)`,
      args: [BIN, "agent", "hook", "claude-code"],
      cwd: phasesDir,
      env: { ...process.env, TASKGATE_TASK: phasesTask, CLAUDE_PROJECT_DIR: phasesDir, TASKGATE_AGENT_HELPER: "1" },
      input: event(phasesDir, "src/guarded.ts"),
      check: silent,
      target: true,
    },
    {
      name: `phases Claude Code hook as installed (sh, perl client), helper running (${int(TASKS)} tasks)`,
      file: "/bin/sh",
      args: ["-c", INSTALLED],
      cwd: phasesDir,
      env: { ...process.env, TASKGATE_TASK: phasesTask, CLAUDE_PROJECT_DIR: phasesDir, TASKGATE_AGENT_HELPER: "1" },
      input: event(phasesDir, "src/guarded.ts"),
      check: silent,
      target: true,
    },
    {
      name: `phases can-edit, no task named: every .state read (${int(TASKS)} tasks)`,
      args: [BIN, "can-edit", "src/guarded.ts", "--json"],
      cwd: phasesDir,
      check: allowedJson(null),
      target: false,
    },
    {
      name: `board can-edit, owner's task found (${int(TASKS)} tasks)`,
      args: [BIN, "can-edit", board.file, "--json"],
      cwd: boardDir,
      env: boardEnv,
      check: allowedJson(board.id),
      target: true,
    },
    {
      name: `board agent hook claude-code (${int(TASKS)} tasks)`,
      args: [BIN, "agent", "hook", "claude-code"],
      cwd: boardDir,
      env: { ...boardEnv, CLAUDE_PROJECT_DIR: boardDir },
      input: event(boardDir, board.file),
      check: silent,
      target: true,
    },
    {
      name: `board Claude Code hook as installed (sh, perl client), helper running (${int(TASKS)} tasks)`,
      file: "/bin/sh",
      args: ["-c", INSTALLED],
      cwd: boardDir,
      env: { ...boardEnv, CLAUDE_PROJECT_DIR: boardDir, TASKGATE_AGENT_HELPER: "1" },
      input: event(boardDir, board.file),
      check: silent,
      target: true,
    },
    {
      name: `board agent hook claude-code, helper running (${int(TASKS)} tasks)`,
      args: [BIN, "agent", "hook", "claude-code"],
      cwd: boardDir,
      env: { ...boardEnv, CLAUDE_PROJECT_DIR: boardDir, TASKGATE_AGENT_HELPER: "1" },
      input: event(boardDir, board.file),
      check: silent,
      target: true,
      helper: true,
    },
  ];
}

/** Starts the board's helper and waits for its socket. */
async function startHelper(dir) {
  const child = spawn(process.execPath, [BIN, "agent", "serve", "--repo", dir], {
    cwd: dir,
    detached: true,
    stdio: "ignore",
    env: { ...process.env, TASKGATE_AGENT_IDLE: "600" },
  });
  child.unref();
  const socket = join(dir, ".git/taskgate/agent.sock");
  for (let wait = 0; wait < 300 && !existsSync(socket); wait++) await sleep(100);
  if (!existsSync(socket)) throw new Error("the helper did not start");
  return socket;
}

/** One question over the helper's socket, as the opencode plugin asks it: milliseconds, and the reply. */
function askSocket(socket, request) {
  return new Promise((done, fail) => {
    const started = performance.now();
    const connection = createConnection(socket);
    let reply = "";
    connection.on("error", fail);
    connection.on("connect", () => connection.write(`${JSON.stringify(request)}\n`));
    connection.on("data", (chunk) => {
      reply += chunk;
      if (reply.includes("\n")) {
        connection.destroy();
        done({ ms: performance.now() - started, reply: JSON.parse(reply) });
      }
    });
  });
}

async function main() {
  console.log(`building a ${int(TASKS)}-task phases repository and board…`);
  const [phases, board] = await Promise.all([buildPhases({ tasks: TASKS }), buildBoard({ tasks: TASKS })]);
  const boardDir = checkout(board.dir, "board");
  const phasesDir = checkout(phases.dir, "phases");
  const list = measures(phasesDir, boardDir);
  try {
    await startHelper(phasesDir);
    await measureAll(list, await startHelper(boardDir), boardDir);
  } finally {
    for (const dir of [phasesDir, boardDir]) {
      execFileSync(process.execPath, [BIN, "agent", "stop", "--repo", dir], { stdio: "ignore" });
    }
  }
}

async function measureAll(list, socket, boardDir) {
  const cpu = list.map(() => []);
  const wall = list.map(() => []);
  for (let round = -1; round < RUNS; round++) {
    for (const [i, item] of list.entries()) {
      const result = cpuTime(item.file ?? process.execPath, item.args, {
        cwd: item.cwd ?? ROOT,
        env: item.env ?? process.env,
        input: item.input ?? "",
        exitCodes: [0, 1],
      });
      const wrong = item.check(result);
      if (wrong) throw new Error(`${item.name}: wrong answer: ${wrong}`);
      if (round < 0) continue;
      cpu[i].push(result.total * 1000);
      wall[i].push(result.wall * 1000);
    }
  }
  const figures = list.map((item, i) => ({ measure: item.name, cpuMs: median(cpu[i]), wallMs: median(wall[i]) }));
  figures.push(await pluginQuestion(list.at(-1), socket, boardDir));
  for (const [i, figure] of figures.entries()) {
    const item = list[i] ?? { target: true };
    const value =
      figure.cpuMs === undefined
        ? `${fixed(figure.wallMs)} ms wall`
        : `${Math.round(figure.wallMs)} ms wall, ${Math.round(figure.cpuMs)} ms CPU`;
    console.log(`${figure.measure}: ${value}`);
    if (item.target === undefined) benchRow(figure.measure, value, "reference", true);
    else if (item.target) {
      // The plugin's question runs in the harness's own process: it has a wall time and no CPU time of its own.
      const cpuMet = figure.cpuMs === undefined || figure.cpuMs < TARGET_MS;
      benchRow(figure.measure, value, `< ${TARGET_MS} ms`, figure.wallMs < TARGET_MS && cpuMet);
    } else benchRow(figure.measure, value, "informative (name the task)", true);
  }
  console.log(`BENCH_JSON ${JSON.stringify({ tasks: TASKS, runs: RUNS, figures })}`);
}

/** The opencode plugin's path: one question to the running helper from a long-lived process. */
async function pluginQuestion(hookMeasure, socket, boardDir) {
  const env = hookMeasure.env;
  const request = {
    harness: "opencode",
    input: JSON.stringify({
      tool: "write",
      args: { filePath: JSON.parse(hookMeasure.input).tool_input.file_path },
      directory: boardDir,
    }),
    cwd: boardDir,
    env: { TASKGATE_LOGIN: env.TASKGATE_LOGIN, TASKGATE_AGENT: env.TASKGATE_AGENT },
  };
  const times = [];
  for (let round = -1; round < RUNS; round++) {
    const { ms, reply } = await askSocket(socket, request);
    if (reply.code !== 0) throw new Error(`the helper refused the plugin's question: ${JSON.stringify(reply)}`);
    if (round >= 0) times.push(ms);
  }
  return {
    measure: `board opencode plugin → helper, one question, no process (${int(TASKS)} tasks)`,
    wallMs: median(times),
  };
}

const fixed = (n) => n.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });

main()
  .catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  })
  .finally(cleanUp);
