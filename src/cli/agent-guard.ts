/**
 * The guard before an edit: `taskgate can-edit` for both presets, and what the agent integrations
 * ask before every write. One answer, one JSON contract (docs/agents.md): may the acting task's pull
 * request change this file, and if not, why, how to fix it and what to do instead. The answer comes
 * from the rule the pull-request check applies to each changed file (phases: `canEdit` over the
 * check's path classifier; board: `boardFileRule`), so what the guard allows the check accepts.
 *
 * It reads only what the answer needs, from the work tree: the config, and on a board the
 * definitions and the ledger, on phases the acting task's folder (every `.state` only when no task
 * is named and a project file is asked about). It writes nothing and takes no lock.
 */
import { realpathSync } from "node:fs";
import { lstat, readFile, readdir } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import {
  AuthoringRefusal,
  CONFIG_PATH,
  STATE_FILE,
  boardEditor,
  canEdit,
  isLogin,
  loadConfig,
  readLimits,
  type Config,
  type BoardEditor,
  type Loaded,
  type Snapshot,
  type SnapshotScope,
  type WorkflowModel,
} from "../core/index.js";
import { RepositoryError } from "../core/index.js";
import { GitRepository } from "../git/repository.js";
import { WorkTree } from "../git/worktree.js";
import { resolveActor } from "./actor.js";
import type { CommandRun } from "./commands.js";
import { EXIT, IdentityError, UsageError, type CliIo } from "./io.js";

/** What to do instead of a refused edit: a machine-readable action and a sentence for the agent. */
export interface Instead {
  readonly action:
    | "claim"
    | "move"
    | "separate-task"
    | "escalate"
    | "ask-maintainer"
    | "other-task"
    | "review"
    | "none";
  readonly text: string;
}

/** The answer to one file: the JSON `can-edit --json` prints and the integrations relay. */
export interface EditAnswer {
  /** The repository path judged (after `..` and symlinks are resolved), or the path as given. */
  readonly path: string;
  readonly task: string | null;
  readonly allowed: boolean;
  readonly kind: string;
  readonly code: string | null;
  readonly reason: string;
  readonly hint: string | null;
  readonly instead: Instead | null;
  /** Who acts on a board (`login` or `login/agent`); `null` on phases. */
  readonly agent: string | null;
  readonly preset: "phases" | "board" | null;
  /** `false` when the repository has no taskgate config: every edit is allowed, and the answer says so. */
  readonly configured: boolean;
}

/** Who asks: the acting task and agent, from options or the environment. */
export interface Acting {
  readonly task?: string | undefined;
  readonly agent?: string | undefined;
  readonly as?: string | undefined;
}

/** A repository opened for judging edits, read once for any number of files. */
export interface Guard {
  readonly root: string | undefined;
  judge(cwd: string, file: string): Promise<EditAnswer>;
}

/** Options first, then `TASKGATE_TASK` and `TASKGATE_AGENT`; empty values count as unset. */
export function actingFrom(values: Acting, env: CliIo["env"]): Acting {
  const pick = (given: string | undefined, name: string) => {
    const value = given ?? env?.[name];
    return value === undefined || value.trim() === "" ? undefined : value.trim();
  };
  return { task: pick(values.task, "TASKGATE_TASK"), agent: pick(values.agent, "TASKGATE_AGENT"), as: values.as };
}

/**
 * Opens the repository at `repoDir` for judging. Not a git repository, or no config: every edit is
 * allowed, and the answer says taskgate is not configured. An invalid config throws `ConfigError`;
 * a board without a known login throws `IdentityError`.
 */
export async function openGuard(repoDir: string, acting: Acting, io: CliIo, keep?: GuardCache): Promise<Guard> {
  let opened: { repo: GitRepository; root: string };
  try {
    opened = await openRepository(repoDir, keep);
  } catch (error) {
    if (error instanceof RepositoryError) return unconfigured(undefined, `${repoDir} is not a git repository`);
    throw error;
  }
  const { repo, root } = opened;
  const tree = new WorkTree(root);
  const loaded = await configOf(tree, root, keep);
  if (!loaded) return unconfigured(root, `taskgate is not configured in ${root} (no .github/taskgate.yml)`);
  const { config, model } = loaded;
  const preset = model.name === "board" ? "board" : "phases";
  const actor = preset === "board" ? await boardActor(repo, acting, io) : undefined;
  const read = snapshotReader(tree, config, model, preset, acting);
  return {
    root,
    async judge(cwd, file) {
      const target = resolveTarget(root, cwd, file);
      if (typeof target !== "string") return escaped(target, acting, actor, preset);
      const answer =
        preset === "board"
          ? (await editorOf(config, root, () => read(target), keep))(target, actor!, {
              task: acting.task,
              agent: acting.agent,
            })
          : phasesAnswer(config, await read(target), target, acting.task);
      return complete({ ...answer, agent: preset === "board" ? (answer as { owner: string }).owner : null }, preset);
    },
  };
}

/**
 * What a long-lived process (the helper) keeps between questions: the repository opened (git's
 * folder and work tree do not move), and the config parsed, reused while the file's text is the same.
 */
export interface GuardCache {
  readonly repositories: Map<string, { repo: GitRepository; root: string }>;
  readonly configs: Map<string, { text: string; loaded: Loaded }>;
  /** A board read once, reused while its config, definitions and ledger are the same. */
  readonly boards: Map<string, { config: Config; key: string; editor: BoardEditor }>;
}

export function guardCache(): GuardCache {
  return { repositories: new Map(), configs: new Map(), boards: new Map() };
}

/**
 * The board's editor. A long-lived process keeps it while the definitions and the ledger are the
 * same files: same inode, size and modification time (taskgate writes them by renaming a new file
 * into place, so a change is a new inode); a one-off answer reads them.
 */
async function editorOf(
  config: Config,
  root: string,
  read: () => Promise<Snapshot>,
  keep: GuardCache | undefined,
): Promise<BoardEditor> {
  if (!keep) return boardEditor(config, await read());
  const stats = await Promise.all(
    [config.board.definitions, config.board.ledger].map((path) =>
      lstat(join(root, path), { bigint: true }).catch(() => undefined),
    ),
  );
  const key = stats.map((stat) => (stat ? `${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}` : "-")).join("/");
  const known = keep.boards.get(root);
  if (known && known.config === config && known.key === key) return known.editor;
  const editor = boardEditor(config, await read());
  keep.boards.set(root, { config, key, editor });
  return editor;
}

async function openRepository(repoDir: string, keep: GuardCache | undefined) {
  const known = keep?.repositories.get(repoDir);
  if (known) return known;
  const repo = await GitRepository.open(repoDir);
  const opened = { repo, root: await repo.workTreeRoot() };
  keep?.repositories.set(repoDir, opened);
  return opened;
}

async function configOf(tree: WorkTree, root: string, keep: GuardCache | undefined): Promise<Loaded | undefined> {
  if (!keep) return loadConfig(tree, "work tree");
  const text = await readFile(join(root, CONFIG_PATH), "utf8").catch(() => undefined);
  const known = keep.configs.get(root);
  if (text !== undefined && known?.text === text) return known.loaded;
  const loaded = await loadConfig(tree, "work tree");
  if (loaded && text !== undefined) keep.configs.set(root, { text, loaded });
  return loaded;
}

function unconfigured(root: string | undefined, why: string): Guard {
  return {
    root,
    judge: async (_cwd, file) => ({
      path: file,
      task: null,
      allowed: true,
      kind: "unconfigured",
      code: null,
      reason: `${why}: nothing to guard, every edit is allowed`,
      hint: "Add .github/taskgate.yml to have taskgate judge edits.",
      instead: null,
      agent: null,
      preset: null,
      configured: false,
    }),
  };
}

async function boardActor(repo: GitRepository, acting: Acting, io: CliIo): Promise<string> {
  const actor = await resolveActor(repo, { as: acting.as, io });
  if (!actor) throw new IdentityError("on a board, `can-edit` answers for an owner, but no GitHub login is known");
  if (!isLogin(actor.login)) throw new UsageError(`"${actor.login}" (from ${actor.from}) is not a GitHub login`);
  return actor.login;
}

/**
 * Reads, once, the part of the work tree the answers need: on a board the config, definitions and
 * ledger; on phases the named task's folder, or every task folder when none is named and a project
 * file is asked about (a task's own folder needs nothing).
 */
function snapshotReader(
  tree: WorkTree,
  config: Config,
  model: WorkflowModel,
  preset: "phases" | "board",
  acting: Acting,
): (path: string) => Promise<Snapshot> {
  const limits = readLimits(config);
  const tasksPrefix = model.auditScope().prefixes[0] ?? "tasks/";
  const empty: Snapshot = { rev: "work tree", files: new Map() };
  let full: Promise<Snapshot> | undefined;
  const read = (scope: SnapshotScope) => (full ??= tree.readSnapshot("work tree", scope, limits));
  return async (path) => {
    if (preset === "board") {
      return read({ paths: [config.board.definitions, config.board.ledger], prefixes: [] });
    }
    if (acting.task !== undefined) return read({ paths: [], prefixes: [`${tasksPrefix}${acting.task}/`] });
    if (path.startsWith(tasksPrefix)) return empty;
    // Whether any task edits project files now: every task's `.state`, and nothing else of its folder.
    full ??= stateFiles(tree, tasksPrefix).then((paths) =>
      tree.readSnapshot("work tree", { paths, prefixes: [] }, limits),
    );
    return full;
  };
}

async function stateFiles(tree: WorkTree, tasksPrefix: string): Promise<string[]> {
  const entries = await readdir(join(tree.root, tasksPrefix), { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isDirectory()).map((entry) => `${tasksPrefix}${entry.name}/${STATE_FILE}`);
}

function phasesAnswer(config: Config, snapshot: Snapshot, path: string, task: string | undefined) {
  try {
    return canEdit({ config, snapshot }, path, task);
  } catch (error) {
    if (!(error instanceof AuthoringRefusal)) throw error;
    const first = error.violations[0]!;
    return {
      path,
      task: task ?? null,
      allowed: false,
      kind: "task",
      code: first.code,
      reason: first.message,
      ...(first.hint !== undefined && { hint: first.hint }),
    };
  }
}

interface Escape {
  readonly given: string;
  readonly reason: string;
}

/**
 * The repository path a write of `file` (relative to `cwd`) lands on: `..` resolved, and symlinks on
 * the way followed, since a write goes through them. Outside the work tree, or inside `.git`, it is
 * an escape the guard refuses.
 */
export function resolveTarget(root: string, cwd: string, file: string): string | Escape {
  if (file.includes("\0")) return { given: file, reason: "holds a NUL byte" };
  const absolute = resolve(cwd, file);
  const real = realTarget(absolute);
  const resolved = inside(realRoot(root), real);
  if (resolved === undefined) {
    return inside(root, absolute) === undefined && inside(realRoot(root), absolute) === undefined
      ? { given: file, reason: `lies outside the repository ${root}` }
      : { given: file, reason: `leads through a symlink to ${real}, outside the repository` };
  }
  if (resolved === ".git" || resolved.startsWith(".git/")) {
    return { given: file, reason: "is inside git's own folder (.git)" };
  }
  return resolved;
}

function inside(root: string, absolute: string): string | undefined {
  const rel = relative(root, absolute);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join("/");
}

function realRoot(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}

/** The real path of the deepest part of `absolute` that exists, with the rest appended. */
function realTarget(absolute: string): string {
  const rest: string[] = [];
  let current = absolute;
  for (;;) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = resolve(current, "..");
      if (parent === current) return absolute;
      rest.push(current.slice(parent.length).replace(/^[\\/]+/, ""));
      current = parent;
    }
  }
}

function escaped(target: Escape, acting: Acting, actor: string | undefined, preset: "phases" | "board"): EditAnswer {
  return complete(
    {
      path: target.given,
      task: acting.task ?? null,
      allowed: false,
      kind: "invalid",
      code: "path-escape",
      reason: `${target.given} ${target.reason}`,
      hint: "Edit files of this repository by their own path, never through `..` out of it or a symlink.",
      agent: preset === "board" && actor ? (acting.agent ? `${actor}/${acting.agent}` : actor) : null,
    },
    preset,
  );
}

interface Draft {
  readonly path: string;
  readonly task: string | null;
  readonly allowed: boolean;
  readonly kind: string;
  readonly code?: string | null | undefined;
  readonly reason: string;
  readonly hint?: string | null | undefined;
  readonly agent: string | null;
}

function complete(answer: Draft, preset: "phases" | "board"): EditAnswer {
  return {
    path: answer.path,
    task: answer.task,
    allowed: answer.allowed,
    kind: answer.kind,
    code: answer.code ?? null,
    reason: answer.reason,
    hint: answer.hint ?? null,
    instead: answer.allowed ? null : insteadOf(answer, preset),
    agent: answer.agent,
    preset,
    configured: true,
  };
}

/** What to do instead of a refused edit, by what refused it. */
export function insteadOf(answer: Draft, preset: "phases" | "board"): Instead {
  const task = answer.task ?? "<task-id>";
  if (answer.code === "task-missing") {
    return preset === "board"
      ? {
          action: "claim",
          text: `Claim a task first (\`taskgate claim ${task} --agent <agent-id>\`), then edit within its paths.`,
        }
      : {
          action: "claim",
          text: "Name the task this edit is for (--task, or TASKGATE_TASK), or create one with `taskgate new`.",
        };
  }
  if (answer.code === "path-escape") {
    return {
      action: "none",
      text: "Write the file by its own path inside the repository; do not route writes through `..` or symlinks.",
    };
  }
  if (answer.code === "approval-forged") {
    return { action: "review", text: "Ask for a review of the pull request: taskgate records approvals itself." };
  }
  if (answer.kind === "framework") {
    return {
      action: "ask-maintainer",
      text: "Leave it unchanged: ask a maintainer to make this change in a pull request that touches no task.",
    };
  }
  if (answer.kind === "task" || answer.kind === "metadata") {
    return {
      action: "other-task",
      text: "That file belongs to another task: change it in that task's own pull request.",
    };
  }
  if (preset === "phases" && answer.kind === "project" && answer.task) {
    return {
      action: "move",
      text: `Move ${answer.task} to a phase that edits project files first (\`taskgate move ${answer.task} implement\` when the workflow allows it), or ask for a separate task.`,
    };
  }
  return preset === "board"
    ? {
        action: "escalate",
        text: `Ask for a separate task for this file: a maintainer plans it, or, when ${task} cannot be finished without it, escalate (\`taskgate escalate ${task} --issue FILE --handoff FILE --resolver NEW-ID --definition FILE\`).`,
      }
    : {
        action: "separate-task",
        text: "Ask for a separate task for this file, or move a task to an editing phase first.",
      };
}

/** The answer as the text a person (or an agent) reads. */
export function answerText(answer: EditAnswer): string {
  const lines = [`${answer.allowed ? "yes" : "no"}: ${answer.reason}${answer.code ? ` (${answer.code})` : ""}`];
  if (answer.hint) lines.push(`  hint: ${answer.hint}`);
  if (answer.instead) lines.push(`  instead: ${answer.instead.text}`);
  return `${lines.join("\n")}\n`;
}

/**
 * `can-edit <file> [--task <task-id>] [--agent <agent-id>] [--as LOGIN]`: may the acting task's pull
 * request change this file now? Exit 0 yes (also when taskgate is not configured), 1 no.
 */
export async function canEditCommand(run: CommandRun): Promise<number> {
  if (run.positionals.length !== 1) throw new UsageError("can-edit needs exactly one file");
  const string = (name: string) => (typeof run.values[name] === "string" ? (run.values[name] as string) : undefined);
  const acting = actingFrom({ task: string("task"), agent: string("agent"), as: string("as") }, run.io.env);
  const guard = await openGuard(run.repoDir, acting, run.io);
  const answer = await guard.judge(run.io.cwd, run.positionals[0]!);
  if (run.json) run.printJson(answer);
  else run.io.stdout(answerText(answer));
  return answer.allowed ? EXIT.ok : EXIT.failure;
}
