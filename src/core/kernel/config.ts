/**
 * `.github/taskgate.yml`: the zod schema (the single source of the config's types and of the JSON
 * Schema for editors) and a parser whose every error names the key path and the line.
 */
import { DEFAULT_MAX_FILE_BYTES } from "./files.js";
import * as z from "zod";
import { LineCounter, isNode, parseDocument, type Document } from "yaml";
import { MAX_NESTING, nestingMessage } from "./json.js";

export { CONFIG_PATH } from "./config-path.js";

export const PERMISSIONS = ["read", "triage", "write", "maintain", "admin"] as const;

const Principal = z
  .string()
  .min(1)
  .describe("A GitHub login, a team as @org/team-slug, or role:NAME for a role of `roles`.");

const ApprovalRule = z.strictObject({
  approvers: z
    .array(Principal)
    .default([])
    .describe("Who may approve: logins, @org/team, role:NAME. Empty: anyone with min_permission."),
  min_permission: z
    .enum(PERMISSIONS)
    .default("write")
    .describe("The least repository permission an approver must hold."),
  count: z.number().int().min(1).max(20).default(1).describe("How many eligible approvals a gate needs."),
  invalidate_on_push: z
    .boolean()
    .default(true)
    .describe("A later non-bot commit that touches the task's files makes an earlier approval stale."),
  allow_author: z.boolean().default(false).describe("May the PR's author approve it?"),
  allow_contributor: z
    .boolean()
    .default(false)
    .describe("May someone who pushed non-bot commits to the PR approve it?"),
});

/** Per-gate overrides: any key of the approval rule, for one gate phase (e.g. `research`). */
const GateOverride = z.strictObject({
  approvers: z.array(Principal).optional(),
  min_permission: z.enum(PERMISSIONS).optional(),
  count: z.number().int().min(1).max(20).optional(),
  invalidate_on_push: z.boolean().optional(),
  allow_author: z.boolean().optional(),
  allow_contributor: z.boolean().optional(),
});

const Approvals = ApprovalRule.extend({
  gates: z
    .record(z.string(), GateOverride)
    .default({})
    .describe(
      "Overrides per gate, keyed by the phase being approved (research, design, human_intervention, ...); `adopted` is the adoption of work in flight.",
    ),
});

/** A path inside the repository: relative, no `.`/`..` segments, forward slashes. */
const RepoPath = z
  .string()
  .min(1)
  .refine(
    (path) =>
      !path.startsWith("/") && !path.includes("\\") && path.split("/").every((part) => part !== ".." && part !== "."),
    "a relative path inside the repository (no leading /, no . or .. segments)",
  );

/**
 * The `workflow` key, built on first use (a config that names it): most configs do not, and its
 * schema is the larger half of the config's.
 */
function buildWorkflowOverride() {
  const StateName = z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_:.-]*$/, "a state name: letters, digits, _ : . -");
  const EditScope = z.enum(["task", "project"]);

  const StateOverride = z.union([
    z.null().describe("Remove the state."),
    z.strictObject({
      phase: z.string().optional().describe("The phase this state belongs to (its artifact)."),
      awaiting: z.boolean().optional().describe("The author stops here; the bot writes the next state after approval."),
      edit: z.array(EditScope).optional().describe("What a task in this state may edit: its folder, project files."),
      terminal: z.boolean().optional(),
    }),
  ]);

  const Edge = z.strictObject({
    from: StateName,
    to: StateName,
    gate: z.boolean().optional().describe("The edge needs an approving review."),
    verdict: z.enum(["pass", "not-pass"]).optional().describe("The edge needs the verdict file to (not) say PASS."),
  });

  return z
    .strictObject({
      tasks_dir: RepoPath.optional().describe("Folder that holds one folder per task. Default: tasks."),
      initial: StateName.optional(),
      states: z.record(StateName, StateOverride).optional(),
      phases: z
        .record(z.string(), z.union([z.null(), z.strictObject({ artifact: z.string().min(1).nullable().optional() })]))
        .optional()
        .describe("Phase → the artifact file produced in it (null: none)."),
      transitions: z.array(Edge).optional().describe("Edges to add (or to change, matched by from/to)."),
      remove_transitions: z.array(z.strictObject({ from: StateName, to: StateName })).optional(),
      verdict: z
        .strictObject({
          phase: z.string().optional(),
          file: z.string().optional(),
          pass: z.string().optional(),
          fail: z.array(z.string()).optional(),
        })
        .optional(),
    })
    .describe("Extend or override the preset's workflow.");
}

let workflowOverride: ReturnType<typeof buildWorkflowOverride> | undefined;
const WorkflowOverride = z.lazy(() => (workflowOverride ??= buildWorkflowOverride()));

const BoardOptions = z
  .strictObject({
    definitions: RepoPath.default("planning/tasks.json").describe("Task definitions (ids are never reused)."),
    ledger: RepoPath.default("state/tasks.json").describe("Status, owner and history of each task."),
    evidence_dir: RepoPath.default("state/evidence"),
    handoffs_dir: RepoPath.default("state/handoffs"),
    issues_dir: RepoPath.default("state/issues"),
    coordinator_role: z
      .string()
      .min(1)
      .default("coordinator")
      .describe("The role (of `roles`) whose approval releases an external resolver."),
  })
  .describe("Where the board keeps its files.");

export const BOARD_DEFAULTS = BoardOptions.parse({});

/** Where status files are rendered unless `render.path` says otherwise. */
export const DEFAULT_RENDER_PATH = "docs/status";

export const ConfigSchema = z
  .strictObject({
    $schema: z.string().optional(),
    preset: z.enum(["phases", "board"]).describe("The workflow model."),
    roles: z
      .record(z.string(), z.array(Principal))
      .default({})
      .describe("Role → GitHub logins and teams (@org/team-slug)."),
    approvals: Approvals.default(Approvals.parse({})),
    render: z
      .strictObject({
        path: RepoPath.default(DEFAULT_RENDER_PATH).describe("Where matrices, cards and stages are written."),
        commit: z.enum(["pr", "default-branch", "off"]).default("pr"),
      })
      .default({ path: DEFAULT_RENDER_PATH, commit: "pr" }),
    bot: z
      .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
      .default("taskgate[bot]")
      .describe(
        "The GitHub login whose verified commits are the bot's: taskgate[bot] for the app, github-actions[bot] for the Action under GITHUB_TOKEN, or a list of both.",
      ),
    maintainers: z.array(Principal).default([]).describe("May change framework files in PRs that touch no task."),
    require_task: z.boolean().default(true).describe("A PR that changes files must touch a task (task-missing)."),
    framework_paths: z
      .array(z.string().min(1))
      .default([])
      .describe("Extra globs of framework files, never editable from a task PR."),
    limits: z
      .strictObject({
        max_file_bytes: z.number().int().min(1).default(DEFAULT_MAX_FILE_BYTES).describe("Larger files are not read."),
        max_ledger_bytes: z
          .number()
          .int()
          .min(1)
          .default(67108864)
          .describe("The limit for a board's definitions and ledger, which hold every task."),
      })
      .default({ max_file_bytes: DEFAULT_MAX_FILE_BYTES, max_ledger_bytes: 67108864 }),
    workflow: WorkflowOverride.optional(),
    board: BoardOptions.default(BOARD_DEFAULTS),
  })
  .describe("taskgate configuration (.github/taskgate.yml)");

export type Config = z.infer<typeof ConfigSchema>;
export type ApprovalRuleConfig = z.infer<typeof ApprovalRule>;
export type WorkflowOverrideConfig = z.infer<ReturnType<typeof buildWorkflowOverride>>;
export type BoardConfig = z.infer<typeof BoardOptions>;

export interface ConfigIssue {
  readonly path: string;
  readonly line?: number;
  readonly message: string;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; issues: ConfigIssue[] };

/** Parses and validates the YAML text of a config. Never throws. */
export function parseConfig(text: string): ConfigResult {
  const deep = yamlTooDeep(text);
  if (deep) return { ok: false, issues: [{ path: "", line: deep.line, message: `the YAML is ${nestingMessage()}` }] };
  try {
    return parseConfigText(text);
  } catch (error) {
    // A parser that still runs out of stack is a refusal with a reason, never a crash.
    const reason = error instanceof RangeError ? nestingMessage() : firstLine(String(error));
    return { ok: false, issues: [{ path: "", message: `cannot parse the YAML: ${reason}` }] };
  }
}

/**
 * Where a YAML text first nests deeper than `max` levels, counting indentation steps, `- ` entries
 * and flow brackets (an upper bound: quoted text is skipped, plain text is not). Linear, no recursion.
 */
export function yamlTooDeep(text: string, max = MAX_NESTING): { line: number } | undefined {
  const indents: number[] = [];
  const lines = text.split("\n");
  let flow = 0;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const indent = line.length - line.trimStart().length;
    const rest = line.slice(indent);
    if (rest === "" || rest.startsWith("#")) continue;
    if (flow === 0) {
      while (indents.length > 0 && indents.at(-1)! >= indent) indents.pop();
      indents.push(indent);
    }
    const dashes = /^(?:-[ \t]+)*/.exec(rest)![0].split("-").length - 1;
    let quote = "";
    let deepest = flow;
    for (const char of rest) {
      if (quote) {
        if (char === quote) quote = "";
      } else if (char === '"' || char === "'") quote = char;
      else if (char === "#") break;
      else if (char === "[" || char === "{") deepest = Math.max(deepest, ++flow);
      else if ((char === "]" || char === "}") && flow > 0) flow--;
    }
    if (indents.length + dashes + deepest > max) return { line: index + 1 };
  }
  return undefined;
}

function parseConfigText(text: string): ConfigResult {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((error) => ({
        path: "",
        line: lineCounter.linePos(error.pos[0]).line,
        message: `YAML syntax: ${firstLine(error.message)}`,
      })),
    };
  }
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  if (value === null || value === undefined) {
    return {
      ok: false,
      issues: [{ path: "", line: 1, message: "the file is empty; write at least `preset: phases`" }],
    };
  }
  const parsed = ConfigSchema.safeParse(value);
  if (parsed.success) return { ok: true, config: parsed.data };
  return {
    ok: false,
    issues: parsed.error.issues.map((issue) => {
      const keyPath = issue.path.map(String);
      // For an unknown key, point at the key itself rather than at its parent.
      const nodePath = [...issue.path, ...(issue.code === "unrecognized_keys" ? issue.keys.slice(0, 1) : [])];
      const line = lineOf(doc, lineCounter, nodePath as (string | number)[]);
      return {
        path: keyPath.join(".") || "(root)",
        ...(line !== undefined && { line }),
        message: describeIssue(issue),
      };
    }),
  };
}

/** Adds lines to issues found after parsing (an unsound workflow), from their key paths. */
export function locateIssues(text: string, issues: readonly ConfigIssue[]): ConfigIssue[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  return issues.map((issue) => {
    if (issue.line !== undefined || !issue.path) return issue;
    const path = issue.path.split(".").map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    const line = lineOf(doc, lineCounter, path);
    return line === undefined ? issue : { ...issue, line };
  });
}

/** The config a repository gets from `preset: NAME` alone. */
export function defaultConfig(preset: Config["preset"]): Config {
  return ConfigSchema.parse({ preset });
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys")
    return `unknown key${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}`;
  if (issue.code === "invalid_value") return `${issue.message}`;
  return issue.message;
}

/** The line of the deepest YAML node that exists on the issue's path. */
function lineOf(doc: Document.Parsed, counter: LineCounter, path: (string | number)[]): number | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) {
      // For a key path, point at the key's line rather than the value's when possible.
      return counter.linePos(node.range[0]).line;
    }
  }
  return undefined;
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}

/** The bot's logins (a config may name the app's and the Action's). */
export function botLogins(config: Config): string[] {
  return Array.isArray(config.bot) ? config.bot : [config.bot];
}

/** The bot login taskgate writes into records it makes itself (the first one named). */
export function botName(config: Config): string {
  return botLogins(config)[0]!;
}

/** The read limits a config sets: one for every file, a larger one for a board's own files. */
export function readLimits(config: Config): { maxFileBytes: number; perPath: Record<string, number> } {
  const perPath: Record<string, number> = {};
  if (config.preset === "board") {
    perPath[config.board.definitions] = config.limits.max_ledger_bytes;
    perPath[config.board.ledger] = config.limits.max_ledger_bytes;
  }
  // The rendered files that list every task grow with the store as the ledger does: a board or a
  // tasks folder past about 12,000 tasks renders a matrix above 1 MiB, which must still be read to
  // tell whether it is current.
  const root = renderRootOf(config);
  for (const name of ["matrix.md", "stages.md"]) perPath[`${root}/${name}`] = config.limits.max_ledger_bytes;
  return { maxFileBytes: config.limits.max_file_bytes, perPath };
}

/** The folder rendered status files go to, without trailing slashes. */
export function renderRootOf(config: Config): string {
  return config.render.path.replace(/^\/+|\/+$/g, "");
}
