/**
 * The verbs of the command line, each declared once: its name, the preset it belongs to, the options
 * it takes with their types, its line of `--help`, and its handler, loaded with `import()` when the
 * verb runs. The routing, the parsing of options, the refusal of a verb of the other preset, the
 * usage text and the answer to an unknown command all come from this table. Adding a verb is one
 * entry here and one handler.
 *
 * This module is part of the CLI's entry (`--version` and `--help` load it): it imports no handler
 * statically, and no handler module imports another verb's.
 */
import type { CliIo } from "./io.js";

export type Preset = "phases" | "board";
export type OptionType = "string" | "boolean";

/** What a handler gets: the parsed command line and where to print. */
export interface CommandRun {
  readonly verb: Verb;
  /** The options given (those of the verb, and the common ones). */
  readonly values: OptionValues;
  readonly positionals: readonly string[];
  /** `--repo`, resolved against the current directory. */
  readonly repoDir: string;
  readonly io: CliIo;
  readonly json: boolean;
  /** Prints a JSON value (redacted value by value). */
  readonly printJson: (value: unknown) => void;
  /** The clock, for history entries. */
  readonly now?: () => Date;
}

export type OptionValues = Readonly<Record<string, string | boolean | undefined>>;
export type Handler = (run: CommandRun) => Promise<number>;

export interface Verb {
  readonly name: string;
  /** A verb of one preset is refused in a repository of the other. */
  readonly preset?: Preset;
  /** The options it takes besides `--repo`, `--json`, `--format` and `--help`. */
  readonly options: Readonly<Record<string, OptionType>>;
  /** Its line of `--help`, after `taskgate `. */
  readonly usage: string;
  /** `hook` parses its own arguments (install, uninstall, and the hook's own run). */
  readonly ownArguments?: boolean;
  readonly load: () => Promise<Handler>;
}

/** The options every verb takes. */
export const COMMON_OPTIONS: Readonly<Record<string, OptionType>> = {
  repo: "string",
  json: "boolean",
  format: "string",
  help: "boolean",
};

const reading = () => import("./reading.js");
const phases = () => import("./phases.js");
const board = () => import("./board.js");

/** Every verb, in the order of `--help`; a change of preset starts a section of the help. */
export const VERBS: readonly Verb[] = [
  {
    name: "check",
    options: { base: "string", head: "string", pr: "string" },
    usage: "check   [--repo DIR] --base REF --head REF [--pr PR.json] [--json]",
    load: async () => (await reading()).check,
  },
  {
    name: "audit",
    options: { ref: "string" },
    usage: "audit   [--repo DIR] [--ref REF] [--json]",
    load: async () => (await reading()).audit,
  },
  {
    name: "explain",
    options: { ref: "string" },
    usage: "explain [--repo DIR] [--ref REF] [--json] <task-id>",
    load: async () => (await reading()).explain,
  },
  {
    name: "render",
    options: { check: "boolean" },
    usage: "render  [--repo DIR] [--check] [--json]",
    load: async () => (await reading()).render,
  },
  {
    name: "serve",
    options: { port: "string", pr: "string" },
    usage: "serve   [--repo DIR] [--port N] [--pr PR.json]   the pages on http://127.0.0.1:N/",
    load: async () => (await import("./serve.js")).serve,
  },
  {
    name: "new",
    preset: "phases",
    options: { as: "string" },
    usage: "new      <task-id>                 create a task folder at `new`",
    load: async () => (await phases()).newCommand,
  },
  {
    name: "move",
    preset: "phases",
    options: { as: "string" },
    usage: "move     <task-id> <state>         move a task, when the workflow allows it",
    load: async () => (await phases()).move,
  },
  {
    name: "scope",
    preset: "phases",
    options: {},
    usage: "scope    <task-id>                 what the task may edit now",
    load: async () => (await phases()).scope,
  },
  {
    name: "upgrade",
    preset: "phases",
    options: { as: "string" },
    usage: "upgrade  [<task-id>...]            give folders without .state one, from their artifacts",
    load: async () => (await phases()).upgrade,
  },
  {
    name: "next",
    preset: "board",
    options: { role: "string" },
    usage: "next     --role ROLE               the next task of a role that can be claimed",
    load: async () => (await board()).next,
  },
  {
    name: "list",
    preset: "board",
    options: { role: "string", stage: "string", status: "string", query: "string", limit: "string" },
    usage: "list     [--role R] [--stage S] [--status X] [--query Q] [--limit N]",
    load: async () => (await board()).list,
  },
  {
    name: "claim",
    preset: "board",
    options: { as: "string", agent: "string" },
    usage: "claim    <task-id> [--agent A]",
    load: async () => (await board()).claim,
  },
  {
    name: "packet",
    preset: "board",
    options: { output: "string" },
    usage: "packet   <task-id> [--output FILE] the task's context: definition, dependencies, scope",
    load: async () => (await board()).packet,
  },
  {
    name: "submit",
    preset: "board",
    options: { as: "string", agent: "string", evidence: "string", handoff: "string" },
    usage: "submit   <task-id> --evidence FILE --handoff FILE [--agent A]",
    load: async () => (await board()).submit,
  },
  {
    name: "escalate",
    preset: "board",
    options: {
      as: "string",
      agent: "string",
      issue: "string",
      handoff: "string",
      resolver: "string",
      definition: "string",
    },
    usage: "escalate <task-id> --issue FILE --handoff FILE --resolver NEW-ID --definition FILE [--agent A]",
    load: async () => (await board()).escalate,
  },
  {
    name: "reassign",
    preset: "board",
    options: { as: "string", agent: "string", owner: "string" },
    usage: "reassign <task-id> [--owner LOGIN] [--agent A]",
    load: async () => (await board()).reassign,
  },
  {
    name: "release-external",
    preset: "board",
    options: { as: "string" },
    usage: "release-external <task-id>",
    load: async () => (await board()).releaseExternal,
  },
  {
    name: "can-edit",
    options: { task: "string", agent: "string", as: "string" },
    usage: "can-edit <file> [--task ID] [--agent A]  may the acting task change this file? (both presets)",
    load: async () => (await import("./agent-guard.js")).canEditCommand,
  },
  {
    name: "agent",
    options: {},
    ownArguments: true,
    usage: "agent    install|uninstall|hook claude-code|opencode, serve|stop   guard edits in coding agents",
    load: async () => (await import("./agent.js")).agentCommand,
  },
  {
    name: "unlock",
    options: { reason: "string" },
    usage: "unlock   --reason TEXT             remove the lock of a process that is gone",
    load: async () => (await import("./authoring.js")).unlockCommand,
  },
  {
    name: "hook",
    options: {},
    ownArguments: true,
    usage: "hook     install|uninstall [--force]   the git pre-commit hook that checks staged changes",
    load: async () => (await import("./hook.js")).hookCommand,
  },
];

const BY_NAME = new Map(VERBS.map((verb) => [verb.name, verb]));

/** The verb of this name, or `undefined`. */
export function verbNamed(name: string): Verb | undefined {
  return BY_NAME.get(name);
}

/** Every option any verb takes, with its type: what the parser accepts before the verb judges it. */
export function allOptions(): Record<string, { type: OptionType; short?: string }> {
  const options: Record<string, { type: OptionType; short?: string }> = {};
  for (const verb of VERBS) for (const [name, type] of Object.entries(verb.options)) options[name] = { type };
  for (const [name, type] of Object.entries(COMMON_OPTIONS)) options[name] = { type };
  options.help = { type: "boolean", short: "h" };
  return options;
}

/** The option of `values` this verb does not take, if any. */
export function foreignOption(verb: Verb, values: OptionValues): string | undefined {
  return Object.keys(values).find(
    (option) => values[option] !== undefined && !(option in COMMON_OPTIONS) && !(option in verb.options),
  );
}

/** Why a verb of one preset does not run in a repository of another, or `undefined` when it runs. */
export function presetRefusal(verb: Verb, preset: string): string | undefined {
  if (verb.preset === undefined || verb.preset === preset) return undefined;
  return `\`${verb.name}\` is a command of the ${verb.preset} preset; this repository uses the ${preset} preset`;
}

/** The verbs' lines of `--help`: sections by preset, each preset's with its heading. */
export function verbUsage(): string {
  const lines: string[] = [];
  let section: Preset | undefined | null = null;
  for (const verb of VERBS) {
    if (section !== null && verb.preset !== section) lines.push("");
    if (verb.preset !== section && verb.preset !== undefined) lines.push(`  ${verb.preset} preset:`);
    section = verb.preset;
    lines.push(`  taskgate ${verb.usage}`);
  }
  return `${lines.join("\n")}\n`;
}
