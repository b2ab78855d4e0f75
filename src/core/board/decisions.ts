/**
 * Recorded decisions of a board: which history entries the bot's own commits added in a pull
 * request, and whether a task's ledger entry at one commit is the entry at another plus only what
 * the bot recorded.
 */
import { isBotCommit, type ApprovalJudge } from "../kernel/approval.js";
import type { BoardConfig, Config } from "../kernel/config.js";
import { deepEqual } from "../kernel/json.js";
import type { RecordedChange } from "../kernel/model.js";
import { own } from "../kernel/objects.js";
import type { PrCommit, PrContext, RevisionView, Snapshot } from "../kernel/types.js";
import { entryOf, readBoard, type Board } from "./reader.js";
import type { HistoryEntry } from "./formats.js";
import { applyAction } from "./records.js";

/** Task id → the history entries bot commits added to it, each with the commits that added it. */
export type BoardWrites = Map<string, { item: HistoryEntry; commits: PrCommit[] }[]>;

const boards = new WeakMap<Snapshot, Board>();

/**
 * The board of a view, read once per snapshot; `like` (the head) lets unchanged parts of the ledger
 * reuse what was validated there.
 */
export function boardIn(config: Config, snapshot: Snapshot, like?: Snapshot): Board {
  let board = boards.get(snapshot);
  if (!board) boards.set(snapshot, (board = readBoard(snapshot, config.board, like)));
  return board;
}

/**
 * History entries each bot commit of the pull request added: present after it and not at the same
 * place in any of its parents. Commits the adapter could not read (or whose parents it could not
 * read) add nothing.
 */
export function boardBotWrites(config: Config, pr: PrContext, judge: ApprovalJudge): BoardWrites {
  const out: BoardWrites = new Map();
  for (const commit of pr.commits) {
    if (!isBotCommit(commit, config)) continue;
    const view = judge.view(commit.sha);
    const parents = (commit.parents ?? []).map((sha) => judge.view(sha));
    if (!view || parents.length === 0 || parents.some((parent) => parent === undefined)) continue;
    const like = judge.headRevision.snapshot;
    const after = boardIn(config, view.snapshot, like);
    const before = parents.map((parent) => boardIn(config, parent!.snapshot, like));
    if (after.problems.length > 0 || before.some((board) => board.problems.length > 0)) continue;
    for (const [id, entry] of Object.entries(after.ledger.tasks)) {
      const previous = before.map((board) => entryOf(board, id).history);
      entry.history.forEach((item, index) => {
        if (previous.some((history) => deepEqual(history[index], item))) return;
        const list = out.get(id) ?? [];
        const known = list.find((write) => deepEqual(write.item, item));
        if (known) known.commits.push(commit);
        else list.push({ item, commits: [commit] });
        out.set(id, list);
      });
    }
  }
  return out;
}

/** The bot commits that added exactly this history entry to a task. */
export function addedBy(writes: BoardWrites, id: string, item: HistoryEntry): PrCommit[] {
  return writes.get(id)?.find((write) => deepEqual(write.item, item))?.commits ?? [];
}

/**
 * Is the task's entry at `to` its entry at `from` plus history entries the bot added (replayed with
 * the writer's own rules)? Anything else in the entry changed.
 */
export function entryExplained(
  config: Config,
  id: string,
  writes: BoardWrites,
  from: RevisionView,
  to: RevisionView,
): boolean {
  const before = boardIn(config, from.snapshot);
  const after = boardIn(config, to.snapshot);
  if (before.problems.length > 0 || after.problems.length > 0) return false;
  const start = entryOf(before, id);
  const end = entryOf(after, id);
  if (deepEqual(start, end)) return true;
  if (end.history.length < start.history.length) return false;
  let entry = start;
  for (let index = 0; index < end.history.length; index++) {
    const item = end.history[index]!;
    if (index < start.history.length) {
      if (!deepEqual(start.history[index], item)) return false;
      continue;
    }
    if (addedBy(writes, id, item).length === 0) return false;
    entry = applyAction(entry, item);
  }
  // The histories agree entry by entry; everything else must be what they make it.
  return deepEqual({ ...entry, history: end.history }, end);
}

/** The approvals, rejections and unblocks that `after`'s ledger holds and `before`'s did not. */
export function boardDecisionsAdded(options: BoardConfig, before: Snapshot, after: Snapshot): RecordedChange[] {
  const out: RecordedChange[] = [];
  const was = readBoard(before, options);
  const now = readBoard(after, options, before);
  for (const [id, entry] of Object.entries(now.ledger.tasks)) {
    const old = own(was.ledger.tasks, id)?.history ?? [];
    entry.history.forEach((item, index) => {
      if (item.action !== "approve" && item.action !== "reject" && item.action !== "unblock") return;
      if (deepEqual(old[index], item)) return;
      out.push({
        task: id,
        path: options.ledger,
        what: `${item.action} by ${item.by} at ${item.at}`,
        ...(typeof item.at === "string" && { at: item.at }),
      });
    });
  }
  return out;
}
