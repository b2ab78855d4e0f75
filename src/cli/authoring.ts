/**
 * The authoring commands of the CLI: every legal change to the task store without editing its files
 * by hand. Each reads the work tree, lets the core build and judge the change, and writes it in one
 * crash-safe transaction under the checkout's lock, or writes nothing and reports the violations
 * the pull-request check would report.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { appendFile, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import {
  type Authored,
  AuthoringRefusal,
  type BoardContext,
  canEdit,
  claimTask,
  type Config,
  escalateTask,
  type GivenFile,
  isLogin,
  listTasks,
  loadConfig,
  moveTask,
  newTask,
  nextTask,
  readLimits,
  reassignTask,
  redactSecrets,
  releaseExternal,
  RepositoryError,
  STATUSES,
  submitTask,
  taskPacket,
  type TaskRow,
  taskScope,
  upgradeTasks,
} from "../core/index.js";
import type { Report, Snapshot, Violation, WorkflowModel } from "../core/index.js";
import { GitRepository } from "../git/repository.js";
import { JOURNAL_FILE, LOCK_FILE, UNLOCK_LOG, recover, transaction, unlock } from "../git/transaction.js";
import { WorkTree } from "../git/worktree.js";
import { BOARD_COMMANDS, PHASES_COMMANDS } from "./commands.js";
import { formatItem } from "./format.js";
import { EXIT, IdentityError, UsageError, type CliIo } from "./io.js";

export { AUTHORING_COMMANDS } from "./commands.js";
export { IdentityError } from "./io.js";

/** The options the authoring commands read (parsed by main.ts). */
export interface AuthoringValues {
  readonly as?: string;
  readonly agent?: string;
  readonly role?: string;
  readonly stage?: string;
  readonly status?: string;
  readonly query?: string;
  readonly limit?: string;
  readonly output?: string;
  readonly evidence?: string;
  readonly handoff?: string;
  readonly issue?: string;
  readonly resolver?: string;
  readonly definition?: string;
  readonly task?: string;
  readonly owner?: string;
  readonly reason?: string;
}

export interface AuthoringRun {
  readonly command: string;
  readonly values: AuthoringValues;
  readonly positionals: readonly string[];
  readonly repoDir: string;
  readonly io: CliIo;
  readonly json: boolean;
  /** Prints a JSON value (redacted value by value). */
  readonly printJson: (value: unknown) => void;
  /** The clock, for history entries. */
  readonly now?: () => Date;
}

/** Files the transaction keeps in the checkout: never part of a change, kept out of git. */
const LOCAL_FILES = [LOCK_FILE, JOURNAL_FILE, UNLOCK_LOG, "*.taskgate.tmp"];

interface Workspace {
  readonly repo: GitRepository;
  readonly root: string;
  readonly tree: WorkTree;
  readonly config: Config;
  readonly model: WorkflowModel;
}

export async function runAuthoring(run: AuthoringRun): Promise<number> {
  const { command, positionals } = run;
  const repo = await GitRepository.open(run.repoDir);
  const root = await repo.workTreeRoot();
  await refuseCommittedLocalFiles(repo);
  if (command === "unlock") return unlockCommand(run, root);
  const tree = new WorkTree(root);
  // A transaction cut short by a crash is completed before anything reads the work tree.
  if (existsSync(join(root, JOURNAL_FILE))) {
    const recovery = await recover(root, command);
    if (recovery.kind === "completed") {
      run.io.stderr(`taskgate: completed an interrupted change (${recovery.files.join(", ")})\n`);
    }
  }
  const loaded = await loadConfig(tree, "work tree");
  if (!loaded) {
    throw new UsageError(`taskgate is not configured in ${root} (no .github/taskgate.yml)`);
  }
  const ws: Workspace = { repo, root, tree, config: loaded.config, model: loaded.model };
  const preset = loaded.model.name;
  if (PHASES_COMMANDS.has(command) && preset !== "phases") {
    throw new UsageError(`\`${command}\` is a command of the phases preset; this repository uses the ${preset} preset`);
  }
  if (BOARD_COMMANDS.has(command) && preset !== "board") {
    throw new UsageError(`\`${command}\` is a command of the board preset; this repository uses the ${preset} preset`);
  }
  const one = (what: string) => {
    if (positionals.length !== 1) throw new UsageError(`${command} needs exactly one ${what}`);
    return positionals[0]!;
  };
  switch (command) {
    case "new": {
      const id = one("task id");
      const actor = await actorOf(run, repo, false);
      return mutate(run, ws, (snapshot) => newTask({ config: ws.config, snapshot, actor }, id));
    }
    case "move": {
      if (positionals.length !== 2) throw new UsageError("move needs a task id and a state");
      const [id, state] = positionals as [string, string];
      const actor = await actorOf(run, repo, false);
      return mutate(run, ws, (snapshot) => moveTask({ config: ws.config, snapshot, actor }, id, state));
    }
    case "upgrade": {
      const actor = await actorOf(run, repo, false);
      return mutate(run, ws, (snapshot) => upgradeTasks({ config: ws.config, snapshot, actor }, positionals));
    }
    case "can-edit": {
      const path = repoPath(run, root, one("file"));
      const snapshot = await readTree(ws);
      const answer = canEdit({ config: ws.config, snapshot }, path, run.values.task);
      if (run.json) run.printJson(answer);
      else {
        run.io.stdout(
          `${answer.allowed ? "yes" : "no"}: ${answer.reason}${answer.code ? ` (${answer.code})` : ""}\n` +
            (answer.hint ? `  hint: ${answer.hint}\n` : ""),
        );
      }
      return answer.allowed ? EXIT.ok : EXIT.failure;
    }
    case "scope": {
      const scope = taskScope({ config: ws.config, snapshot: await readTree(ws) }, one("task id"));
      if (run.json) run.printJson(scope);
      else {
        run.io.stdout(
          [
            `task ${scope.task} at ${scope.state}`,
            "  may edit:",
            ...scope.editable.map((item) => `    ${item}`),
            "  out of scope:",
            ...scope.outOfScope.map((item) => `    ${item}`),
            `  rendered (derived, in every scope): ${scope.rendered}`,
          ].join("\n") + "\n",
        );
      }
      return EXIT.ok;
    }
    case "next": {
      if (!run.values.role) throw new UsageError("next needs --role ROLE");
      if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
      const row = nextTask({ config: ws.config, snapshot: await readTree(ws) }, run.values.role);
      if (run.json) run.printJson({ task: row ?? null });
      else run.io.stdout(row ? `${formatRow(row)}\n` : `nothing to claim for role ${run.values.role} now\n`);
      return EXIT.ok;
    }
    case "list": {
      if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
      if (run.values.status !== undefined && !(STATUSES as readonly string[]).includes(run.values.status)) {
        throw new UsageError(`--status "${run.values.status}" is not a status: ${STATUSES.join(", ")}`);
      }
      const limit = run.values.limit === undefined ? undefined : Number(run.values.limit);
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
        throw new UsageError(`--limit must be a whole number above 0, not "${run.values.limit}"`);
      }
      const rows = await refusable(run, async () =>
        listTasks(
          { config: ws.config, snapshot: await readTree(ws) },
          {
            ...(run.values.role !== undefined && { role: run.values.role }),
            ...(run.values.stage !== undefined && { stage: run.values.stage }),
            ...(run.values.status !== undefined && { status: run.values.status }),
            ...(run.values.query !== undefined && { query: run.values.query }),
            ...(limit !== undefined && { limit }),
          },
        ),
      );
      if (typeof rows === "number") return rows;
      if (run.json) run.printJson({ tasks: rows });
      else run.io.stdout(rows.length > 0 ? rows.map((row) => `${formatRow(row)}\n`).join("") : "no task matches\n");
      return EXIT.ok;
    }
    case "packet": {
      const id = one("task id");
      const packet = await refusable(run, async () =>
        taskPacket({ config: ws.config, snapshot: await readTree(ws) }, id),
      );
      if (typeof packet === "number") return packet;
      const text = redactSecrets(packet);
      if (run.values.output) {
        const target = resolve(run.io.cwd, run.values.output);
        refuseStoreTarget(ws, target);
        await writeAtomic(target, text);
        if (run.json) run.printJson({ task: id, output: target });
        else run.io.stdout(`taskgate packet: wrote ${target}\n`);
      } else if (run.json) run.printJson({ task: id, packet: text });
      else run.io.stdout(text);
      return EXIT.ok;
    }
    default:
      return boardMutation(run, ws, one);
  }
}

async function boardMutation(run: AuthoringRun, ws: Workspace, one: (what: string) => string): Promise<number> {
  const { command, values } = run;
  const id = one("task id");
  const actor = await actorOf(run, ws.repo, true);
  const now = (run.now ?? (() => new Date()))()
    .toISOString()
    .replace(/\.\d{3}Z$/, "Z");
  const context = (snapshot: Snapshot): BoardContext => ({ config: ws.config, snapshot, actor, now });
  const need = (option: keyof AuthoringValues) => {
    const value = values[option];
    if (!value) throw new UsageError(`${command} needs --${option} ${option === "resolver" ? "ID" : "FILE"}`);
    return value;
  };
  switch (command) {
    case "claim":
      return mutate(run, ws, (snapshot) => claimTask(context(snapshot), id, values.agent));
    case "submit": {
      const evidence = await given(run, ws.root, need("evidence"));
      const handoff = await given(run, ws.root, need("handoff"));
      return mutate(run, ws, (snapshot) => submitTask(context(snapshot), id, { evidence, handoff }, values.agent));
    }
    case "escalate": {
      const issue = await given(run, ws.root, need("issue"));
      const handoff = await given(run, ws.root, need("handoff"));
      const resolver = need("resolver");
      const definition = await given(run, ws.root, need("definition"));
      return mutate(run, ws, (snapshot) =>
        escalateTask(context(snapshot), id, { issue, handoff, resolver, definition }, values.agent),
      );
    }
    case "reassign":
      if (values.owner !== undefined && !isLogin(values.owner)) {
        throw new UsageError(`--owner "${values.owner}" is not a GitHub login`);
      }
      return mutate(run, ws, (snapshot) =>
        reassignTask(context(snapshot), id, {
          ...(values.owner !== undefined && { owner: values.owner }),
          ...(values.agent !== undefined && { agent: values.agent }),
        }),
      );
    case "release-external":
      return mutate(run, ws, (snapshot) => releaseExternal(context(snapshot), id));
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** The acting GitHub login: --as, else TASKGATE_LOGIN, else git's github.user. */
async function actorOf(run: AuthoringRun, repo: GitRepository, required: boolean): Promise<string> {
  const [login, from] =
    run.values.as !== undefined
      ? [run.values.as, "--as"]
      : run.io.env?.TASKGATE_LOGIN
        ? [run.io.env.TASKGATE_LOGIN, "TASKGATE_LOGIN"]
        : [await repo.configValue("github.user"), "git config github.user"];
  if (!login) {
    if (required) throw new IdentityError(`\`${run.command}\` acts for someone, but no GitHub login is known`);
    return "unknown";
  }
  if (!isLogin(login)) throw new UsageError(`"${login}" (from ${from}) is not a GitHub login`);
  return login;
}

/** Reads the part of the work tree the workflow keeps its tasks in. */
async function readTree(ws: Workspace): Promise<Snapshot> {
  return ws.tree.readSnapshot("work tree", ws.model.auditScope(), readLimits(ws.config));
}

class Refused extends Error {
  constructor(readonly authored: Authored) {
    super("refused");
  }
}

/** Builds, judges and writes one change, all under the checkout's lock. */
async function mutate(run: AuthoringRun, ws: Workspace, build: (snapshot: Snapshot) => Authored): Promise<number> {
  await keepOutOfGit(ws.repo);
  let authored: Authored | undefined;
  try {
    const { recovery, applied } = await transaction(ws.root, run.command, async () => {
      authored = build(await readTree(ws));
      if (authored.report.violations.length > 0) throw new Refused(authored);
      return authored.changes;
    });
    if (recovery.kind === "completed") {
      run.io.stderr(`taskgate: completed an interrupted change first (${recovery.files.join(", ")})\n`);
    }
    return printDone(
      run,
      authored!,
      applied.map((change) => change.path),
    );
  } catch (error) {
    if (error instanceof Refused) return printRefusal(run, error.authored.report.violations, error.authored.report);
    if (error instanceof AuthoringRefusal) return printRefusal(run, error.violations);
    throw error;
  }
}

/** Runs a read-only builder, printing its refusal (exit 1) instead of throwing. */
async function refusable<T>(run: AuthoringRun, build: () => Promise<T>): Promise<T | number> {
  try {
    return await build();
  } catch (error) {
    if (error instanceof AuthoringRefusal) return printRefusal(run, error.violations);
    throw error;
  }
}

function printDone(run: AuthoringRun, authored: Authored, written: readonly string[]): number {
  const { report, facts } = authored;
  if (run.json) {
    run.printJson({
      command: run.command,
      ok: true,
      ...facts,
      written,
      pending: report.pending,
      transitions: report.transitions,
    });
    return EXIT.ok;
  }
  const out = [`taskgate ${run.command}: ${summaryOf(run.command, facts)}`];
  if (written.length === 0) out.push("  nothing to write: the work tree already says so");
  for (const path of written) out.push(`  wrote ${path}`);
  for (const item of report.pending) out.push(`  pending: ${formatItem(item)}`);
  if (facts.agent_must_exit === true) {
    out.push(`resolution_task: ${String(facts.resolution_task)}`, "agent_must_exit: true");
  }
  run.io.stdout(`${out.join("\n")}\n`);
  return EXIT.ok;
}

function printRefusal(run: AuthoringRun, violations: readonly Violation[], report?: Report): number {
  if (run.json) {
    run.printJson({
      command: run.command,
      ok: false,
      written: [],
      violations,
      pending: report?.pending ?? [],
    });
  } else {
    const lines = [
      `taskgate ${run.command}: refused, nothing written`,
      ...violations.map((item) => `  ${formatItem(item)}`),
    ];
    run.io.stdout(`${lines.join("\n")}\n`);
  }
  return EXIT.failure;
}

function summaryOf(command: string, facts: Readonly<Record<string, unknown>>): string {
  const task = String(facts.task ?? "");
  switch (command) {
    case "new":
      return `created ${task} at ${String(facts.state)}`;
    case "move":
      return `${task} moved ${String(facts.from)} → ${String(facts.to)}`;
    case "upgrade": {
      const tasks = (facts.tasks as { task: string; state: string; from: string; adopted: boolean }[]) ?? [];
      if (tasks.length === 0) return "every task folder already has a .state file";
      const groups = new Map<string, { from: string; adopted: boolean; ids: string[] }>();
      for (const item of tasks) {
        const group = groups.get(item.state) ?? { from: item.from, adopted: item.adopted, ids: [] };
        group.ids.push(item.task);
        groups.set(item.state, group);
      }
      const adopted = tasks.filter((item) => item.adopted).length;
      return [
        `tracked ${tasks.length} folder(s)` +
          (adopted > 0 ? `; ${adopted} past a gate, adopted once a review approves the pull request` : ""),
        ...[...groups].map(
          ([state, group]) =>
            `  at ${state} (${group.from}${group.adopted ? ", adopted" : ""}): ${group.ids.join(", ")}`,
        ),
      ].join("\n");
    }
    case "claim":
      return `${task} is in_progress, owned by ${String(facts.owner)}`;
    case "submit":
      return `${task} is in review (evidence ${String(facts.evidence)}, handoff ${String(facts.handoff)})`;
    case "escalate":
      return `${task} is blocked until ${String(facts.resolution_task)} is done; ${String(facts.owner)} is retired`;
    case "reassign":
      return `${task} is now owned by ${String(facts.owner)}`;
    case "release-external":
      return `${task} is released to todo once the coordinator approves the pull request`;
    default:
      return "done";
  }
}

function formatRow(row: TaskRow): string {
  return `${row.id}  ${row.status}${row.owner ? ` (${row.owner})` : ""}  [${row.role} · ${row.stage}]  ${row.title}`;
}

/** A path given on the command line, as a repository path (relative to the checkout's root). */
function repoPath(run: AuthoringRun, root: string, given: string): string {
  const absolute = resolve(run.io.cwd, given);
  const inside = relative(root, absolute);
  if (inside.startsWith("..") || resolve(root, inside) !== absolute) {
    throw new UsageError(`${given} is outside the checkout ${root}`);
  }
  return inside.split(sep).join("/");
}

/** A file handed to a command: its text, and its repository path when it is inside the checkout. */
async function given(run: AuthoringRun, root: string, path: string): Promise<GivenFile> {
  const absolute = resolve(run.io.cwd, path);
  let content: string;
  try {
    content = await readFile(absolute, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${path}${code ? ` (${code})` : ""}`);
  }
  const inside = relative(root, absolute);
  const repoPath = inside.startsWith("..") || inside === "" ? undefined : inside.split(sep).join("/");
  return { name: basename(absolute), content, ...(repoPath !== undefined && { repoPath }) };
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

/** Writes a file outside the task store atomically (the packet). */
async function writeAtomic(path: string, text: string): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomUUID()}.tmp`);
  try {
    await writeFile(temporary, text, { flag: "wx" });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    const code = (error as NodeJS.ErrnoException).code;
    throw new RepositoryError(
      `cannot write ${path}${code ? ` (${code})` : ""}`,
      "Check that the folder exists and can be written to.",
    );
  }
}

/**
 * A journal that came with a checkout (committed by someone) would make the next command rewrite
 * files of whoever runs it; a committed lock would stop everyone. These files are local: refuse to
 * run while git tracks any of them.
 */
async function refuseCommittedLocalFiles(repo: GitRepository): Promise<void> {
  const committed = await repo.tracked([LOCK_FILE, JOURNAL_FILE, UNLOCK_LOG]);
  if (committed.length === 0) return;
  throw new RepositoryError(
    `${committed.join(", ")} ${committed.length > 1 ? "are" : "is"} committed to the repository; taskgate keeps these files local, and will not act on a journal or a lock that came with a checkout`,
    `Remove ${committed.length > 1 ? "them" : "it"} from the repository (\`git rm --cached ${committed.join(" ")}\`, then delete the file) and commit that; look at what the journal would have written first.`,
  );
}

/** The lock, the journal and the unlock log stay out of commits: listed in .git/info/exclude. */
async function keepOutOfGit(repo: GitRepository): Promise<void> {
  const exclude = await repo.gitPath("info/exclude");
  const text = await readFile(exclude, "utf8").catch(() => "");
  const lines = new Set(text.split("\n").map((line) => line.trim()));
  const missing = LOCAL_FILES.map((name) => (name.startsWith("*") ? name : `/${name}`)).filter(
    (line) => !lines.has(line),
  );
  if (missing.length === 0) return;
  await mkdir(dirname(exclude), { recursive: true });
  const prefix = text === "" || text.endsWith("\n") ? "" : "\n";
  await appendFile(exclude, `${prefix}# taskgate's lock, journal and unlock log\n${missing.join("\n")}\n`);
}

async function unlockCommand(run: AuthoringRun, root: string): Promise<number> {
  if (run.positionals.length > 0) throw new UsageError(`unexpected argument "${run.positionals[0]}"`);
  const reason = run.values.reason?.trim();
  if (!reason) throw new UsageError('unlock needs --reason "why the lock is stale"');
  const result = await unlock(root, reason, ...(run.now ? [{ now: run.now }] : []));
  if (run.json) run.printJson(result);
  else run.io.stdout(`taskgate unlock: ${result.message}\n`);
  return EXIT.ok;
}
