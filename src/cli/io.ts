/**
 * What every CLI command shares: where it prints, its exit codes, and the errors `main.ts` reports
 * with a hint (exit 2). They live here, apart from the modules that throw them, so `main.ts` tells
 * them apart without loading those modules.
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

/** No login for a command that acts for somebody. */
export class IdentityError extends Error {
  readonly hint =
    "Pass --as LOGIN, set TASKGATE_LOGIN, or run `git config github.user LOGIN` (your GitHub login) once.";
}

/** `--pr PR.json` cannot be read or does not hold a pull request (`pr-file.ts`). */
export class PrFileError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = "PrFileError";
  }
}

/** Where a command prints: text, or JSON (redacted value by value). */
export interface Output {
  readonly io: CliIo;
  readonly json: boolean;
  readonly printJson: (value: unknown) => void;
}

/** A failure with a hint: `taskgate: message` and the hint on stderr, or JSON `{error}`; exit 2. */
export function printFailure(out: Output, message: string, hint: string): number {
  if (out.json) out.printJson({ error: { message, hint } });
  else out.io.stderr(`taskgate: ${message}\n  hint: ${hint}\n`);
  return EXIT.usage;
}
