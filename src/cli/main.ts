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
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { allOptions, foreignOption, verbNamed, verbUsage, type CommandRun, type Verb } from "./commands.js";
import { EXIT, IdentityError, PrFileError, UsageError, printFailure, type CliIo } from "./io.js";

export { EXIT, type CliIo } from "./io.js";

const VERSION = "0.1.0";

const USAGE = `taskgate: enforce a task workflow kept in git

Usage:
${verbUsage()}
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
  const [command = "", ...rest] = argv;
  const verb = verbNamed(command);
  // Known before parsing, so a usage error is answered in JSON too.
  let json = verb?.ownArguments ? rest.includes("--json") : wantsJson(rest);
  try {
    if (verb?.ownArguments) return await (await verb.load())(commandRun(verb, {}, rest, io, false));
    const { values, positionals } = parseOptions(rest);
    if (values.help) {
      io.stdout(USAGE);
      return EXIT.ok;
    }
    json = outputFormat(values) === "json";
    if (!verb) throw new UsageError(`unknown command "${command}"`);
    const foreign = foreignOption(verb, values);
    if (foreign !== undefined) throw new UsageError(`--${foreign} does not apply to \`${command}\``);
    return await (
      await verb.load()
    )(commandRun(verb, values, positionals, io, json));
  } catch (error) {
    return await handleError(io, json, error);
  }
}

function wantsJson(args: readonly string[]): boolean {
  return (
    args.includes("--json") ||
    args.some((arg, index) => arg === "--format=json" || (arg === "--format" && args[index + 1] === "json"))
  );
}

/** `--json`, or the older `--format text|json`. */
function outputFormat(values: { json?: boolean; format?: string }): "text" | "json" {
  if (values.json && values.format !== undefined && values.format !== "json") {
    throw new UsageError(`--json and --format ${values.format} disagree`);
  }
  const format = values.json ? "json" : (values.format ?? "text");
  if (format !== "text" && format !== "json") throw new UsageError(`unknown --format "${format}"; use text or json`);
  return format;
}

function commandRun(
  verb: Verb,
  values: CommandRun["values"],
  positionals: readonly string[],
  io: CliIo,
  json: boolean,
): CommandRun {
  const repo = typeof values.repo === "string" ? values.repo : ".";
  const printJson = (value: unknown) => jsonWriters.get(io)!(value);
  return { verb, values, positionals, repoDir: resolve(io.cwd, repo), io, json, printJson };
}

function parseOptions(args: readonly string[]) {
  try {
    const parsed = parseArgs({ args: [...args], allowPositionals: true, strict: true, options: allOptions() });
    return parsed as {
      values: Record<string, string | boolean | undefined> & { help?: boolean; json?: boolean; format?: string };
      positionals: string[];
    };
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message.split("\n")[0]! : String(error));
  }
}

function fail(io: CliIo, json: boolean, message: string, hint: string): number {
  return printFailure({ io, json, printJson: (value) => jsonWriters.get(io)!(value) }, message, hint);
}

async function handleError(io: CliIo, json: boolean, error: unknown): Promise<number> {
  // Only a command that loaded the service can have thrown its ConfigError: the import is free then.
  if (error instanceof Error && error.name === "ConfigError") {
    const [{ ConfigError, configReport }, { formatReport, reportJson }] = await Promise.all([
      import("./use-cases.js"),
      import("./format.js"),
    ]);
    if (error instanceof ConfigError) {
      const report = configReport(error.issues, error.path);
      if (json) jsonWriters.get(io)!(reportJson(report));
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
