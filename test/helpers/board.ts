/** Builders for `board` files in core tests. */
import type { Definition, HistoryEntry, LedgerEntry } from "../../src/core/board/formats.js";
import type { FileSpec } from "./memory.js";

export function def(id: string, extra: Partial<Definition> = {}): Definition {
  return {
    id,
    title: `Task ${id}`,
    role: "backend",
    stage: "S1",
    reviewer_role: "qa",
    depends_on: [],
    paths: [`src/${id}/**`],
    outcome: "",
    steps: [],
    checks: [],
    external: false,
    ...extra,
  };
}

export function entry(status: LedgerEntry["status"], extra: Partial<LedgerEntry> = {}): LedgerEntry {
  return { status, owner: null, external_wait: false, blocked_by: [], history: [], ...extra };
}

const TIMES: Record<string, string> = {
  claim: "2026-11-01T09:00:00Z",
  submit: "2026-11-01T12:00:00Z",
  approve: "2026-11-01T10:00:00Z",
  reject: "2026-11-02T10:00:00Z",
  escalate: "2026-11-01T13:00:00Z",
  unblock: "2026-11-05T10:00:00Z",
  release: "2026-11-05T11:00:00Z",
  reassign: "2026-11-01T11:00:00Z",
};

/** A history entry; times are fixed per action so the same entry built twice is equal. */
export function step(
  action: HistoryEntry["action"],
  from: HistoryEntry["from"],
  to: HistoryEntry["to"],
  by: string,
  extra: Partial<HistoryEntry> = {},
): HistoryEntry {
  return { at: TIMES[action]!, by, action, from, to, ...extra };
}

/** A claimed task owned by `owner`. */
export function claimed(owner: string, extra: Partial<LedgerEntry> = {}): LedgerEntry {
  return entry("in_progress", { owner, history: [step("claim", "todo", "in_progress", owner)], ...extra });
}

export function board(
  definitions: Definition[],
  tasks: Record<string, LedgerEntry>,
  revision: number,
  files: Record<string, FileSpec> = {},
): Record<string, FileSpec> {
  return {
    "planning/tasks.json": JSON.stringify({ tasks: definitions }, null, 2),
    "state/tasks.json": JSON.stringify({ revision, tasks }, null, 2),
    ...files,
  };
}

/**
 * The files of a board whose resolver `r` is done while its parent `p` still waits for it (blocked
 * by `r`): what a merge leaves for the follow-ups to unblock. `roles` adds to the config's roles.
 */
export function resolverDoneBoard(roles = "  qa: [quinn]\n  backend: [carol, dave]\n"): Record<string, string> {
  return {
    ".github/taskgate.yml": `preset: board\nroles:\n${roles}`,
    ...(board(
      [def("p"), def("r")],
      {
        p: entry("blocked", {
          blocked_by: ["r"],
          history: [
            step("claim", "todo", "in_progress", "dave/x"),
            step("escalate", "in_progress", "blocked", "dave/x"),
          ],
        }),
        r: entry("done", {
          history: [
            step("claim", "todo", "in_progress", "carol"),
            step("submit", "in_progress", "review", "carol", { evidence: "state/evidence/r.md" }),
            step("approve", "review", "done", "quinn"),
          ],
        }),
      },
      5,
      {
        "state/evidence/r.md": "ok\n",
        "state/handoffs/r.md": "ok\n",
        "state/issues/p-x.json": "{}\n",
        "state/handoffs/p.md": "blocked\n",
      },
    ) as Record<string, string>),
  };
}

/** A task `by` claimed, then escalated: blocked by `resolvers`. */
export function escalated(by: string, resolvers: string[], extra: Partial<LedgerEntry> = {}): LedgerEntry {
  return entry("blocked", {
    blocked_by: resolvers,
    history: [step("claim", "todo", "in_progress", by), step("escalate", "in_progress", "blocked", by)],
    ...extra,
  });
}

/** A task `owner` claimed, then submitted for review with the evidence at `evidence`. */
export function inReview(owner: string, evidence: string): LedgerEntry {
  return entry("review", {
    owner,
    history: [
      step("claim", "todo", "in_progress", owner),
      step("submit", "in_progress", "review", owner, { evidence }),
    ],
  });
}
