/**
 * The files taskgate keeps in a checkout besides the task store, and the one way it replaces a file.
 * The lock, the journal and the unlock log are named once, in the core (`LOCAL_FILES`: no task may
 * edit them); the temporary files of atomic writes and the hook's backup are named here.
 */
import { open, rename, rm, stat } from "node:fs/promises";
import { JOURNAL_FILE, LOCAL_FILES, LOCK_FILE, UNLOCK_LOG } from "../core/index.js";

export { JOURNAL_FILE, LOCAL_FILES, LOCK_FILE, UNLOCK_LOG };
/** Ends the name of the temporary file written beside a file before it is renamed over it. */
export const TEMP_SUFFIX = ".taskgate.tmp";
/** Ends the name under which `hook install --force` keeps the hook it replaced. */
export const HOOK_BACKUP_SUFFIX = ".taskgate-backup";

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
