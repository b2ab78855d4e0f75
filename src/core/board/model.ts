/**
 * The `board` model: task definitions plus a ledger of status, owner and history. Judges
 * claims, submissions, reviews, escalations, unblocks and releases in pull requests, and the whole
 * board at rest in audits.
 */
import { CONFIG_PATH, type Config } from "../kernel/config.js";
import type { WorkflowModel } from "../kernel/model.js";
import { renderRootOf } from "../kernel/paths.js";
import type { SnapshotScope } from "../kernel/port.js";
import { auditBoard } from "./audit.js";
import { boardDecisionsAdded } from "./decisions.js";
import { explainBoardTask } from "./explain.js";
import { boardFollowUp, evaluateBoard } from "./pull-request.js";
import { readBoard } from "./reader.js";
import { writeBoardRecords } from "./records.js";
import { renderBoard } from "./render.js";

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
      return boardFollowUp(options, base, head);
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
      return boardDecisionsAdded(options, before, after);
    },

    recordFiles(snapshot) {
      return snapshot.files.has(options.ledger) ? [options.ledger] : [];
    },

    audit(snapshot) {
      return auditBoard(config, snapshot);
    },

    explain(snapshot, id) {
      return explainBoardTask(config, snapshot, id);
    },

    taskIds(snapshot) {
      return [...readBoard(snapshot, options).definitions.keys()].sort();
    },
  };
}
