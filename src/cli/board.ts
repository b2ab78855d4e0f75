/**
 * The verbs of the board preset: the read-only `next`, `list` and `packet`, and `claim`, `submit`,
 * `escalate`, `reassign` and `release-external`, each one judged change for the acting owner.
 */
import { resolve, relative, sep } from "node:path";
import {
  RepositoryError,
  STATUSES,
  claimTask,
  escalateTask,
  isLogin,
  listTasks,
  nextTask,
  reassignTask,
  redactSecrets,
  releaseExternal as releaseExternalTask,
  submitTask,
  taskPacket,
  type Authored,
  type BoardContext,
  type Snapshot,
  type TaskRow,
} from "../core/index.js";
import { writeAtomic } from "../git/local-files.js";
import {
  actorOf,
  given,
  mutate,
  one,
  openWorkspace,
  option,
  readTree,
  refusable,
  type Summary,
  type Workspace,
} from "./authoring.js";
import type { CommandRun } from "./commands.js";
import { EXIT, UsageError } from "./io.js";

/** `next --role ROLE`: the first task of the role that can be claimed now. */
export async function next(run: CommandRun): Promise<number> {
  const ws = await openWorkspace(run);
  const role = option(run, "role");
  if (!role) throw new UsageError("next needs --role ROLE");
  noArguments(run);
  const row = nextTask({ config: ws.config, snapshot: await readTree(ws) }, role);
  if (run.json) run.printJson({ task: row ?? null });
  else run.io.stdout(row ? `${formatRow(row)}\n` : `nothing to claim for role ${role} now\n`);
  return EXIT.ok;
}

/** `list [--role R] [--stage S] [--status X] [--query Q] [--limit N]`: tasks in the definitions' order. */
export async function list(run: CommandRun): Promise<number> {
  const ws = await openWorkspace(run);
  noArguments(run);
  const [role, stage, status, query, limitText] = ["role", "stage", "status", "query", "limit"].map((name) =>
    option(run, name),
  );
  if (status !== undefined && !(STATUSES as readonly string[]).includes(status)) {
    throw new UsageError(`--status "${status}" is not a status: ${STATUSES.join(", ")}`);
  }
  const limit = limitText === undefined ? undefined : Number(limitText);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new UsageError(`--limit must be a whole number above 0, not "${limitText}"`);
  }
  const rows = await refusable(run, async () =>
    listTasks(
      { config: ws.config, snapshot: await readTree(ws) },
      {
        ...(role !== undefined && { role }),
        ...(stage !== undefined && { stage }),
        ...(status !== undefined && { status }),
        ...(query !== undefined && { query }),
        ...(limit !== undefined && { limit }),
      },
    ),
  );
  if (typeof rows === "number") return rows;
  if (run.json) run.printJson({ tasks: rows });
  else run.io.stdout(rows.length > 0 ? rows.map((row) => `${formatRow(row)}\n`).join("") : "no task matches\n");
  return EXIT.ok;
}

/** `packet <task-id> [--output FILE]`: the task's context packet, printed or written. */
export async function packet(run: CommandRun): Promise<number> {
  const ws = await openWorkspace(run);
  const id = one(run, "task id");
  const packet = await refusable(run, async () => taskPacket({ config: ws.config, snapshot: await readTree(ws) }, id));
  if (typeof packet === "number") return packet;
  const text = redactSecrets(packet);
  const output = option(run, "output");
  if (output) {
    const target = resolve(run.io.cwd, output);
    refuseStoreTarget(ws, target);
    await writePacket(target, text);
    if (run.json) run.printJson({ task: id, output: target });
    else run.io.stdout(`taskgate packet: wrote ${target}\n`);
  } else if (run.json) run.printJson({ task: id, packet: text });
  else run.io.stdout(text);
  return EXIT.ok;
}

/** `claim <task-id> [--agent A]`: todo → in_progress. */
export async function claim(run: CommandRun): Promise<number> {
  return boardChange(
    run,
    async (context, id) => (snapshot) => claimTask(context(snapshot), id, option(run, "agent")),
    (facts) => `${String(facts.task ?? "")} is in_progress, owned by ${String(facts.owner)}`,
  );
}

/** `submit <task-id> --evidence FILE --handoff FILE [--agent A]`: in_progress → review. */
export async function submit(run: CommandRun): Promise<number> {
  return boardChange(
    run,
    async (context, id, ws) => {
      const evidence = await given(run, ws.root, need(run, "evidence"));
      const handoff = await given(run, ws.root, need(run, "handoff"));
      return (snapshot) => submitTask(context(snapshot), id, { evidence, handoff }, option(run, "agent"));
    },
    (facts) =>
      `${String(facts.task ?? "")} is in review (evidence ${String(facts.evidence)}, handoff ${String(facts.handoff)})`,
  );
}

/** `escalate <task-id> --issue FILE --handoff FILE --resolver NEW-ID --definition FILE`: in_progress → blocked. */
export async function escalate(run: CommandRun): Promise<number> {
  return boardChange(
    run,
    async (context, id, ws) => {
      const issue = await given(run, ws.root, need(run, "issue"));
      const handoff = await given(run, ws.root, need(run, "handoff"));
      const resolver = need(run, "resolver");
      const definition = await given(run, ws.root, need(run, "definition"));
      const escalation = { issue, handoff, resolver, definition };
      return (snapshot) => escalateTask(context(snapshot), id, escalation, option(run, "agent"));
    },
    (facts) =>
      `${String(facts.task ?? "")} is blocked until ${String(facts.resolution_task)} is done; ${String(facts.owner)} is retired`,
  );
}

/** `reassign <task-id> [--owner LOGIN] [--agent A]`: a maintainer's recovery of an in-progress task. */
export async function reassign(run: CommandRun): Promise<number> {
  return boardChange(
    run,
    async (context, id) => {
      const owner = option(run, "owner");
      const agent = option(run, "agent");
      if (owner !== undefined && !isLogin(owner)) throw new UsageError(`--owner "${owner}" is not a GitHub login`);
      const to = { ...(owner !== undefined && { owner }), ...(agent !== undefined && { agent }) };
      return (snapshot) => reassignTask(context(snapshot), id, to);
    },
    (facts) => `${String(facts.task ?? "")} is now owned by ${String(facts.owner)}`,
  );
}

/** `release-external <task-id>`: blocked → todo, once the coordinator approves. */
export async function releaseExternal(run: CommandRun): Promise<number> {
  return boardChange(
    run,
    async (context, id) => (snapshot) => releaseExternalTask(context(snapshot), id),
    (facts) => `${String(facts.task ?? "")} is released to todo once the coordinator approves the pull request`,
  );
}

type Context = (snapshot: Snapshot) => BoardContext;

/**
 * One change of the ledger for the acting owner: the workspace, the task id, the actor and the time,
 * then what `prepare` reads from the command line, then the change judged and written.
 */
async function boardChange(
  run: CommandRun,
  prepare: (context: Context, id: string, ws: Workspace) => Promise<(snapshot: Snapshot) => Authored>,
  summary: Summary,
): Promise<number> {
  const ws = await openWorkspace(run);
  const id = one(run, "task id");
  const actor = await actorOf(run, ws, true);
  const now = (run.now ?? (() => new Date()))()
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z");
  const context: Context = (snapshot) => ({ config: ws.config, snapshot, actor, now });
  return mutate(run, ws, await prepare(context, id, ws), summary);
}

/** A required file option (or `--resolver ID`). */
function need(run: CommandRun, name: string): string {
  const value = option(run, name);
  if (!value) throw new UsageError(`${run.verb.name} needs --${name} ${name === "resolver" ? "ID" : "FILE"}`);
  return value;
}

function noArguments(run: CommandRun): void {
  if (run.positionals.length > 0) throw new UsageError(`unexpected argument "${run.positionals[0]}"`);
}

function formatRow(row: TaskRow): string {
  return `${row.id}  ${row.status}${row.owner ? ` (${row.owner})` : ""}  [${row.role} · ${row.stage}]  ${row.title}`;
}

/**
 * The packet is a working file, never part of the task store: refuse a target inside `.git` or on a
 * file the workflow reads (the config, the definitions, the ledger, the board's folders, the
 * rendered files), which only the judged commands may change.
 */
function refuseStoreTarget(ws: Workspace, target: string): void {
  const inside = relative(ws.root, target);
  if (inside.startsWith("..") || resolve(ws.root, inside) !== target) return;
  const path = inside.split(sep).join("/");
  const scope = ws.model.auditScope();
  const store =
    path === ".git" ||
    path.startsWith(".git/") ||
    scope.paths.includes(path) ||
    scope.prefixes.some((prefix) => path.startsWith(prefix) || `${path}/` === prefix);
  if (store) {
    throw new RepositoryError(
      `refusing to write the packet to ${path}: it is part of the task store`,
      "Write the packet somewhere else (outside the checkout, or a file the workflow does not read).",
    );
  }
}

/** Writes the packet (outside the task store) atomically; its folder must exist. */
async function writePacket(path: string, text: string): Promise<void> {
  try {
    await writeAtomic(path, text);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new RepositoryError(
      `cannot write ${path}${code ? ` (${code})` : ""}`,
      "Check that the folder exists and can be written to.",
    );
  }
}
