/**
 * The files the command line keeps at the root of a checkout: never part of a change, never
 * committed (a committed journal would rewrite the files of whoever runs taskgate next). Named here
 * once; the rules refuse them in a change and the git adapter writes them. Imports nothing, so an
 * adapter that only needs the names loads nothing else of the core.
 */

/** Held by a writing command (pid, host, time, command) while it reads, judges and writes. */
export const LOCK_FILE = ".taskgate.lock";
/** The write-ahead journal of a change to several files: every file's content before and after. */
export const JOURNAL_FILE = ".taskgate.journal.json";
/** Why a stale lock was removed (`taskgate unlock --reason`). */
export const UNLOCK_LOG = ".taskgate.unlock.log";

/** The lock, the journal and the unlock log. */
export const LOCAL_FILES: readonly string[] = [LOCK_FILE, JOURNAL_FILE, UNLOCK_LOG];
