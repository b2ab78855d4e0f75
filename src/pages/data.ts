/**
 * What the pages show that the core does not compute as such, derived here in pure functions from a
 * snapshot, the config and a report: the workflow as a graph, every task at a revision with who may
 * review it and what it waits on, and whether each review of a pull request counted.
 */
import {
  BOARD_EDGES,
  STATUSES,
  createModel,
  entryOf,
  readBoard,
  workflowOf,
  type Config,
  type Report,
  type Review,
  type Snapshot,
} from "../core/index.js";
import type { Edge } from "./svg.js";

/** A workflow's states in its order and its edges. */
export interface WorkflowGraph {
  readonly states: readonly string[];
  readonly edges: readonly Edge[];
}

/** The config's workflow: the phases preset with its overrides, or the board's statuses and edges. */
export function workflowGraph(config: Config): WorkflowGraph {
  if (config.preset === "board") {
    return { states: [...STATUSES], edges: BOARD_EDGES.map(({ from, to }) => ({ from, to })) };
  }
  const result = workflowOf(config);
  if (!result.ok) return { states: [], edges: [] };
  const def = result.workflow.def;
  return { states: Object.keys(def.states), edges: def.transitions.map(({ from, to }) => ({ from, to })) };
}

/** One task of the repository page. */
export interface TaskView {
  readonly id: string;
  readonly title?: string;
  /** The state (phases) or status (board). */
  readonly state: string;
  /** Board only: the owner as the ledger names it (`null`: nobody). */
  readonly owner?: string | null;
  readonly role?: string;
  readonly stage?: string;
  /** Tasks this one waits on: unfinished dependencies and recorded blockers. */
  readonly waitsOn?: readonly string[];
  /** Who may review it when it waits for review: logins (teams expanded when known), or words. */
  readonly reviewers?: readonly string[];
}

/** The board's tasks at a revision; `teams` ("@org/team" → logins) expands team reviewers. */
export function boardTasks(
  config: Config,
  snapshot: Snapshot,
  teams: Readonly<Record<string, readonly string[]>> = {},
): TaskView[] {
  const board = readBoard(snapshot, config.board);
  const out: TaskView[] = [];
  for (const definition of board.definitions.values()) {
    const entry = entryOf(board, definition.id);
    const unfinished = definition.depends_on.filter((id) => entryOf(board, id).status !== "done");
    const waitsOn = [...new Set([...entry.blocked_by, ...(entry.status === "done" ? [] : unfinished)])];
    out.push({
      id: definition.id,
      title: definition.title,
      state: entry.status,
      owner: entry.owner,
      role: definition.role,
      stage: definition.stage,
      waitsOn,
      ...(entry.status === "review" && {
        reviewers: membersOf(config, definition.reviewer_role, teams).filter(
          (login) => login.toLowerCase() !== ownerLogin(entry.owner),
        ),
      }),
    });
  }
  return out;
}

/** The login part of a board owner (`login` or `login/agent`), lower-cased. */
function ownerLogin(owner: string | null): string {
  return (owner ?? "").split("/")[0]!.toLowerCase();
}

/** The logins a role names, `role:` and teams expanded (a team nobody expanded stays by name). */
export function membersOf(
  config: Config,
  role: string,
  teams: Readonly<Record<string, readonly string[]>> = {},
): string[] {
  return principalLogins(config, `role:${role}`, teams);
}

/**
 * The logins one approver principal names: a login itself, a `role:NAME`'s members, an `@org/team`'s
 * members when `teams` holds them (else the team by name). Words ("anyone with write permission")
 * stay as they are.
 */
export function principalLogins(
  config: Config,
  principal: string,
  teams: Readonly<Record<string, readonly string[]>> = {},
): string[] {
  const out = new Set<string>();
  const seen = new Set<string>();
  const visit = (entry: string) => {
    if (entry.startsWith("role:")) {
      const name = entry.slice(5);
      if (seen.has(name)) return;
      seen.add(name);
      const members = Object.hasOwn(config.roles, name) ? config.roles[name] : undefined;
      for (const member of members ?? []) visit(member);
    } else if (entry.startsWith("@")) {
      const team = Object.keys(teams).find((key) => key.toLowerCase() === entry.toLowerCase());
      for (const member of team ? teams[team]! : [entry]) out.add(member);
    } else out.add(entry);
  };
  visit(principal);
  return [...out];
}

/** Each approver principal a report's pending gates name, with the logins it stands for. */
export function approverLogins(
  config: Config,
  report: Report,
  teams: Readonly<Record<string, readonly string[]>> = {},
): Record<string, string[]> {
  const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  for (const principal of report.pending.flatMap((item) => item.approvers)) {
    if (principal.startsWith("role:") || principal.startsWith("@")) {
      out[principal] = principalLogins(config, principal, teams);
    }
  }
  return out;
}

/** The phases tasks at a revision: each with its state and, when it awaits a gate, its approvers. */
export function phasesTasks(config: Config, snapshot: Snapshot): TaskView[] {
  const built = createModel(config);
  if (!built.ok) return [];
  const model = built.model;
  const out: TaskView[] = [];
  for (const id of model.taskIds(snapshot)) {
    const explanation = model.explain(snapshot, id);
    if (!explanation) continue;
    const awaiting = explanation.next.some((step) => step.needs.some((need) => /approv/i.test(need)));
    out.push({
      id,
      state: explanation.state ?? "(unknown)",
      ...(awaiting && explanation.approvers.length > 0 && { reviewers: explanation.approvers }),
    });
  }
  return out;
}

/** Every task at a revision, for either preset. */
export function repositoryTasks(
  config: Config,
  snapshot: Snapshot,
  teams: Readonly<Record<string, readonly string[]>> = {},
): TaskView[] {
  return config.preset === "board" ? boardTasks(config, snapshot, teams) : phasesTasks(config, snapshot);
}

/** One review of a pull request and whether it counted. */
export interface ReviewView {
  /** `null`: GitHub names nobody (a deleted account). */
  readonly login: string | null;
  readonly state: string;
  readonly submittedAt?: string;
  readonly body?: string;
  readonly commit?: string;
  readonly counted: boolean;
  /** Why it counted or not, in words. */
  readonly why: string;
}

/**
 * Whether each review counted, from what the report says: a review counts when it backs a decision
 * the report records; an approval a pending gate names as not counted carries that reason; the
 * rest say why they decided nothing at this head.
 */
export function reviewViews(reviews: readonly Review[], report: Report): ReviewView[] {
  const backing = new Set(
    report.records.flatMap((record) =>
      (record.reviews ?? []).map((review) => `${review.by.toLowerCase()}\u0000${Date.parse(review.at)}`),
    ),
  );
  const notes = report.pending.flatMap((item) => {
    const cut = item.message.indexOf("; not counted: ");
    return cut < 0 ? [] : item.message.slice(cut + 15).split("; ");
  });
  const latest = new Map<string, Review>();
  for (const review of reviews) {
    const login = review.user?.login;
    if (login && review.state !== "COMMENTED" && review.state !== "PENDING") latest.set(login.toLowerCase(), review);
  }
  return reviews.map((review) => reviewView(review, { backing, notes, latest }));
}

function reviewView(
  review: Review,
  facts: { backing: Set<string>; notes: string[]; latest: Map<string, Review> },
): ReviewView {
  const login = review.user?.login ?? "";
  const base = {
    login: review.user?.login ?? null,
    state: review.state,
    ...(review.submitted_at && { submittedAt: review.submitted_at }),
    ...(review.body && { body: review.body }),
    ...(review.commit_id && { commit: review.commit_id }),
  };
  const key = `${login.toLowerCase()}\u0000${Date.parse(review.submitted_at ?? "")}`;
  if (facts.backing.has(key)) return { ...base, counted: true, why: "decides a gate taskgate records" };
  if (!login) return { ...base, counted: false, why: "GitHub names no reviewer (a deleted account)" };
  if (review.state === "COMMENTED" || review.state === "PENDING") {
    return { ...base, counted: false, why: "a comment approves or rejects nothing" };
  }
  if (facts.latest.get(login.toLowerCase()) !== review) {
    return { ...base, counted: false, why: `a later review by ${login} replaces it` };
  }
  const note = facts.notes.find((item) => item.toLowerCase().includes(login.toLowerCase()));
  if (note) return { ...base, counted: false, why: note };
  return { ...base, counted: false, why: "no gate waits on it at this head" };
}
