/**
 * The `board` model: task definitions plus a ledger of status, owner and history. Judges
 * claims, submissions, reviews, escalations, unblocks and releases in pull requests, and the whole
 * board at rest in audits.
 */
import { CONFIG_PATH, type Config } from "../kernel/config.js";
import type { RecordedChange, WorkflowModel } from "../kernel/model.js";
import { deepEqual } from "../kernel/json.js";
import { own } from "../kernel/objects.js";
import { isSuspiciousPath, renderRootOf } from "../kernel/paths.js";
import { renderBoard } from "./render.js";
import type { SnapshotScope } from "../kernel/port.js";
import { handoffPath, issuePath, readBoard } from "./reader.js";
import { auditBoard } from "./audit.js";
import { evaluateBoard } from "./pull-request.js";
import { explainTask } from "./explain.js";
import { writeBoardRecords } from "./records.js";

export function createBoardModel(config: Config): WorkflowModel {
  const options = config.board;
  const stateDirs = [options.evidence_dir, options.handoffs_dir, options.issues_dir];
  const inStateDirs = (path: string) => stateDirs.some((dir) => path.startsWith(`${dir}/`));

  return {
    name: "board",

    prScope(files): SnapshotScope {
      const paths = new Set([CONFIG_PATH, options.definitions, options.ledger]);
      for (const file of files) {
        for (const path of [file.path, file.previousPath]) if (path && inStateDirs(path)) paths.add(path);
      }
      return { paths: [...paths], prefixes: [] };
    },

    followUp(base, head) {
      // Evidence, handoffs and issue reports named by the tasks the PR changed but not changed by it.
      const before = readBoard(base, options);
      const board = readBoard(head, options, base);
      const wanted = new Set<string>();
      for (const [id, entry] of Object.entries(board.ledger.tasks)) {
        if (deepEqual(own(before.ledger.tasks, id), entry)) continue;
        for (const item of entry.history) {
          for (const path of [item.evidence, item.handoff]) if (path && !isSuspiciousPath(path)) wanted.add(path);
          if (item.action === "escalate") wanted.add(issuePath(options, id, item.by));
        }
        wanted.add(handoffPath(options, id));
      }
      for (const path of [...wanted]) if (head.files.has(path)) wanted.delete(path);
      return { paths: [...wanted], prefixes: [] };
    },

    auditScope(): SnapshotScope {
      return {
        paths: [CONFIG_PATH, options.definitions, options.ledger],
        prefixes: [...stateDirs, renderRootOf(config)].map((dir) => `${dir}/`),
      };
    },

    render(snapshot) {
      return renderBoard(readBoard(snapshot, options), renderRootOf(config));
    },

    evaluate(base, head, pr) {
      return evaluateBoard(config, base, head, pr);
    },

    writeRecords(snapshot, records, { now = new Date().toISOString() } = {}) {
      return writeBoardRecords(config, snapshot, records, now);
    },

    decisionsAdded(before, after) {
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
    },

    recordFiles(snapshot) {
      return snapshot.files.has(options.ledger) ? [options.ledger] : [];
    },

    audit(snapshot) {
      return auditBoard(config, snapshot);
    },

    explain(snapshot, id) {
      const board = readBoard(snapshot, options);
      const definition = board.definitions.get(id);
      if (!definition) return undefined;
      return explainTask(
        config,
        board,
        definition,
        auditBoard(config, snapshot).violations.filter((item) => item.task === id),
      );
    },

    taskIds(snapshot) {
      return [...readBoard(snapshot, options).definitions.keys()].sort();
    },
  };
}
