/**
 * Authoring a `board`: find work (`next`, `list`), take it (`claim`), hand it in (`submit`), report
 * a blocker with its resolver (`escalate`), recover an in-progress task (`reassign`) and propose the
 * release of an external resolver (`release-external`). Each builds the history entry and the files
 * the pull request will carry, with the ledger's and the definitions' one writer, and the
 * pull-request rules judge the step before anything is written (see kernel/change.ts).
 */
import type { Config } from "../kernel/config.js";
import { UNFINISHED, entryOf, handoffPath, issuePath, readBoard, type Board } from "./reader.js";
import { boardFileRule, type BoardFileVerdict } from "./pull-request.js";
import { boardSchemas, STATUSES, type Definition, type HistoryEntry, type Status } from "./formats.js";
import { OWNER_HINT, ownedBy, parseOwner, sameOwner } from "./owners.js";
import { appendDefinition, writeLedger, type LedgerEdit } from "./records.js";
import { tooDeep } from "../kernel/json.js";
import { closest } from "../kernel/text.js";
import { isSuspiciousPath } from "../kernel/paths.js";
import type { Snapshot, Violation } from "../kernel/types.js";
import { violation } from "../kernel/violations.js";
import { AuthoringRefusal, judgeChange, type Authored, type FileChange } from "../kernel/change.js";
import { createBoardModel } from "./model.js";

export interface BoardContext {
  readonly config: Config;
  /** The work tree as it is (config, definitions, ledger and the board's folders). */
  readonly snapshot: Snapshot;
  /** The acting GitHub login: the pull request's author for the judgement. */
  readonly actor: string;
  /** ISO-8601 time written into history entries. */
  readonly now: string;
}

/** A file the user handed to a command, and where it is in the repository if it is inside it. */
export interface GivenFile {
  readonly name: string;
  readonly content: string;
  /** Repository path when the file lies inside the checkout. */
  readonly repoPath?: string;
}

function refuse(...items: Violation[]): never {
  throw new AuthoringRefusal(items);
}

function boardOf(ctx: Pick<BoardContext, "config" | "snapshot">): Board {
  const board = readBoard(ctx.snapshot, ctx.config.board);
  if (board.problems.length > 0) refuse(...board.problems);
  return board;
}

function definitionOf(board: Board, id: string): Definition {
  const found = board.definitions.get(id);
  if (found) return found;
  const near = closest(id, [...board.definitions.keys()]);
  return refuse(
    violation("dependency-unknown", {
      task: id,
      path: board.options.definitions,
      message: `there is no task ${id} in ${board.options.definitions}`,
      hint: near ? `Did you mean ${near}?` : "List the tasks with `taskgate list`.",
    }),
  );
}

/** The owner string a command acts as: `login/agent`, the actor's current owner string, or the login. */
export function ownerFor(actor: string, agent: string | undefined, current?: string | null): string {
  const owner = agent !== undefined ? `${actor}/${agent}` : current && ownedBy(current, actor) ? current : actor;
  if (!parseOwner(owner)) {
    refuse(violation("owner-mismatch", { message: `"${owner}" is not a valid owner`, hint: OWNER_HINT }));
  }
  return owner;
}

function entryChange(
  ctx: BoardContext,
  board: Board,
  edits: readonly LedgerEdit[],
  extra: readonly FileChange[] = [],
): FileChange[] {
  const ledger = board.options.ledger;
  return [...extra, { path: ledger, content: writeLedger(ctx.snapshot.files.get(ledger)?.text, edits) }];
}

function judged(ctx: BoardContext, changes: FileChange[], facts: Record<string, unknown>): Authored {
  return {
    changes,
    report: judgeChange(createBoardModel(ctx.config), ctx.config, ctx.snapshot, changes, ctx.actor),
    facts,
  };
}

/** `taskgate claim <id> [--agent A]`: todo → in_progress, owned by the actor (or one of its agents). */
export function claimTask(ctx: BoardContext, id: string, agent?: string): Authored {
  const board = boardOf(ctx);
  definitionOf(board, id);
  const entry = entryOf(board, id);
  const owner = ownerFor(ctx.actor, agent);
  const item: HistoryEntry = { at: ctx.now, by: owner, action: "claim", from: entry.status, to: "in_progress" };
  return judged(ctx, entryChange(ctx, board, [{ task: id, item }]), { task: id, owner, status: "in_progress" });
}

/**
 * `taskgate submit <id> --evidence F --handoff F`: in_progress → review, the evidence and the
 * handoff copied to their canonical places when they are not there already.
 */
export function submitTask(
  ctx: BoardContext,
  id: string,
  files: { evidence: GivenFile; handoff: GivenFile },
  agent?: string,
): Authored {
  const board = boardOf(ctx);
  definitionOf(board, id);
  const entry = entryOf(board, id);
  const owner = ownerFor(ctx.actor, agent, entry.owner);
  const options = board.options;
  const evidence = place(ctx.snapshot, files.evidence, evidencePath(options.evidence_dir, files.evidence), "evidence");
  const handoff = place(ctx.snapshot, files.handoff, handoffPath(options, id), "handoff");
  const item: HistoryEntry = {
    at: ctx.now,
    by: owner,
    action: "submit",
    from: entry.status,
    to: "review",
    evidence: evidence.path,
    handoff: handoff.path,
  };
  return judged(ctx, entryChange(ctx, board, [{ task: id, item }], [...evidence.changes, ...handoff.changes]), {
    task: id,
    owner,
    status: "review",
    evidence: evidence.path,
    handoff: handoff.path,
  });
}

/**
 * `taskgate escalate <id> --issue F --handoff F --resolver <new-id> --definition FILE`: in_progress →
 * blocked, with a new resolver task (its definition added, named in `blocked_by`), the blocker
 * report and the handoff. The reporter is retired: it must exit.
 */
export function escalateTask(
  ctx: BoardContext,
  id: string,
  input: { issue: GivenFile; handoff: GivenFile; resolver: string; definition: GivenFile },
  agent?: string,
): Authored {
  const board = boardOf(ctx);
  definitionOf(board, id);
  const entry = entryOf(board, id);
  const owner = ownerFor(ctx.actor, agent, entry.owner);
  const options = board.options;
  const resolver = resolverDefinition(input.definition, input.resolver, options.definitions);
  if (board.definitions.has(resolver.id)) {
    refuse(
      violation("id-reused", {
        task: resolver.id,
        path: options.definitions,
        line: board.definitionLine(resolver.id),
        message: `${resolver.id} is already a task; a resolver is a new task`,
      }),
    );
  }
  if (!isJson(input.issue.content)) {
    refuse(
      violation("evidence-missing", {
        task: id,
        message: `the blocker report ${input.issue.name} is not JSON`,
        hint: `Write the report as JSON; it is kept as ${issuePath(options, id, owner)}.`,
      }),
    );
  }
  const issue = place(ctx.snapshot, input.issue, issuePath(options, id, owner), "issue report");
  const handoff = place(ctx.snapshot, input.handoff, handoffPath(options, id), "handoff");
  const item: HistoryEntry = { at: ctx.now, by: owner, action: "escalate", from: entry.status, to: "blocked" };
  const edits: LedgerEdit[] = [{ task: id, item, resolvers: [resolver.id] }];
  if (resolver.external) {
    edits.push({
      task: resolver.id,
      create: { status: "blocked", owner: null, external_wait: true, blocked_by: [], history: [] },
    });
  }
  const definitions: FileChange = {
    path: options.definitions,
    content: appendDefinition(ctx.snapshot.files.get(options.definitions)?.text, resolver),
  };
  return judged(ctx, entryChange(ctx, board, edits, [definitions, ...issue.changes, ...handoff.changes]), {
    task: id,
    owner,
    status: "blocked",
    resolution_task: resolver.id,
    agent_must_exit: true,
    issue: issue.path,
    handoff: handoff.path,
  });
}

/** `taskgate reassign <id> [--owner LOGIN] [--agent A]`: a maintainer's agreed recovery of an in-progress task. */
export function reassignTask(ctx: BoardContext, id: string, to: { owner?: string; agent?: string }): Authored {
  const board = boardOf(ctx);
  definitionOf(board, id);
  const entry = entryOf(board, id);
  const owner = ownerFor(to.owner ?? ctx.actor, to.agent);
  const item: HistoryEntry = { at: ctx.now, by: owner, action: "reassign", from: entry.status, to: "in_progress" };
  return judged(ctx, entryChange(ctx, board, [{ task: id, item }]), {
    task: id,
    owner,
    previous_owner: entry.owner,
    status: "in_progress",
  });
}

/**
 * `taskgate release-external <id>`: proposes blocked → todo for an external resolver; the release
 * takes effect when the coordinator approves the pull request.
 */
export function releaseExternal(ctx: BoardContext, id: string): Authored {
  const board = boardOf(ctx);
  definitionOf(board, id);
  const entry = entryOf(board, id);
  const item: HistoryEntry = { at: ctx.now, by: ctx.actor, action: "release", from: entry.status, to: "todo" };
  return judged(ctx, entryChange(ctx, board, [{ task: id, item }]), { task: id, status: "todo" });
}

/** A file at its canonical place: nothing to write when it is there already with this content. */
function place(
  snapshot: Snapshot,
  given: GivenFile,
  target: string,
  kind: string,
): { path: string; changes: FileChange[] } {
  if (given.repoPath === target) return { path: target, changes: [] };
  const existing = snapshot.files.get(target);
  if (existing?.kind === "file" && existing.text === given.content) return { path: target, changes: [] };
  if (existing && kind === "evidence") {
    refuse(
      violation("evidence-missing", {
        path: target,
        message: `${target} exists with other content; evidence is never overwritten`,
        hint: "Give the evidence file a name of its own.",
      }),
    );
  }
  return { path: target, changes: [{ path: target, content: given.content }] };
}

/** Evidence outside the evidence folder is copied there under its own name. */
function evidencePath(folder: string, given: GivenFile): string {
  if (given.repoPath?.startsWith(`${folder}/`) && !isSuspiciousPath(given.repoPath)) return given.repoPath;
  const name = given.name.split(/[\\/]/).pop() ?? "";
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes("..")) {
    refuse(
      violation("path-escape", {
        message: `the evidence file name "${name.slice(0, 80)}" cannot be used under ${folder}/`,
        hint: "Name evidence files with letters, digits, `.`, `_` and `-`.",
      }),
    );
  }
  return `${folder}/${name}`;
}

function isJson(text: string): boolean {
  if (tooDeep(text)) return false;
  try {
    JSON.parse(text.replace(/^\uFEFF/, ""));
    return true;
  } catch {
    return false;
  }
}

/** The resolver's definition from its JSON file: valid, and naming the resolver id given. */
function resolverDefinition(file: GivenFile, id: string, definitionsPath: string): Definition {
  const problem = (message: string, hint: string) =>
    refuse(violation("state-invalid", { task: id, message: `${file.name}: ${message}`, hint }));
  if (!isJson(file.content)) {
    problem("is not JSON", `Write the resolver's definition as one JSON object, as in ${definitionsPath}.`);
  }
  const raw = JSON.parse(file.content.replace(/^\uFEFF/, "")) as unknown;
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    problem("is not a JSON object", 'Write one task definition: {"title", "role", "stage", "reviewer_role", ...}.');
  }
  const named = (raw as { id?: unknown }).id;
  if (named !== undefined && named !== id) {
    problem(
      `names the task "${String(named)}", but --resolver says ${id}`,
      "Use the same id in both, or leave `id` out of the file.",
    );
  }
  const parsed = boardSchemas().DefinitionSchema.safeParse({ ...(raw as object), id });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    problem(
      `${issue.path.join(".") || "the definition"}: ${issue.message}`,
      "A definition needs title, role, stage and reviewer_role; depends_on, paths, outcome, steps, checks and external are optional.",
    );
  }
  return parsed.data!;
}

export interface TaskRow {
  readonly id: string;
  readonly title: string;
  readonly role: string;
  readonly stage: string;
  readonly status: Status;
  readonly owner: string | null;
  readonly depends_on: readonly string[];
  readonly external: boolean;
}

export interface ListFilter {
  readonly role?: string;
  readonly stage?: string;
  readonly status?: string;
  readonly query?: string;
  readonly limit?: number;
}

function rowOf(board: Board, definition: Definition): TaskRow {
  const entry = entryOf(board, definition.id);
  return {
    id: definition.id,
    title: definition.title,
    role: definition.role,
    stage: definition.stage,
    status: entry.status,
    owner: entry.owner,
    depends_on: definition.depends_on,
    external: definition.external,
  };
}

/** `taskgate list`: definitions in file order, filtered; `limit` rows at most. */
export function listTasks(ctx: Pick<BoardContext, "config" | "snapshot">, filter: ListFilter): TaskRow[] {
  const board = boardOf(ctx);
  if (filter.status !== undefined && !(STATUSES as readonly string[]).includes(filter.status)) {
    throw new AuthoringRefusal([
      violation("state-invalid", {
        message: `"${filter.status}" is not a status`,
        hint: `Statuses: ${STATUSES.join(", ")}.`,
      }),
    ]);
  }
  const query = filter.query?.toLowerCase();
  const rows: TaskRow[] = [];
  for (const definition of board.definitions.values()) {
    const row = rowOf(board, definition);
    if (filter.role !== undefined && row.role !== filter.role) continue;
    if (filter.stage !== undefined && row.stage !== filter.stage) continue;
    if (filter.status !== undefined && row.status !== filter.status) continue;
    if (
      query !== undefined &&
      ![definition.id, definition.title, definition.outcome].some((text) => text.toLowerCase().includes(query))
    ) {
      continue;
    }
    rows.push(row);
    if (filter.limit !== undefined && rows.length >= filter.limit) break;
  }
  return rows;
}

/** `taskgate next --role R`: the first task of the role a claim would be allowed on now. */
export function nextTask(ctx: Pick<BoardContext, "config" | "snapshot">, role: string): TaskRow | undefined {
  const board = boardOf(ctx);
  for (const definition of board.definitions.values()) {
    if (definition.role !== role) continue;
    const entry = entryOf(board, definition.id);
    if (entry.status !== "todo" || entry.external_wait) continue;
    if (definition.depends_on.some((dependency) => entryOf(board, dependency).status !== "done")) continue;
    return rowOf(board, definition);
  }
  return undefined;
}

/**
 * `taskgate packet <id>`: everything an executor needs in one Markdown file: the definition, the
 * dependencies with their handoffs, the scope and the checks.
 */
export function taskPacket(ctx: Pick<BoardContext, "config" | "snapshot">, id: string): string {
  const board = boardOf(ctx);
  const definition = definitionOf(board, id);
  const entry = entryOf(board, id);
  const options = board.options;
  const text = (path: string) => {
    const file = ctx.snapshot.files.get(path);
    return file?.kind === "file" ? file.text : undefined;
  };
  const list = (items: readonly string[], empty: string) =>
    items.length > 0 ? items.map((item) => `- ${item}`).join("\n") : `_${empty}_`;
  const out: string[] = [
    `# ${id}: ${definition.title}`,
    "",
    `- Role: ${definition.role} · stage: ${definition.stage} · reviewed by: ${definition.reviewer_role}`,
    `- Status: ${entry.status}${entry.owner ? ` (owner ${entry.owner})` : ""}${definition.external ? " · external" : ""}`,
    "",
    "## Outcome",
    "",
    definition.outcome || "_not stated_",
    "",
    "## Steps",
    "",
    definition.steps.length > 0
      ? definition.steps.map((step, index) => `${index + 1}. ${step}`).join("\n")
      : "_none listed_",
    "",
    "## Checks",
    "",
    list(definition.checks, "none listed"),
    "",
    "## Scope",
    "",
    "Files this task may change:",
    "",
    list(definition.paths, "no project files"),
    "",
    `Plus its own records: ${options.ledger} (its entry), ${handoffPath(options, id)}, evidence under ${options.evidence_dir}/, blocker reports under ${options.issues_dir}/.`,
    "",
    "## Dependencies",
  ];
  if (definition.depends_on.length === 0) out.push("", "_none_");
  for (const dependency of definition.depends_on) {
    const other = board.definitions.get(dependency);
    out.push("", `### ${dependency}: ${other?.title ?? "(unknown task)"} (${entryOf(board, dependency).status})`, "");
    const handoff = text(handoffPath(options, dependency));
    out.push(handoff?.trim() ? handoff.trim() : "_no handoff_");
  }
  if (entry.blocked_by.length > 0) {
    out.push(
      "",
      "## Blocked by",
      "",
      list(
        entry.blocked_by.map((resolver) => `${resolver} (${entryOf(board, resolver).status})`),
        "",
      ),
    );
  }
  const own = text(handoffPath(options, id));
  if (own?.trim()) out.push("", "## Handoff so far", "", own.trim());
  return `${out.join("\n")}\n`;
}

/** `taskgate can-edit` on a board: may the acting owner's pull request change this file now? */
export interface BoardEditAnswer {
  readonly path: string;
  /** The acting task: the one named, or the one in progress (or in review) the owner holds. */
  readonly task: string | null;
  /** Who acts: `login` or `login/agent`. */
  readonly owner: string;
  readonly allowed: boolean;
  readonly kind: BoardFileVerdict["kind"] | "invalid";
  readonly code?: Violation["code"];
  readonly reason: string;
  readonly hint?: string;
}

/** What the acting owner works on: `task` if named, else the one task in progress or review they hold. */
export interface ActingOwner {
  readonly task?: string | undefined;
  readonly agent?: string | undefined;
}

/**
 * The answer `boardFileRule` gives for one file, for a pull request of the acting owner that carries
 * the acting task (in progress or in review, owned by them): the rule the check applies to every
 * changed file. Without an acting task a pull request works on no task (`task-missing`).
 */
export function boardCanEdit(
  ctx: Pick<BoardContext, "config" | "snapshot" | "actor">,
  path: string,
  acting: ActingOwner,
): BoardEditAnswer {
  return boardEditor(ctx.config, ctx.snapshot)(path, ctx.actor, acting);
}

/** Who may edit what on one board: `boardCanEdit` with the board read once, for many questions. */
export type BoardEditor = (path: string, actor: string, acting: ActingOwner) => BoardEditAnswer;

export function boardEditor(config: Config, snapshot: Snapshot): BoardEditor {
  const board = readBoard(snapshot, config.board);
  return (path, actor, acting) => editAnswer(config, board, path, actor, acting);
}

function editAnswer(config: Config, board: Board, path: string, actor: string, acting: ActingOwner): BoardEditAnswer {
  const ctx = { config };
  const owner = acting.agent !== undefined ? `${actor}/${acting.agent}` : actor;
  const answer = (
    allowed: boolean,
    task: string | null,
    kind: BoardEditAnswer["kind"],
    reason: string,
    extra = {},
  ) => ({
    path,
    task,
    owner,
    allowed,
    kind,
    reason,
    ...extra,
  });
  if (isSuspiciousPath(path) || path.includes("\0")) {
    return answer(false, acting.task ?? null, "invalid", `${path} is not a plain repository path`, {
      code: "path-escape",
      hint: "Use a path relative to the repository root, without `.`, `..` or empty segments.",
    });
  }
  const broken = board.problems[0];
  if (broken) {
    return answer(false, acting.task ?? null, "board", broken.message, {
      code: broken.code,
      ...(broken.hint !== undefined && { hint: broken.hint }),
    });
  }
  const found = actingTask(board, owner, acting);
  if (typeof found !== "string") {
    // A pull request of no task may still carry rendered status files alone (see `taskMissing`).
    const kind = boardFileRule(ctx.config, board, new Set(), new Set())(path).kind;
    if (kind === "rendered") return answer(true, found.task, kind, ...allowedReason(board, "", path, kind));
    return answer(false, found.task, kind, found.reason, found.extra);
  }
  const verdict = boardFileRule(ctx.config, board, new Set([found]), new Set([found]))(path);
  if (verdict.violation) {
    return answer(false, found, verdict.kind, verdict.violation.message, {
      code: verdict.violation.code,
      ...(verdict.violation.hint !== undefined && { hint: verdict.violation.hint }),
    });
  }
  return answer(true, found, verdict.kind, ...allowedReason(board, found, path, verdict.kind));
}

function allowedReason(board: Board, task: string, path: string, kind: BoardFileVerdict["kind"]): [string, object] {
  const options = board.options;
  switch (kind) {
    case "board":
      return [
        `${path} is the board's ${path === options.ledger ? "ledger" : "definitions"}; its entries are judged by the pull-request rules`,
        { hint: "Change it with `taskgate claim`, `submit` or `escalate`, which judge the change before writing." },
      ];
    case "metadata":
      return [`${path} is evidence, a handoff or an issue report of ${task}`, {}];
    case "rendered":
      return [
        `${path} is a rendered status file: derived, within every scope`,
        { hint: "`taskgate render` writes it." },
      ];
    default:
      return [`${path} is inside the paths of ${task}`, {}];
  }
}

/** The acting task's id, or why there is none (an answer of `task-missing`). */
function actingTask(
  board: Board,
  owner: string,
  acting: ActingOwner,
): string | { task: string | null; reason: string; extra: { code: Violation["code"]; hint: string } } {
  const holds = (entryOwner: string | null | undefined) =>
    !!entryOwner && (acting.agent !== undefined ? sameOwner(entryOwner, owner) : ownedBy(entryOwner, owner));
  const claim = (id: string) =>
    `Claim it first: \`taskgate claim ${id}${acting.agent ? ` --agent ${acting.agent}` : ""}\`.`;
  if (acting.task !== undefined) {
    if (!board.definitions.has(acting.task)) {
      const near = closest(acting.task, [...board.definitions.keys()]);
      return {
        task: acting.task,
        reason: `there is no task ${acting.task} in ${board.options.definitions}`,
        extra: { code: "task-missing", hint: near ? `Did you mean ${near}?` : "List the tasks with `taskgate list`." },
      };
    }
    const entry = entryOf(board, acting.task);
    if (UNFINISHED.has(entry.status) && holds(entry.owner)) return acting.task;
    return {
      task: acting.task,
      reason: `${acting.task} is ${entry.status}${entry.owner ? `, owned by ${entry.owner}` : ""}: not in progress for ${owner}`,
      extra: {
        code: "task-missing",
        hint: entry.status === "todo" ? claim(acting.task) : "Work on a task you hold in progress.",
      },
    };
  }
  const held = Object.entries(board.ledger.tasks)
    .filter(([, entry]) => UNFINISHED.has(entry.status) && holds(entry.owner))
    .map(([id]) => id)
    .sort();
  if (held.length === 1) return held[0]!;
  return {
    task: null,
    reason:
      held.length === 0
        ? `${owner} holds no task in progress, so a pull request of theirs works on no task`
        : `${owner} holds ${held.length} tasks in progress (${held.slice(0, 5).join(", ")}): name the one this edit is for`,
    extra: {
      code: "task-missing",
      hint:
        held.length === 0
          ? `${claim("<task-id>")} \`taskgate next --role ROLE\` finds one.`
          : "Pass --task <task-id> (or set TASKGATE_TASK), or --agent <agent-id> (or TASKGATE_AGENT).",
    },
  };
}
