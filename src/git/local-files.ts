/**
 * The files taskgate keeps in a checkout besides the task store, by name, and the one way it replaces
 * a file: the lock, the journal, the unlock log and the temporary files of atomic writes are named
 * here and nowhere else.
 */
import { open, rename, rm, stat } from "node:fs/promises";

/** Held by a writing command (pid, host, time, command) while it reads, judges and writes. */
export const LOCK_FILE = ".taskgate.lock";
/** The write-ahead journal of a change to several files: every file's content before and after. */
export const JOURNAL_FILE = ".taskgate.journal.json";
/** Why a stale lock was removed (`taskgate unlock --reason`). */
export const UNLOCK_LOG = ".taskgate.unlock.log";
/** Ends the name of the temporary file written beside a file before it is renamed over it. */
export const TEMP_SUFFIX = ".taskgate.tmp";
/** Ends the name under which `hook install --force` keeps the hook it replaced. */
export const HOOK_BACKUP_SUFFIX = ".taskgate-backup";

/** The files at the root of a checkout that belong to taskgate alone: never part of a change, never committed. */
export const LOCAL_FILES: readonly string[] = [LOCK_FILE, JOURNAL_FILE, UNLOCK_LOG];

/** The lines of `.git/info/exclude` that keep the local files (and leftover temporary files) out of git. */
export const EXCLUDE_LINES: readonly string[] = [...LOCAL_FILES.map((name) => `/${name}`), `*${TEMP_SUFFIX}`];

/** The temporary file written beside `full` before it is renamed over it. */
export function temporaryOf(full: string): string {
  return `${full}${TEMP_SUFFIX}`;
}

export interface AtomicOptions {
  /** The new file's permissions; default: those of the file it replaces, if any. */
  readonly mode?: number;
}

/**
 * Replaces the file at `full` (an absolute path; its folder must exist) in one step: the data goes
 * to a temporary file beside it, created exclusively (a leftover or planted one is removed first, never
 * followed), is flushed to disk (fsync), then renamed over the file, keeping its permissions. A reader
 * sees the old content or the new, never a mix. On failure the temporary file is removed and the
 * error rethrown.
 */
export async function writeAtomic(full: string, data: string | Uint8Array, options: AtomicOptions = {}): Promise<void> {
  const mode = options.mode ?? (await stat(full).catch(absent))?.mode;
  const temporary = temporaryOf(full);
  await rm(temporary, { force: true });
  try {
    const handle = await open(temporary, "wx");
    try {
      if (mode !== undefined) await handle.chmod(mode & 0o7777);
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, full);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** A `catch` handler: `undefined` when the file does not exist, else rethrows. */
function absent(error: unknown): undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT" || code === "ENOTDIR") return undefined;
  throw error;
}
