/**
 * Start-up: each command loads only what it needs. The CLI runs as a user runs it (`bin/taskgate.js`
 * over `dist/`, bundled by `npm run build` or tsc's output alone) under a loader hook that logs every
 * module it loads (module-log.mjs); each file of the bundle is named by its sources
 * (dist/bundle/meta.json). A static import of a heavy module in the entry, or a command that pulls in
 * another command's modules, fails here. No timing: the bench (bench/start.mjs) measures.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redactSecrets } from "../../src/core/kernel/secrets.js";
import { runCli, tempRepo, type TempRepo } from "../helpers/git.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin/taskgate.js");
const HOOK = join(ROOT, "test/cli/module-log.mjs");
const DIST_MAIN = join(ROOT, "dist/cli/main.js");

/** What the entry and `--version` / `--help` may load: the entry's own modules. */
const ENTRY = ["bin/taskgate.js", "src/cli/main.ts", "src/cli/io.ts", "src/cli/commands.ts"];

/** Heavy libraries and the product's modules that no command loads without needing them. */
const LIBRARIES = /\/node_modules\/(zod|yaml|picomatch)\//;
const AUTHORING = [
  "src/cli/authoring.ts",
  "src/core/phases/authoring.ts",
  "src/core/board/authoring.ts",
  "src/core/kernel/change.ts",
  "src/git/transaction.ts",
];
const BOARD = ["src/core/board/"];
/** What only `serve` loads: its module and the pages' views. */
const SERVE = ["src/cli/serve.ts", "src/pages/"];
const PHASES_MODEL = ["src/core/phases/model.ts", "src/core/phases/pull-request.ts", "src/core/phases/audit.ts"];

const cleanup: (() => void)[] = [];
let phases: TempRepo;
let board: TempRepo;

beforeAll(() => {
  if (!existsSync(DIST_MAIN)) throw new Error("dist/ is missing: run `npm run build` before these tests");
  phases = exampleRepo("phases", { "tasks/lazy-load/.state": "new\n", "tasks/lazy-load/.state.approvals": "" });
  board = exampleRepo("board", { "src/api/notes/page.js": "export const page = 1;\n" });
});

afterAll(() => {
  for (const remove of cleanup.splice(0)) remove();
});

/** A copy of examples/<preset> committed on main, and a branch `change` that adds `files`. */
function exampleRepo(preset: string, files: Record<string, string>): TempRepo {
  const repo = tempRepo();
  cleanup.push(() => repo.remove());
  cpSync(join(ROOT, "examples", preset), repo.dir, { recursive: true });
  repo.commit("the example");
  repo.git("switch", "-q", "-c", "change");
  repo.write(files);
  repo.commit("a change");
  return repo;
}

interface Loaded {
  readonly code: number;
  readonly stdout: string;
  /** The sources of every module the process loaded: `src/...` and `bin/...` paths, node_modules paths. */
  readonly sources: readonly string[];
}

/** Runs `taskgate ...args` and names the sources of every module it loaded. */
function load(args: readonly string[], cwd: string = ROOT): Loaded {
  const dir = mkdtempSync(join(tmpdir(), "taskgate-modules-"));
  try {
    const log = join(dir, "modules.log");
    const run = spawnSync(process.execPath, ["--import", HOOK, BIN, ...args], {
      cwd,
      env: { ...process.env, TASKGATE_MODULE_LOG: log, GIT_CONFIG_NOSYSTEM: "1" },
      encoding: "utf8",
    });
    if (run.status === null) throw new Error(`taskgate ${args.join(" ")}: ${run.error?.message ?? run.signal}`);
    const urls = readFileSync(log, "utf8").split("\n").filter(Boolean);
    return { code: run.status, stdout: run.stdout, sources: [...new Set(urls.flatMap(sourcesOf))].sort() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A file of the bundle stands for the sources esbuild put in it; tsc's `dist/x.js` for `src/x.ts`. */
function sourcesOf(url: string): string[] {
  if (!url.startsWith("file:")) return []; // a Node.js builtin
  const path = fileURLToPath(url);
  const inside = relative(ROOT, path);
  if (inside.startsWith("..")) return [path]; // node_modules, wherever it lives
  if (!inside.startsWith("dist/")) return [inside];
  const outputs = bundleOutputs();
  if (outputs && isBundled(path)) {
    const output = outputs[inside];
    if (!output) throw new Error(`${inside} is not in dist/bundle/meta.json: run \`npm run build\` again`);
    return Object.entries(output.inputs)
      .filter(([input]) => !input.startsWith("taskgate-builtin:")) // a Node.js builtin, as the plugin names it
      .filter(([, input]) => input.bytesInOutput > 0) // a barrel's re-exports, or types only: no code of it runs
      .map(([input]) => input)
      .map((input) => (input.includes("node_modules/") ? `/${input}` : input));
  }
  return [inside.replace(/^dist\//, "src/").replace(/\.js$/, ".ts")];
}

function isBundled(path: string): boolean {
  return readFileSync(path, "utf8").startsWith("// taskgate's bundled CLI");
}

let outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }> | undefined | null = null;
function bundleOutputs() {
  if (outputs === null) {
    const meta = join(ROOT, "dist/bundle/meta.json");
    outputs = existsSync(meta) ? JSON.parse(readFileSync(meta, "utf8")).outputs : undefined;
  }
  return outputs;
}

const matching = (sources: readonly string[], prefixes: readonly string[]) =>
  sources.filter((source) => prefixes.some((prefix) => source === prefix || source.startsWith(prefix)));

describe("taskgate loads only what a command needs", () => {
  it("--version and --help load the entry alone", () => {
    for (const args of [["--version"], ["-v"], ["--help"], ["help"], []]) {
      const run = load(args);
      expect(run.code, args.join(" ")).toBe(args.length === 0 ? 2 : 0);
      expect(run.sources, args.join(" ")).toEqual([...ENTRY].sort());
    }
  });

  it("a usage error loads the redactor besides the entry, and nothing of the core", () => {
    for (const args of [["frobnicate"], ["check", "--frobnicate"], ["audit", "--base", "main"]]) {
      const run = load(args);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.sources, args.join(" ")).toEqual([...ENTRY, "src/core/kernel/secrets.ts"].sort());
    }
  });

  it("check on a phases repository loads neither the board preset, the authoring commands, the hook nor PR.json's schema", () => {
    const run = load(["check", "--base", "main", "--head", "change"], phases.dir);
    expect(run.stdout).toContain("taskgate check main...change");
    expect(run.sources).toContain("src/core/phases/model.ts");
    expect(run.sources).toContain("src/core/service.ts");
    expect(matching(run.sources, [...BOARD, ...AUTHORING, "src/cli/hook.ts", "src/cli/pr-file.ts"])).toEqual([]);
    expect(matching(run.sources, ["src/git/worktree.ts"])).toEqual([]);
    expect(matching(run.sources, SERVE)).toEqual([]);
  });

  it("check on a board loads no phases model, and audit of either preset no authoring", () => {
    const check = load(["check", "--base", "main", "--head", "change"], board.dir);
    expect(check.stdout).toContain("taskgate check main...change");
    expect(check.sources).toContain("src/core/board/model.ts");
    expect(matching(check.sources, [...PHASES_MODEL, ...AUTHORING, "src/cli/hook.ts"])).toEqual([]);
    for (const repo of [phases, board]) {
      const audit = load(["audit"], repo.dir);
      expect(audit.stdout).toContain("taskgate audit HEAD");
      expect(matching(audit.sources, [...AUTHORING, ...SERVE, "src/cli/hook.ts", "src/cli/pr-file.ts"])).toEqual([]);
    }
    expect(matching(load(["audit"], phases.dir).sources, BOARD)).toEqual([]);
  });

  it("hook install and an authoring command load no other command", () => {
    const hook = load(["hook", "--help"]);
    expect(hook.code).toBe(0);
    expect(matching(hook.sources, ["src/core/service.ts", ...AUTHORING])).toEqual([]);
    expect(hook.sources.filter((source) => LIBRARIES.test(source))).toEqual([]);
    const scope = load(["scope", "login-form"], phases.dir);
    expect(scope.code).toBe(0);
    expect(matching(scope.sources, ["src/cli/hook.ts", "src/cli/pr-file.ts"])).toEqual([]);
  });

  it("serve loads its pages and the board's reader, and no authoring module, preset model, hook nor PR.json's schema", () => {
    const serve = load(["serve", "--port", "70000"], phases.dir);
    expect(serve.code).toBe(2);
    expect(serve.sources).toContain("src/cli/serve.ts");
    expect(serve.sources).toContain("src/pages/repository.ts");
    expect(serve.sources).toContain("src/pages/data.ts");
    // The pages read a board with its reader alone, and a phases store with the model the config
    // loads when a page is asked for: no preset's model at start, and nothing that writes.
    expect(serve.sources).toContain("src/core/board/reader.ts");
    const models = ["src/core/board/model.ts", ...PHASES_MODEL, "src/core/evaluate.ts"];
    const writers = [...AUTHORING, "src/core/followups.ts", "src/cli/hook.ts", "src/cli/pr-file.ts"];
    expect(matching(serve.sources, [...models, ...writers])).toEqual([]);
  });

  it("the usage and the version print as the redactor would print them", async () => {
    for (const args of [["--help"], ["--version"]]) {
      const run = await runCli(args, ROOT);
      expect(run.stdout.length).toBeGreaterThan(0);
      expect(redactSecrets(run.stdout)).toBe(run.stdout);
    }
  });
});
