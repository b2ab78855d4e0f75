/**
 * The one writer of board history, beside its reader (formats.ts): how each history entry changes a
 * ledger entry, and the entries the bot commits for its records (approve, reject, unblock). The
 * rules replay history with the same function, so what the bot writes is what the check expects.
 */
import type { Config } from "../kernel/config.js";
import type { BotRecord, Snapshot } from "../kernel/types.js";
import type { Definition, HistoryEntry, LedgerEntry } from "./formats.js";

/**
 * What one history entry does to a ledger entry's status, owner, resolvers and wait flag; the history
 * itself is left as it is. `resolvers` are the tasks an escalation adds to `blocked_by` (the entry
 * does not name them). Replaying a long history with this costs one step per entry.
 */
export function applyAction<E extends LedgerEntry>(entry: E, item: HistoryEntry, resolvers: readonly string[] = []): E {
  switch (item.action) {
    case "claim":
    case "reassign":
      return { ...entry, status: item.to, owner: item.by };
    case "submit":
      return { ...entry, status: item.to };
    case "escalate":
      return { ...entry, status: item.to, owner: null, blocked_by: [...entry.blocked_by, ...resolvers] };
    case "unblock":
      return { ...entry, status: item.to, owner: null, blocked_by: [] };
    case "release":
      return { ...entry, status: item.to, owner: null, external_wait: false };
    case "approve":
    case "reject":
      return { ...entry, status: item.to, owner: null };
  }
}

/** A ledger entry after one history entry: the entry appended, and what it does applied. */
export function applyHistory<E extends LedgerEntry>(
  entry: E,
  item: HistoryEntry,
  resolvers: readonly string[] = [],
): E {
  return { ...applyAction(entry, item, resolvers), history: [...entry.history, item] };
}

/** The history entry the bot writes for a record. */
export function historyEntryOf(record: BotRecord, now: string): HistoryEntry {
  const at = record.at ?? now;
  const base = { at, by: record.by, action: record.kind, from: record.from, to: record.to } as HistoryEntry;
  if (record.kind === "reject") return { ...base, note: record.reason ?? "changes requested" };
  if (record.kind === "approve" && record.reviews && record.reviews.length > 1) {
    return { ...base, reviews: record.reviews.map(({ by, at }) => ({ by, at })) };
  }
  return base;
}

/** The reviews an approve or reject entry records: its `reviews` list, or its `by` and `at`. */
export function reviewsOf(item: HistoryEntry): { by: string; at: string }[] {
  const list = (item as { reviews?: unknown }).reviews;
  if (Array.isArray(list) && list.length > 0) {
    return list
      .filter((entry): entry is { by: string; at: string } => {
        const value = entry as { by?: unknown; at?: unknown } | null;
        return typeof value?.by === "string" && typeof value.at === "string";
      })
      .map(({ by, at }) => ({ by, at }));
  }
  return [{ by: item.by, at: item.at }];
}

/**
 * The ledger after the bot's records: one history entry per record, the revision raised by one per
 * entry. Works on the file's own JSON, so keys taskgate does not know are kept as they are.
 */
export function writeBoardRecords(
  config: Config,
  snapshot: Snapshot,
  records: readonly BotRecord[],
  now: string,
): Map<string, string> {
  const path = config.board.ledger;
  const text = snapshot.files.get(path)?.text;
  if (text === undefined) throw new Error(`${path} cannot be read`);
  const edits = records.map((record): LedgerEdit => ({ task: record.task, item: historyEntryOf(record, now) }));
  return new Map([[path, writeLedger(text, edits)]]);
}

/** One change to the ledger: a history entry appended to a task, or a new entry without history. */
export interface LedgerEdit {
  readonly task: string;
  /** Appended and replayed with `applyHistory`; the revision rises by one. */
  readonly item?: HistoryEntry;
  /** The resolvers an escalation adds to `blocked_by`. */
  readonly resolvers?: readonly string[];
  /** A new entry with no history (an external resolver waiting for release); the revision stays. */
  readonly create?: LedgerEntry;
}

/**
 * The one writer of the ledger (`state/tasks.json`): applies edits to the file's text and returns
 * the new text. Works on the file's own JSON (a missing file is an empty ledger), so keys taskgate
 * does not know are kept as they are.
 */
export function writeLedger(text: string | undefined, edits: readonly LedgerEdit[]): string {
  const ledger = (text === undefined ? { revision: 0, tasks: {} } : JSON.parse(text.replace(/^\uFEFF/, ""))) as {
    revision: number;
    tasks: Record<string, LedgerEntry>;
  };
  for (const edit of edits) {
    const current = Object.hasOwn(ledger.tasks, edit.task) ? ledger.tasks[edit.task]! : undefined;
    let next: LedgerEntry;
    if (edit.create) next = edit.create;
    else {
      const entry: LedgerEntry = {
        ...current,
        status: current?.status ?? "todo",
        owner: current?.owner ?? null,
        external_wait: current?.external_wait ?? false,
        blocked_by: normaliseResolvers(current?.blocked_by),
        history: current?.history ?? [],
      };
      next = edit.item ? applyHistory(entry, edit.item, edit.resolvers) : entry;
      if (edit.item) ledger.revision += 1;
    }
    Object.defineProperty(ledger.tasks, edit.task, {
      value: next,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return `${JSON.stringify(ledger, null, 2)}\n`;
}

/**
 * The one writer of the definitions file (`planning/tasks.json`): a definition appended, the rest of
 * the file's JSON kept as it is (a missing file starts an empty list).
 */
export function appendDefinition(text: string | undefined, definition: Definition): string {
  const file = (text === undefined ? { tasks: [] } : JSON.parse(text.replace(/^\uFEFF/, ""))) as {
    tasks: Definition[];
  };
  file.tasks = [...(Array.isArray(file.tasks) ? file.tasks : []), definition];
  return `${JSON.stringify(file, null, 2)}\n`;
}

function normaliseResolvers(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === "string") return [value];
  return value as string[];
}
