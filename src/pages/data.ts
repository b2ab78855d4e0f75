/**
 * What the pages show that the core does not compute as such, derived here in pure functions from a
 * snapshot, the config and a report: the workflow as a graph, every task at a revision with who may
 * review it and what it waits on, and whether each review of a pull request counted. Nothing here
 * builds a model: the phases tasks are read with the model the config loaded (its preset alone), the
 * board's with the board's reader.
 */
import {
  BOARD_EDGES,
  STATUSES,
  entryOf,
  readBoard,
  workflowOf,
  type Config,
  type FileEntry,
  type Loaded,
  type People,
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
    const known =
      principal.startsWith("@") && Object.keys(teams).some((key) => key.toLowerCase() === principal.toLowerCase());
    // A team whose members are unknown stands for nobody named: it shows by its name alone.
    if (principal.startsWith("role:") || known) out[principal] = principalLogins(config, principal, teams);
  }
  return out;
}

/**
 * The phases tasks at a revision: each with its state and, when it awaits a gate, who may approve it.
 * Each task is explained from its own files (one pass over the snapshot groups them), so a store of
 * N tasks costs O(N), not N reads of the whole store.
 */
export function phasesTasks(
  loaded: Loaded,
  snapshot: Snapshot,
  teams: Readonly<Record<string, readonly string[]>> = {},
): TaskView[] {
  const { config, model } = loaded;
  const workflow = workflowOf(config);
  const byTask = workflow.ok ? filesByTask(snapshot, `${workflow.workflow.def.tasksDir}/`) : new Map();
  const out: TaskView[] = [];
  for (const id of model.taskIds(snapshot)) {
    const own = byTask.get(id);
    const explanation = model.explain(own ? { rev: snapshot.rev, files: own } : snapshot, id);
    if (!explanation) continue;
    const awaiting = explanation.next.some((step) => step.needs.some((need) => /approv/i.test(need)));
    const reviewers = [
      ...new Set(explanation.approvers.flatMap((principal) => principalLogins(config, principal, teams))),
    ];
    out.push({
      id,
      state: explanation.state ?? "(unknown)",
      ...(awaiting && reviewers.length > 0 && { reviewers }),
    });
  }
  return out;
}

/** The files of each task folder below `folder` (`tasks/`), by task id. */
function filesByTask(snapshot: Snapshot, folder: string): Map<string, Map<string, FileEntry>> {
  const out = new Map<string, Map<string, FileEntry>>();
  for (const [path, entry] of snapshot.files) {
    if (!path.startsWith(folder)) continue;
    const slash = path.indexOf("/", folder.length);
    if (slash < 0) continue;
    const id = path.slice(folder.length, slash);
    let files = out.get(id);
    if (!files) out.set(id, (files = new Map()));
    files.set(path, entry);
  }
  return out;
}

/** Every task at a revision, for either preset, with the model its config loaded. */
export function repositoryTasks(
  loaded: Loaded,
  snapshot: Snapshot,
  teams: Readonly<Record<string, readonly string[]>> = {},
): TaskView[] {
  return loaded.config.preset === "board"
    ? boardTasks(loaded.config, snapshot, teams)
    : phasesTasks(loaded, snapshot, teams);
}

const TEAM = /^@[^/\s]+\/[^/\s]+$/;

/** The teams (`@org/team`) among who may review the tasks, each once, as written. */
export function teamsAmong(names: Iterable<readonly string[] | undefined>): string[] {
  const out = new Map<string, string>();
  for (const list of names) {
    for (const name of list ?? []) {
      if (TEAM.test(name) && !out.has(name.toLowerCase())) out.set(name.toLowerCase(), name);
    }
  }
  return [...out.values()];
}

/** The tasks with each team among their reviewers replaced by its members (never the task's owner). */
export function expandTeams(
  tasks: readonly TaskView[],
  teams: Readonly<Record<string, readonly string[]>>,
): TaskView[] {
  const byKey = new Map(Object.entries(teams).map(([team, members]) => [team.toLowerCase(), members]));
  if (byKey.size === 0) return [...tasks];
  return tasks.map((task) => {
    if (!task.reviewers?.some((name) => byKey.has(name.toLowerCase()))) return task;
    const owner = ownerLogin(task.owner ?? null);
    const reviewers = new Set<string>();
    for (const name of task.reviewers) {
      for (const login of byKey.get(name.toLowerCase()) ?? [name]) {
        if (login.toLowerCase() !== owner) reviewers.add(login);
      }
    }
    return { ...task, reviewers: [...reviewers] };
  });
}

/** What a page knows of the teams it names: their members, and why some are not listed. */
export interface TeamMembers {
  /** Team → member logins, for the teams whose members GitHub listed. */
  readonly members: Readonly<Record<string, readonly string[]>>;
  /** One sentence per team whose members are unknown or incomplete. */
  readonly notes: readonly string[];
}

/**
 * The members of teams as GitHub answered (`people` of the repository port): a team GitHub does not
 * show stays by name, with a note that its members could not be listed.
 */
export function teamMembersOf(teams: readonly string[], people: Pick<People, "teams" | "unresolved">): TeamMembers {
  const members: Record<string, readonly string[]> = Object.create(null) as Record<string, readonly string[]>;
  const notes: string[] = [];
  for (const team of teams) {
    const listed = Object.hasOwn(people.teams, team) ? people.teams[team]! : [];
    const why = Object.hasOwn(people.unresolved, team) ? people.unresolved[team] : undefined;
    if (why !== undefined && listed.length === 0) {
      notes.push(`The members of ${team} could not be listed: ${why}.`);
      continue;
    }
    members[team] = listed;
    if (why !== undefined) notes.push(`${why}.`);
  }
  return { members, notes };
}

/** What a page says where no GitHub answers (`taskgate serve`): teams stay by name. */
export const TEAMS_BY_NAME = "taskgate serve reads no GitHub: a team is shown by its name, not by its members.";

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
