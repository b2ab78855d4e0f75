/**
 * Crash-safe changes to the files of a work tree, for the commands that author tasks.
 *
 * Guarantees:
 * - One file is replaced atomically: the new content goes to a temporary file beside it, is flushed to
 *   disk (fsync), then renamed over the file. A reader sees the old content or the new, never a mix.
 * - A set of changes is all-or-nothing. Before any file is touched, a write-ahead journal
 *   (`.taskgate.journal.json` at the root, itself written atomically, its folder flushed) records
 *   every file's content before and after. The changes are then applied one by one and the journal
 *   removed. If applying fails in this process, the files get their before-images back and the error
 *   is rethrown. If the process dies part-way, the next run finds the journal and completes the
 *   recorded change (the after-images; doing it twice is harmless). A journal that cannot be read is
 *   never deleted: it may hold the only copy of someone's work.
 * - Changes run under a lock (`.taskgate.lock` at the root, created exclusively), released when done.
 *   `unlock` removes a lock only when its holder is provably gone (same host, no such process), and
 *   logs why in `.taskgate.unlock.log`.
 * - Every path stays inside the checkout: relative, with no `.`/`..` segment, never under `.git/`,
 *   never through a symlinked folder nor onto a symlink. Refusals come before anything is written.
 * - Deleting a file also removes the folders it leaves empty (git does not keep empty folders).
 *
 * Limits: it protects against a crash of this process (and, through the fsyncs, of the machine), not
 * against two machines editing one checkout (e.g. over a network share). The lock is advisory: editors,
 * git and other tools ignore it, and a folder swapped for a symlink by another program between the
 * checks and the writes is not caught. Contents are text; a before-image that is not UTF-8 is kept in
 * the journal as base64, so undoing a change restores it byte for byte.
 */
import { appendFile, lstat, mkdir, open, readFile, rm, rmdir } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname, join, resolve } from "node:path";
import { RepositoryError } from "../core/index.js";
import {
  JOURNAL_FILE,
  LOCAL_FILES,
  LOCK_FILE,
  TEMP_SUFFIX,
  UNLOCK_LOG,
  temporaryOf,
  writeAtomic,
} from "./local-files.js";
import { linkedFolder } from "./worktree.js";

export { JOURNAL_FILE, LOCK_FILE, UNLOCK_LOG } from "./local-files.js";
/** The journal while it is being written: found after a crash, it means nothing was applied. */
const JOURNAL_TEMP = temporaryOf(JOURNAL_FILE);
const RESERVED = new Set(LOCAL_FILES);

export interface FileChange {
  readonly path: string;
  /** The new content; `null` deletes the file. */
  readonly content: string | null;
}

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
  /** When the lock was taken (ISO time). */
  readonly at: string;
  readonly command: string;
}

export class LockError extends RepositoryError {
  constructor(
    message: string,
    hint: string,
    readonly owner: LockOwner | undefined,
  ) {
    super(message, hint);
    this.name = "LockError";
  }
}

export class JournalError extends RepositoryError {
  constructor(message: string, hint: string) {
    super(message, hint);
    this.name = "JournalError";
  }
}

export type Recovery =
  | { readonly kind: "none" }
  | { readonly kind: "completed"; readonly files: readonly string[] }
  | { readonly kind: "discarded" };

/** A file's content: text, bytes that are not UTF-8 (as base64), or `null` when there is no file. */
type Image = string | { readonly base64: string } | null;

interface Entry {
  readonly path: string;
  readonly before: Image;
  readonly after: string | null;
}

interface Journal {
  readonly version: 1;
  readonly command: string;
  readonly at: string;
  readonly files: readonly Entry[];
}

interface HeldLock {
  readonly file: string;
  readonly text: string;
}

/**
 * Runs `plan` under the lock: takes the lock, completes a leftover journal first, calls `plan()` (which
 * reads the work tree and returns the changes to make, or undefined/[] to make none — it may throw, then nothing is written),
 * applies the changes all-or-nothing, releases the lock. Returns what recovery did and the changes applied
 * (changes whose content equals the file's current content are skipped; if nothing remains, nothing is written).
 */
export async function transaction(
  root: string,
  command: string,
  plan: () => Promise<readonly FileChange[] | undefined>,
  options: { now?: () => Date } = {},
): Promise<{ recovery: Recovery; applied: readonly FileChange[] }> {
  const top = resolve(root);
  const now = options.now ?? (() => new Date());
  const lock = await acquire(top, command, now);
  try {
    const recovery = await complete(top);
    const changes = (await plan()) ?? [];
    const entries = await prepare(top, changes);
    if (entries.length > 0) await commit(top, { version: 1, command, at: now().toISOString(), files: entries });
    const changed = new Set(entries.map((entry) => entry.path));
    return { recovery, applied: changes.filter((change) => changed.has(change.path)) };
  } finally {
    await release(lock);
  }
}

/** Completes a leftover journal under the lock (used by read-only commands before they read). */
export async function recover(root: string, command: string): Promise<Recovery> {
  const top = resolve(root);
  const lock = await acquire(top, command, () => new Date());
  try {
    return await complete(top);
  } finally {
    await release(lock);
  }
}

/**
 * Removes a lock whose holder is provably gone (this host, and no process has its pid), logging the
 * reason in `.taskgate.unlock.log`. Refuses a live holder, another host's lock and an unreadable lock.
 */
export async function unlock(
  root: string,
  reason: string,
  options: { now?: () => Date } = {},
): Promise<{ removed: boolean; owner: LockOwner | undefined; message: string }> {
  if (reason.trim() === "") {
    throw new RepositoryError("unlock needs a reason", 'Say why, for the log: taskgate unlock --reason "..."');
  }
  const top = resolve(root);
  const file = join(top, LOCK_FILE);
  const lock = await readLock(file);
  if (!lock) return { removed: false, owner: undefined, message: "the work tree is not locked" };
  const owner = lock.owner;
  if (!owner) {
    throw new LockError(
      `refusing to unlock: ${file} cannot be read, so whether its holder is gone is unknown`,
      `If no taskgate command is running in this checkout, delete ${file} by hand.`,
      undefined,
    );
  }
  refuseLiveHolder(owner, file);
  const now = (options.now ?? (() => new Date()))().toISOString();
  await appendFile(join(top, UNLOCK_LOG), logLine(now, owner, reason));
  await rm(file, { force: true });
  const message = `removed the lock of pid ${owner.pid} on ${owner.host} (${owner.command}, since ${owner.at}): that process is gone`;
  return { removed: true, owner, message };
}

// ---- the lock ----

async function acquire(root: string, command: string, now: () => Date): Promise<HeldLock> {
  const file = join(root, LOCK_FILE);
  const owner: LockOwner = { pid: process.pid, host: hostname(), at: now().toISOString(), command };
  const text = `${JSON.stringify(owner)}\n`;
  const handle = await open(file, "wx").catch(async (error: unknown) => {
    if (code(error) === "EEXIST") throw await lockedError(file);
    throw error;
  });
  try {
    await handle.writeFile(text);
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(file, { force: true });
    throw error;
  }
  return { file, text };
}

/** Removes the lock if it is still the one this process wrote. */
async function release(lock: HeldLock): Promise<void> {
  const text = await readFile(lock.file, "utf8").catch(() => undefined);
  if (text === lock.text) await rm(lock.file, { force: true });
}

async function lockedError(file: string): Promise<LockError> {
  const owner = (await readLock(file))?.owner;
  if (!owner) {
    return new LockError(
      `the work tree is locked: ${file} exists but does not say by whom`,
      `If no taskgate command is running in this checkout, delete ${file}.`,
      undefined,
    );
  }
  return new LockError(
    `the work tree is locked by pid ${owner.pid} on ${owner.host} since ${owner.at} (${owner.command})`,
    'Wait for that command to finish. If that process is gone, run: taskgate unlock --reason "..."',
    owner,
  );
}

/** The lock file's text and holder (`undefined` when unreadable), or `undefined` when there is none. */
async function readLock(file: string): Promise<{ text: string; owner: LockOwner | undefined } | undefined> {
  const text = await readFile(file, "utf8").catch((error: unknown) => (isAbsent(error) ? undefined : ""));
  return text === undefined ? undefined : { text, owner: parseOwner(text) };
}

function parseOwner(text: string): LockOwner | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(data) || !Number.isSafeInteger(data.pid) || (data.pid as number) <= 0) return undefined;
  if (typeof data.host !== "string" || typeof data.at !== "string" || typeof data.command !== "string") {
    return undefined;
  }
  return { pid: data.pid as number, host: data.host, at: data.at, command: data.command };
}

function refuseLiveHolder(owner: LockOwner, file: string): void {
  const here = hostname();
  if (owner.host !== here) {
    throw new LockError(
      `refusing to unlock: the lock belongs to pid ${owner.pid} on host ${owner.host}, not this one (${here}), and whether it runs cannot be checked from here`,
      `Run taskgate unlock on ${owner.host}, or delete ${file} by hand if you are sure no taskgate command runs there.`,
      owner,
    );
  }
  if (!isGone(owner.pid)) {
    throw new LockError(
      `refusing to unlock: pid ${owner.pid} (${owner.command}, since ${owner.at}) is still running`,
      "Wait for that command to finish, or stop it, then run the command again.",
      owner,
    );
  }
}

/** True only when no process has this pid (`EPERM` means one exists that we may not signal). */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return code(error) === "ESRCH";
  }
}

function logLine(now: string, owner: LockOwner, reason: string): string {
  const quote = (text: string) => JSON.stringify(text);
  const lock = `pid ${owner.pid} on ${quote(owner.host)} (command ${quote(owner.command)}, since ${quote(owner.at)})`;
  return `${now} removed the lock of ${lock}; reason: ${quote(reason)}\n`;
}

// ---- the changes ----

/** Checks every change and reads each target's current content; returns the changes that change something. */
async function prepare(root: string, changes: readonly FileChange[]): Promise<Entry[]> {
  const seen = new Set<string>();
  for (const { path } of changes) {
    refusePath(path);
    if (seen.has(path)) {
      throw new RepositoryError(
        `refusing to write ${JSON.stringify(path)} twice in one change`,
        "Give one content per file.",
      );
    }
    seen.add(path);
  }
  const entries: Entry[] = [];
  for (const change of changes) {
    const before = await current(root, change.path);
    if (!differs(before, change.content)) continue;
    entries.push({ path: change.path, before: image(before), after: change.content });
  }
  return entries;
}

/** Writes the journal, applies it, removes it; when applying fails, restores the before-images and rethrows. */
async function commit(root: string, journal: Journal): Promise<void> {
  await replaceFile(join(root, JOURNAL_FILE), `${JSON.stringify(journal, null, 2)}\n`);
  let attempted = 0;
  try {
    await syncFolder(root);
    for (const entry of journal.files) {
      attempted++;
      await put(root, entry.path, entry.after);
    }
    await syncFolders(root, journal.files);
  } catch (error) {
    await undo(root, journal.files.slice(0, attempted), error);
    throw error;
  }
  await removeJournal(root);
}

async function undo(root: string, entries: readonly Entry[], cause: unknown): Promise<void> {
  try {
    for (const entry of [...entries].reverse()) await put(root, entry.path, entry.before);
    await syncFolders(root, entries);
  } catch (error) {
    throw new JournalError(
      `a change failed (${messageOf(cause)}) and undoing it failed too (${messageOf(error)})`,
      `${join(root, JOURNAL_FILE)} keeps every file's content before and after; once the cause is fixed, the next taskgate command completes the change.`,
    );
  }
  await removeJournal(root);
}

/** Completes a leftover journal (a crash after it was written), or discards a half-written one. */
async function complete(root: string): Promise<Recovery> {
  const discarded = await discardHalfWrittenJournal(root);
  const journal = await readJournal(root);
  if (!journal) return { kind: discarded ? "discarded" : "none" };
  try {
    for (const entry of journal.files) {
      refusePath(entry.path);
      await current(root, entry.path);
    }
    for (const entry of journal.files) {
      await rm(temporaryOf(join(root, entry.path)), { force: true }).catch(absentAs(undefined));
      await put(root, entry.path, entry.after);
    }
    await syncFolders(root, journal.files);
  } catch (error) {
    throw journalError(root, `cannot complete the change it records: ${messageOf(error)}`);
  }
  await removeJournal(root);
  return { kind: "completed", files: journal.files.map((entry) => entry.path) };
}

async function discardHalfWrittenJournal(root: string): Promise<boolean> {
  const temporary = join(root, JOURNAL_TEMP);
  const found = await lstat(temporary).then(() => true, absentAs(false));
  if (found) {
    await rm(temporary, { force: true });
    await syncFolder(root);
  }
  return found;
}

async function readJournal(root: string): Promise<Journal | undefined> {
  const text = await readFile(join(root, JOURNAL_FILE), "utf8").catch((error: unknown) => {
    if (isAbsent(error)) return undefined;
    throw journalError(root, `cannot read it: ${messageOf(error)}`);
  });
  if (text === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw journalError(root, "it is not valid JSON");
  }
  const problem = journalProblem(data);
  if (problem) throw journalError(root, problem);
  return data as Journal;
}

function journalProblem(data: unknown): string | undefined {
  if (!isRecord(data) || data.version !== 1) return "it is not a version 1 journal";
  if (!Array.isArray(data.files)) return "it has no list of files";
  for (const entry of data.files as unknown[]) {
    if (!isRecord(entry) || typeof entry.path !== "string") return "a file in it has no path";
    const after = entry.after === null || typeof entry.after === "string";
    const before =
      entry.before === null ||
      typeof entry.before === "string" ||
      (isRecord(entry.before) && typeof entry.before.base64 === "string");
    if (!after || !before) return `${JSON.stringify(entry.path)} has no content before or after`;
  }
  return undefined;
}

function journalError(root: string, problem: string): JournalError {
  const file = join(root, JOURNAL_FILE);
  return new JournalError(
    `the journal ${file} of an interrupted change is kept: ${problem}`,
    `It lists, for each file, its content before and after the change. Restore the files from it by hand if needed, then delete ${file}.`,
  );
}

async function removeJournal(root: string): Promise<void> {
  await rm(join(root, JOURNAL_FILE), { force: true });
  await syncFolder(root);
}

// ---- paths ----

/** Refuses a path that is not a plain relative path inside the checkout, outside `.git`. */
function refusePath(path: string): void {
  const problem = pathProblem(path);
  if (problem) throw unsafe(path, problem);
}

function pathProblem(path: string): string | undefined {
  if (typeof path !== "string" || path === "") return "the path is empty";
  if (path.includes("\0")) return "it contains a NUL character";
  if (path.includes("\\")) return "it contains a backslash (folders are separated by /)";
  if (path.startsWith("/")) return "it is absolute";
  const segments = path.split("/");
  if (segments.includes("")) return "it has an empty segment";
  if (segments.includes(".") || segments.includes("..")) return "it has a . or .. segment";
  if (segments.some((segment) => segment.toLowerCase() === ".git")) return "it is inside .git";
  if (RESERVED.has(path) || path.endsWith(TEMP_SUFFIX)) return "taskgate keeps its own state under that name";
  return undefined;
}

/** A target's current bytes (`undefined`: no file), refusing a symlinked folder on the way or a symlink at the end. */
async function current(root: string, path: string): Promise<Buffer | undefined> {
  const folder = await linkedFolder(root, path);
  if (folder !== undefined) throw unsafe(path, `${folder} is a symlink`);
  const full = join(root, path);
  const info = await lstat(full).catch(absentAs(undefined));
  if (!info) return undefined;
  if (info.isSymbolicLink()) throw unsafe(path, "it is a symlink");
  if (!info.isFile()) throw unsafe(path, "it is not a regular file");
  return readFile(full);
}

function unsafe(path: string, problem: string): RepositoryError {
  return new RepositoryError(
    `refusing to write ${JSON.stringify(path)}: ${problem}`,
    "taskgate writes inside the checkout only: paths relative to the work-tree root, with / between folders, never under .git/ and never through a symlink.",
  );
}

// ---- files ----

function differs(before: Buffer | undefined, after: string | null): boolean {
  if (after === null) return before !== undefined;
  return before === undefined || !before.equals(Buffer.from(after));
}

function image(bytes: Buffer | undefined): Image {
  if (bytes === undefined) return null;
  const text = bytes.toString("utf8");
  return Buffer.from(text).equals(bytes) ? text : { base64: bytes.toString("base64") };
}

/** Gives a file the content of an image: written atomically, or deleted for `null`. */
async function put(root: string, path: string, content: Image): Promise<void> {
  if (content === null) await removeFile(root, path);
  else
    await replaceFile(join(root, path), typeof content === "string" ? content : Buffer.from(content.base64, "base64"));
}

/** Writes a file atomically (`writeAtomic`), creating its folders. */
async function replaceFile(full: string, data: string | Buffer): Promise<void> {
  await mkdir(dirname(full), { recursive: true });
  await writeAtomic(full, data);
}

/** Deletes a file, then the folders it leaves empty. */
async function removeFile(root: string, path: string): Promise<void> {
  await rm(join(root, path), { force: true }).catch(absentAs(undefined));
  const parts = path.split("/");
  for (let depth = parts.length - 1; depth > 0; depth--) {
    const removed = await rmdir(join(root, ...parts.slice(0, depth))).then(
      () => true,
      () => false,
    );
    if (!removed) return;
  }
}

/** Flushes the folders of the changed files, so their renames survive a crash of the machine. */
async function syncFolders(root: string, entries: readonly Entry[]): Promise<void> {
  for (const folder of new Set(entries.map((entry) => dirname(join(root, entry.path))))) await syncFolder(folder);
}

/** Flushes a folder's entries; a platform that refuses to open or flush folders (Windows) is skipped. */
async function syncFolder(folder: string): Promise<void> {
  const skip = (error: unknown) => {
    if (isAbsent(error) || ["EISDIR", "EPERM", "EINVAL"].includes(code(error) ?? "")) return undefined;
    throw error;
  };
  const handle = await open(folder, "r").catch(skip);
  if (!handle) return;
  try {
    await handle.sync().catch(skip);
  } finally {
    await handle.close();
  }
}

// ---- errors ----

function code(error: unknown): string | undefined {
  return error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined;
}

function isAbsent(error: unknown): boolean {
  return code(error) === "ENOENT" || code(error) === "ENOTDIR";
}

/** A `catch` handler: `value` when the file does not exist, else rethrows. */
function absentAs<T>(value: T): (error: unknown) => T {
  return (error) => {
    if (isAbsent(error)) return value;
    throw error;
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
