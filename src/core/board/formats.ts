/**
 * The `board` files as zod schemas: task definitions (`planning/tasks.json`) and the ledger of
 * status, owner and history (`state/tasks.json`). These schemas are the single source of the types
 * and of the JSON Schemas in docs/.
 */
import * as z from "zod";

export const STATUSES = ["todo", "in_progress", "review", "done", "blocked"] as const;
export type Status = (typeof STATUSES)[number];

export const ACTIONS = ["claim", "submit", "approve", "reject", "escalate", "unblock", "release", "reassign"] as const;
export type Action = (typeof ACTIONS)[number];

/** A task id: letters, digits, . _ -, starting with a letter or digit, never containing "..". */
const TASK_ID = /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The schemas, built on first use: reading a board of canonical items (what taskgate writes) never
 * needs them, and building them costs every command that loads this module.
 */
function buildSchemas() {
  const TaskIdSchema = z
    .string()
    .regex(TASK_ID, "a task id: letters, digits, . _ -, starting with a letter or digit, never containing ..");

  const DefinitionSchema = z.looseObject({
    id: TaskIdSchema,
    title: z.string().min(1),
    role: z.string().min(1).describe("The role whose members execute the task."),
    stage: z.string().min(1).describe("A milestone or stage the task belongs to."),
    reviewer_role: z.string().min(1).describe("The role whose members may approve the task."),
    depends_on: z.array(TaskIdSchema).default([]),
    paths: z.array(z.string().min(1)).default([]).describe("Globs of the files the task may change."),
    outcome: z.string().default(""),
    steps: z.array(z.string()).default([]),
    checks: z.array(z.string()).default([]),
    external: z.boolean().default(false).describe("Resolved outside the team; released by the coordinator."),
  });

  const DefinitionsSchema = z
    .looseObject({ tasks: z.array(DefinitionSchema) })
    .describe("taskgate board: task definitions (planning/tasks.json)");

  const HistoryEntrySchema = z.looseObject({
    at: z.string().min(1),
    by: z.string().min(1),
    action: z.enum(ACTIONS),
    from: z.enum(STATUSES),
    to: z.enum(STATUSES),
    note: z.string().nullable().optional(),
    evidence: z.string().nullable().optional(),
    handoff: z.string().nullable().optional(),
  });

  const LedgerEntrySchema = z.looseObject({
    status: z.enum(STATUSES),
    owner: z.string().min(1).nullable().default(null),
    external_wait: z.boolean().default(false),
    blocked_by: z
      .preprocess(
        // A ledger written by hand may say `null` or name one resolver as a string.
        (value) => (value === null ? [] : typeof value === "string" ? [value] : value),
        z.array(TaskIdSchema).default([]),
      )
      .describe("The resolver tasks this task waits for (a list; null and a single id are read as [] and [id])."),
    history: z.array(HistoryEntrySchema).default([]),
  });

  const LedgerSchema = z
    .looseObject({
      revision: z.number().int().min(0),
      tasks: z.record(TaskIdSchema, LedgerEntrySchema),
    })
    .describe("taskgate board: task status, owner and history (state/tasks.json)");
  return { TaskIdSchema, DefinitionSchema, DefinitionsSchema, HistoryEntrySchema, LedgerEntrySchema, LedgerSchema };
}

type Schemas = ReturnType<typeof buildSchemas>;
let built: Schemas | undefined;

/** The board's zod schemas (the source of its types and of the JSON Schemas in docs/). */
export function boardSchemas(): Schemas {
  return (built ??= buildSchemas());
}

export type Definition = z.infer<Schemas["DefinitionSchema"]>;
export type HistoryEntry = z.infer<Schemas["HistoryEntrySchema"]>;
export type LedgerEntry = z.infer<Schemas["LedgerEntrySchema"]>;
export type Ledger = z.infer<Schemas["LedgerSchema"]>;

/** A task that has a definition but no ledger entry yet is `todo`, unowned, with no history. */
export function implicitEntry(): LedgerEntry {
  return { status: "todo", owner: null, external_wait: false, blocked_by: [], history: [] };
}

/** The edges of the board and the action each must be recorded with. */
export const BOARD_EDGES: readonly { from: Status; to: Status; action: Action; bot?: boolean }[] = [
  { from: "todo", to: "in_progress", action: "claim" },
  { from: "in_progress", to: "review", action: "submit" },
  { from: "review", to: "done", action: "approve", bot: true },
  { from: "review", to: "todo", action: "reject", bot: true },
  { from: "in_progress", to: "blocked", action: "escalate" },
  { from: "blocked", to: "todo", action: "unblock", bot: true },
  { from: "blocked", to: "review", action: "unblock", bot: true },
  { from: "blocked", to: "todo", action: "release" },
  { from: "in_progress", to: "in_progress", action: "reassign" },
];

export function edgeFor(from: Status, to: Status, action: Action) {
  // A loop rather than `find`: called for every history entry of a ledger, it makes no closure.
  for (let index = 0; index < BOARD_EDGES.length; index++) {
    const edge = BOARD_EDGES[index]!;
    if (edge.from === from && edge.to === to && edge.action === action) return edge;
  }
  return undefined;
}

/** `login/agent-id` → agent-id; a plain login is its own agent. */
export function agentOf(owner: string): string {
  const slash = owner.indexOf("/");
  return slash < 0 ? owner : owner.slice(slash + 1);
}

// ---------------------------------------------------------------------------------------------
// Canonical values without the schema's cost
//
// A board of 10,000 tasks is mostly entries written by taskgate itself: every field present, in
// the schema's order, with nothing extra. Checking such an entry by hand costs a small fraction of
// `safeParse`, so the readers below accept canonical items directly and hand every other item to
// the schema, which also reports the problems. What they accept they return as it is, without a
// copy: it equals the schema's output, keys in the same order (a property test holds them to that).
// Nothing changes a board once read, so the parsed JSON can serve as the value itself.

const STATUS_SET: ReadonlySet<unknown> = new Set(STATUSES);
const ACTION_SET: ReadonlySet<unknown> = new Set(ACTIONS);
type Plain = Record<string, unknown>;

function isPlain(value: unknown): value is Plain {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Has `value` exactly these own keys, those in `required` among them, in the schema's order? */
function hasKeys(value: Plain, order: readonly string[], required: number): boolean {
  let at = 0;
  let count = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) return false;
    const index = order.indexOf(key, at);
    if (index < 0) return false;
    at = index + 1;
    count++;
  }
  if (count < required) return false;
  for (let index = 0; index < required; index++) if (!Object.hasOwn(value, order[index]!)) return false;
  return true;
}

const isText = (value: unknown): value is string => typeof value === "string" && value.length > 0;
/** A task id as the schema's `TaskIdSchema` accepts it, without the schema. */
export const isTaskId = (value: unknown): value is string => typeof value === "string" && TASK_ID.test(value);
const isOptionalNote = (value: unknown) => value === undefined || value === null || typeof value === "string";

const HISTORY_KEYS = ["at", "by", "action", "from", "to", "note", "evidence", "handoff"] as const;

function canonicalHistory(value: unknown): HistoryEntry | undefined {
  if (!isPlain(value) || !hasKeys(value, HISTORY_KEYS, 5)) return undefined;
  const { at, by, action, from, to, note, evidence, handoff } = value;
  if (!isText(at) || !isText(by) || !ACTION_SET.has(action) || !STATUS_SET.has(from) || !STATUS_SET.has(to)) {
    return undefined;
  }
  if (!isOptionalNote(note) || !isOptionalNote(evidence) || !isOptionalNote(handoff)) return undefined;
  return value as HistoryEntry;
}

const ENTRY_KEYS = ["status", "owner", "external_wait", "blocked_by", "history"] as const;

/** A ledger entry with every field present, in order, valid, and nothing else; else `undefined`. */
export function canonicalLedgerEntry(value: unknown): LedgerEntry | undefined {
  if (!isPlain(value) || !hasKeys(value, ENTRY_KEYS, ENTRY_KEYS.length)) return undefined;
  const { status, owner, external_wait: wait, blocked_by: blockers, history } = value;
  if (!STATUS_SET.has(status) || !(owner === null || isText(owner)) || typeof wait !== "boolean") return undefined;
  if (!isTextList(blockers, isTaskId) || !Array.isArray(history)) return undefined;
  for (let index = 0; index < history.length; index++)
    if (canonicalHistory(history[index]) === undefined) return undefined;
  return value as LedgerEntry;
}

const DEFINITION_KEYS = [
  "id",
  "title",
  "role",
  "stage",
  "reviewer_role",
  "depends_on",
  "paths",
  "outcome",
  "steps",
  "checks",
  "external",
] as const;

/** An array whose every item passes `each` (a loop: called for every entry of a ledger, it makes no closure). */
function isTextList(value: unknown, each: (item: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (let index = 0; index < value.length; index++) if (!each(value[index])) return false;
  return true;
}
const isString = (item: unknown) => typeof item === "string";

/** A definition with every field present, in order, valid, and nothing else; else `undefined`. */
export function canonicalDefinition(value: unknown): Definition | undefined {
  if (!isPlain(value) || !hasKeys(value, DEFINITION_KEYS, DEFINITION_KEYS.length)) return undefined;
  const { id, title, role, stage, reviewer_role: reviewer, depends_on: dependsOn, paths, outcome } = value;
  if (!isTaskId(id) || !isText(title) || !isText(role) || !isText(stage) || !isText(reviewer)) return undefined;
  if (!isTextList(dependsOn, isTaskId) || !isTextList(paths, isText) || typeof outcome !== "string") return undefined;
  const { steps, checks, external } = value;
  if (!isTextList(steps, isString) || !isTextList(checks, isString) || typeof external !== "boolean") return undefined;
  return value as Definition;
}

/** One ledger entry: the canonical path, else the schema's; `undefined` when invalid. */
export function readLedgerEntry(value: unknown): LedgerEntry | undefined {
  const canonical = canonicalLedgerEntry(value);
  if (canonical !== undefined) return canonical;
  const parsed = boardSchemas().LedgerEntrySchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/** One definition: the canonical path, else the schema's; `undefined` when invalid. */
export function readDefinition(value: unknown): Definition | undefined {
  const canonical = canonicalDefinition(value);
  if (canonical !== undefined) return canonical;
  const parsed = boardSchemas().DefinitionSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The ledger as the schema reads it, item by item (canonical items without the schema), or
 * `undefined` when anything is invalid (then `LedgerSchema` names the problems). With `canonicalOnly`,
 * `undefined` as soon as an item is not canonical: the schema never runs, and what is returned has
 * the schema's fixed depth whatever the text held.
 */
export function readLedger(value: unknown, canonicalOnly = false): Ledger | undefined {
  if (!isPlain(value) || !hasKeys(value, ["revision", "tasks"], 2)) return undefined;
  const { revision, tasks } = value;
  if (typeof revision !== "number" || !Number.isInteger(revision) || revision < 0 || !isPlain(tasks)) return undefined;
  // Built only once an entry differs from what was parsed (the schema filled in a default).
  let out: Record<string, LedgerEntry> | undefined;
  for (const id in tasks) {
    if (!Object.hasOwn(tasks, id) || !TASK_ID.test(id)) return undefined;
    const entry = canonicalOnly ? canonicalLedgerEntry(tasks[id]) : readLedgerEntry(tasks[id]);
    if (entry === undefined) return undefined;
    if (out === undefined && entry !== tasks[id]) {
      out = {};
      for (const earlier in tasks) {
        if (earlier === id) break;
        out[earlier] = tasks[earlier] as LedgerEntry;
      }
    }
    if (out !== undefined) out[id] = entry;
  }
  // Every entry canonical: the file as parsed is the ledger.
  return out === undefined ? (value as Ledger) : { revision, tasks: out };
}

/**
 * The definitions as the schema reads them, item by item, or `undefined` when anything is invalid
 * (with `canonicalOnly`, as soon as an item is not canonical).
 */
export function readDefinitions(value: unknown, canonicalOnly = false): { tasks: Definition[] } | undefined {
  if (!isPlain(value) || !hasKeys(value, ["tasks"], 1) || !Array.isArray(value.tasks)) return undefined;
  const items: unknown[] = value.tasks;
  // Built only once a definition differs from what was parsed (the schema filled in a default).
  let tasks: Definition[] | undefined;
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    const definition = canonicalOnly ? canonicalDefinition(item) : readDefinition(item);
    if (definition === undefined) return undefined;
    if (tasks === undefined && definition !== item) tasks = items.slice(0, index) as Definition[];
    if (tasks !== undefined) tasks.push(definition);
  }
  return tasks === undefined ? (value as { tasks: Definition[] }) : { tasks };
}
