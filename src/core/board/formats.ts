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

export const TaskIdSchema = z
  .string()
  .regex(
    /^(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]*$/,
    "a task id: letters, digits, . _ -, starting with a letter or digit, never containing ..",
  );

export const DefinitionSchema = z.looseObject({
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

export const DefinitionsSchema = z
  .looseObject({ tasks: z.array(DefinitionSchema) })
  .describe("taskgate board: task definitions (planning/tasks.json)");

export const HistoryEntrySchema = z.looseObject({
  at: z.string().min(1),
  by: z.string().min(1),
  action: z.enum(ACTIONS),
  from: z.enum(STATUSES),
  to: z.enum(STATUSES),
  note: z.string().nullable().optional(),
  evidence: z.string().nullable().optional(),
  handoff: z.string().nullable().optional(),
});

export const LedgerEntrySchema = z.looseObject({
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

export const LedgerSchema = z
  .looseObject({
    revision: z.number().int().min(0),
    tasks: z.record(TaskIdSchema, LedgerEntrySchema),
  })
  .describe("taskgate board: task status, owner and history (state/tasks.json)");

export type Definition = z.infer<typeof DefinitionSchema>;
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;
export type LedgerEntry = z.infer<typeof LedgerEntrySchema>;
export type Ledger = z.infer<typeof LedgerSchema>;

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
  return BOARD_EDGES.find((edge) => edge.from === from && edge.to === to && edge.action === action);
}

/** `login/agent-id` → login; a plain login stays as it is. */
export function loginOf(owner: string): string {
  const slash = owner.indexOf("/");
  return slash < 0 ? owner : owner.slice(0, slash);
}

/** `login/agent-id` → agent-id; a plain login is its own agent. */
export function agentOf(owner: string): string {
  const slash = owner.indexOf("/");
  return slash < 0 ? owner : owner.slice(slash + 1);
}
