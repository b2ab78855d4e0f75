/**
 * What every CLI command shares: where it prints, its exit codes, and the error that means the
 * command line itself is wrong (exit 2).
 */

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** 0 success or neutral, 1 refused by a rule (violations), 2 usage or config error, 3 approval pending. */
export const EXIT = { ok: 0, failure: 1, usage: 2, actionRequired: 3 } as const;

/** The command line is wrong: reported with a hint to `taskgate --help`, exit 2. */
export class UsageError extends Error {}
