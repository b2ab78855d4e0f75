/**
 * The `taskgate` command line: argument parsing and printing over the git adapter and the core.
 * Exit codes: 0 success/neutral, 1 failure, 2 usage or config error, 3 action required.
 *
 * Start-up costs what the command needs and no more: this module imports only Node.js builtins,
 * `io.ts` and `commands.ts`, and each command imports the rest when it runs (`import()`). `--version`
 * and `--help` therefore cost about a bare Node.js start, and `check` loads neither the authoring
 * commands, the hook, nor PR.json's schema without `--pr` (and of the presets, the core loads the one
 * the config names). test/cli/lazy-load.test.ts fails when a static import brings the product back
 * into the start. `npm run build` bundles this file and what it imports (scripts/bundle-cli.mjs).
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { PrInput, RenderResult, Report } from "../core/index.js";
import type { WorkTree } from "../git/worktree.js";
import { AUTHORING_COMMANDS } from "./commands.js";
import { EXIT, IdentityError, PrFileError, UsageError, type CliIo } from "./io.js";

export { EXIT, type CliIo } from "./io.js";

const VERSION = "0.1.0";

const USAGE = `taskgate: enforce a task workflow kept in git

Usage:
  taskgate check   [--repo DIR] --base REF --head REF [--pr PR.json] [--json]
  taskgate audit   [--repo DIR] [--ref REF] [--json]
  taskgate explain [--repo DIR] [--ref REF] [--json] <task-id>
  taskgate render  [--repo DIR] [--check] [--json]

  phases preset:
  taskgate new      <task-id>                 create a task folder at \`new\`
  taskgate move     <task-id> <state>         move a task, when the workflow allows it
  taskgate can-edit <file> [--task <task-id>] may a task (or any task) change this file?
  taskgate scope    <task-id>                 what the task may edit now
  taskgate upgrade  [<task-id>...]            give folders without .state one, from their artifacts

  board preset:
  taskgate next     --role ROLE               the next task of a role that can be claimed
  taskgate list     [--role R] [--stage S] [--status X] [--query Q] [--limit N]
  taskgate claim    <task-id> [--agent A]
  taskgate packet   <task-id> [--output FILE] the task's context: definition, dependencies, scope
  taskgate submit   <task-id> --evidence FILE --handoff FILE [--agent A]
  taskgate escalate <task-id> --issue FILE --handoff FILE --resolver NEW-ID --definition FILE [--agent A]
  taskgate reassign <task-id> [--owner LOGIN] [--agent A]
  taskgate release-external <task-id>

  taskgate unlock   --reason TEXT             remove the lock of a process that is gone
  taskgate hook     install|uninstall [--force]   the git pre-commit hook that checks staged changes

Commands that write judge their change with the pull-request rules first: a change the check would
refuse is refused (exit 1) and nothing is written. They act as --as LOGIN, else $TASKGATE_LOGIN,
else \`git config github.user\`.

Options:
  --repo DIR       the git checkout (default: the current directory)
  --pr FILE        a simulated pull request: author, reviews, commits, permissions, teams
  --json           JSON output (on check, audit, explain, render: the same as --format json)
  --format FORMAT  text (default) or json
  --as LOGIN       the GitHub login the command acts for
  -h, --help       show this help
  -v, --version    show the version

Exit codes: 0 success or not configured, 1 violations or refused, 2 usage or config error,
3 approval pending (check, audit).
`;

/**
 * Runs the command line. Everything it prints passes the secret redactor: JSON values before they
 * are serialised (so the JSON stays valid), text as a whole. The usage and the version are this
 * file's own constant text, printed before the redactor loads (test/cli/lazy-load.test.ts checks
 * that it would leave them as they are).
 */
export async function main(argv: readonly string[], raw: CliIo): Promise<number> {
  const [command] = argv;
  if (command === undefined || command === "-h" || command === "--help" || command === "help") {
    raw.stdout(USAGE);
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  if (command === "-v" || command === "--version") {
    raw.stdout(`${VERSION}\n`);
    return EXIT.ok;
  }
  const { redactDeep, redactSecrets } = await import("./redact.js");
  const io: CliIo = {
    ...raw,
    stdout: (text) => raw.stdout(redactSecrets(text)),
    stderr: (text) => raw.stderr(redactSecrets(text)),
  };
  jsonWriters.set(io, (value) => raw.stdout(`${JSON.stringify(redactDeep(value), null, 2)}\n`));
  return run(argv, io);
}

/** JSON goes out redacted value by value, so a redaction never breaks the JSON. */
const jsonWriters = new WeakMap<CliIo, (value: unknown) => void>();

async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let json = false;
  try {
    const [command = "", ...rest] = argv;
    // `hook` parses its own options (install, uninstall, and the hook's own run).
    if (command === "hook") {
      json = rest.includes("--json");
      const { hookCommand } = await import("./hook.js");
      return await hookCommand(rest, io);
    }
    // Known before parsing, so a usage error is answered in JSON too.
    json =
      rest.includes("--json") ||
      rest.some((arg, index) => arg === "--format=json" || (arg === "--format" && rest[index + 1] === "json"));
    const { values, positionals } = parseOptions(rest);
    if (values.help) {
      io.stdout(USAGE);
      return EXIT.ok;
    }
    if (values.json && values.format !== undefined && values.format !== "json") {
      throw new UsageError(`--json and --format ${values.format} disagree`);
    }
    const format = values.json ? "json" : (values.format ?? "text");
    if (format !== "text" && format !== "json") throw new UsageError(`unknown --format "${format}"; use text or json`);
    json = format === "json";
    checkOptions(command, values);
    const repoDir = resolve(io.cwd, values.repo ?? ".");
    if (AUTHORING_COMMANDS.has(command)) {
      const { runAuthoring } = await import("./authoring.js");
      return await runAuthoring({
        command,
        values,
        positionals,
        repoDir,
        io,
        json,
        printJson: (value) => printJson(io, value),
      });
    }
    switch (command) {
      case "check": {
        if (!values.base || !values.head) throw new UsageError("check needs --base REF and --head REF");
        if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
        const pr = values.pr ? await readPrFile(resolve(io.cwd, values.pr)) : undefined;
        const [{ checkPullRequest }, repo] = await Promise.all([import("./use-cases.js"), openRepository(repoDir)]);
        const report = await checkPullRequest(repo, { base: values.base, head: values.head, ...(pr && { pr }) });
        return await printReport(io, report, json, `check ${values.base}...${values.head}`);
      }
      case "audit": {
        if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
        const [{ auditRevision }, repo] = await Promise.all([import("./use-cases.js"), openRepository(repoDir)]);
        const report = await auditRevision(repo, values.ref ?? "HEAD");
        return await printReport(io, report, json, `audit ${values.ref ?? "HEAD"}`);
      }
      case "explain": {
        if (positionals.length !== 1) throw new UsageError("explain needs exactly one task id");
        const id = positionals[0]!;
        const [{ explainTask }, repo] = await Promise.all([import("./use-cases.js"), openRepository(repoDir)]);
        const result = await explainTask(repo, values.ref ?? "HEAD", id);
        if (!result.found) {
          const hint = !result.configured
            ? "Add .github/taskgate.yml (for example `preset: phases`)."
            : result.known.length > 0
              ? `Known tasks: ${result.known.slice(0, 10).join(", ")}${result.known.length > 10 ? ", …" : ""}.`
              : "The repository has no tasks yet.";
          return fail(
            io,
            json,
            `${result.configured ? `no task "${id}"` : "taskgate is not configured"} at ${values.ref ?? "HEAD"}`,
            hint,
          );
        }
        const [{ redactDeep }, { formatExplanation }] = await Promise.all([
          import("./redact.js"),
          import("./format.js"),
        ]);
        const explanation = redactDeep(result.explanation);
        if (json) printJson(io, explanation);
        else io.stdout(formatExplanation(explanation));
        return result.explanation.problems.length > 0 ? EXIT.failure : EXIT.ok;
      }
      case "render": {
        if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
        const [{ renderStatus }, { WorkTree }, repo] = await Promise.all([
          import("./use-cases.js"),
          import("../git/worktree.js"),
          openRepository(repoDir),
        ]);
        const tree = new WorkTree(await repo.workTreeRoot());
        const result = await renderStatus(tree, "work tree");
        if (!result)
          return fail(
            io,
            json,
            "taskgate is not configured here",
            "Add .github/taskgate.yml (for example `preset: board`).",
          );
        return values.check ? printStale(io, json, result) : await writeRendered(io, json, tree, result);
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    return await handleError(io, json, error);
  }
}

/** Opens the checkout with the git adapter, loaded by the commands that read one. */
async function openRepository(dir: string) {
  const { GitRepository } = await import("../git/repository.js");
  return GitRepository.open(dir);
}

function parseOptions(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        repo: { type: "string" },
        base: { type: "string" },
        head: { type: "string" },
        ref: { type: "string" },
        pr: { type: "string" },
        check: { type: "boolean" },
        format: { type: "string" },
        json: { type: "boolean" },
        as: { type: "string" },
        agent: { type: "string" },
        role: { type: "string" },
        stage: { type: "string" },
        status: { type: "string" },
        query: { type: "string" },
        limit: { type: "string" },
        output: { type: "string" },
        evidence: { type: "string" },
        handoff: { type: "string" },
        issue: { type: "string" },
        resolver: { type: "string" },
        definition: { type: "string" },
        task: { type: "string" },
        owner: { type: "string" },
        reason: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.split("\n")[0]! : String(error));
  }
}

/** The options each command takes besides --repo, --json, --format and --help. */
const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  check: ["base", "head", "pr"],
  audit: ["ref"],
  explain: ["ref"],
  render: ["check"],
  new: ["as"],
  move: ["as"],
  upgrade: ["as"],
  "can-edit": ["task"],
  scope: [],
  next: ["role"],
  list: ["role", "stage", "status", "query", "limit"],
  claim: ["as", "agent"],
  packet: ["output"],
  submit: ["as", "agent", "evidence", "handoff"],
  escalate: ["as", "agent", "issue", "handoff", "resolver", "definition"],
  reassign: ["as", "agent", "owner"],
  "release-external": ["as"],
  unlock: ["reason"],
};
const COMMON_OPTIONS = new Set(["repo", "json", "format", "help"]);

function checkOptions(command: string, values: Record<string, unknown>): void {
  const allowed = COMMAND_OPTIONS[command];
  if (!allowed) throw new UsageError(`unknown command "${command}"`);
  for (const [option, value] of Object.entries(values)) {
    if (value === undefined || COMMON_OPTIONS.has(option) || allowed.includes(option)) continue;
    throw new UsageError(`--${option} does not apply to \`${command}\``);
  }
}

async function readPrFile(path: string): Promise<PrInput> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PrFileError(
      `cannot read ${path}${code ? ` (${code})` : ""}`,
      "Pass --pr with the path of a JSON file describing the pull request.",
    );
  }
  const { parsePrFile } = await import("./pr-file.js");
  return parsePrFile(text, path);
}

async function printReport(io: CliIo, report: Report, json: boolean, title: string): Promise<number> {
  if (json) printJson(io, toJson(report));
  else io.stdout((await import("./format.js")).formatReport(report, title));
  switch (report.conclusion) {
    case "failure":
      return EXIT.failure;
    case "action_required":
      return EXIT.actionRequired;
    default:
      return EXIT.ok;
  }
}

/** The JSON contract of the CLI: exactly these keys. */
function toJson(report: Report) {
  return {
    conclusion: report.conclusion,
    violations: report.violations,
    pending: report.pending,
    transitions: report.transitions,
    records: report.records.map(({ task, from, to, by, kind }) => ({ task, from, to, by, kind })),
  };
}

function printStale(io: CliIo, json: boolean, result: RenderResult): number {
  const outdated = [...result.stale, ...result.extra];
  if (json) printJson(io, { stale: result.stale, extra: result.extra });
  else if (outdated.length === 0)
    io.stdout(`taskgate render: ${result.files.size} file(s) under ${result.root}/ are up to date\n`);
  else {
    for (const path of result.stale) io.stdout(`${path}: matrix-stale: out of date\n`);
    for (const path of result.extra) io.stdout(`${path}: matrix-stale: belongs to no task any more\n`);
    io.stdout(`${outdated.length} rendered file(s) are stale; run \`taskgate render\` and commit the result\n`);
  }
  return outdated.length > 0 ? EXIT.failure : EXIT.ok;
}

async function writeRendered(io: CliIo, json: boolean, tree: WorkTree, result: RenderResult): Promise<number> {
  for (const path of result.stale) await tree.writeAtomic(path, result.files.get(path)!);
  for (const path of result.extra) await tree.remove(path);
  if (json) printJson(io, { written: result.stale, removed: result.extra });
  else {
    io.stdout(
      `taskgate render: wrote ${result.stale.length} and removed ${result.extra.length} file(s) under ${result.root}/ ` +
        `(${result.files.size - result.stale.length} already up to date)\n`,
    );
  }
  return EXIT.ok;
}

function printJson(io: CliIo, value: unknown): void {
  jsonWriters.get(io)!(value);
}

function fail(io: CliIo, json: boolean, message: string, hint: string): number {
  if (json) printJson(io, { error: { message, hint } });
  else io.stderr(`taskgate: ${message}\n  hint: ${hint}\n`);
  return EXIT.usage;
}

async function handleError(io: CliIo, json: boolean, error: unknown): Promise<number> {
  // Only a command that loaded the service can have thrown its ConfigError: the import is free then.
  if (error instanceof Error && error.name === "ConfigError") {
    const [{ ConfigError }, { configReport }, { formatReport }] = await Promise.all([
      import("./use-cases.js"),
      import("./use-cases.js"),
      import("./format.js"),
    ]);
    if (error instanceof ConfigError) {
      const report = configReport(error.issues, error.path);
      if (json) printJson(io, toJson(report));
      else io.stderr(formatReport(report, `configuration ${error.path}`));
      return EXIT.usage;
    }
  }
  if (error instanceof UsageError) {
    if (json) return fail(io, json, error.message, "Run `taskgate --help` for usage.");
    io.stderr(`taskgate: ${error.message}\n  hint: run \`taskgate --help\` for usage\n`);
    return EXIT.usage;
  }
  if (error instanceof IdentityError) return fail(io, json, error.message, error.hint);
  const { RefNotFoundError, RepositoryError } = await import("./failures.js");
  if (error instanceof RefNotFoundError || error instanceof RepositoryError || error instanceof PrFileError) {
    return fail(io, json, error.message, error.hint);
  }
  const message = error instanceof Error ? error.message : String(error);
  if (io.env?.TASKGATE_DEBUG && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
  return fail(
    io,
    json,
    `unexpected error: ${message}`,
    "Re-run with TASKGATE_DEBUG=1 for details, and report it if it persists.",
  );
}
