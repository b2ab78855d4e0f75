/** How GitHub's errors are told apart: by the HTTP status Octokit attaches to them. */

/** Is `error` an answer of GitHub's with one of these HTTP statuses? */
export function isStatus(error: unknown, ...statuses: number[]): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" && statuses.includes(status);
}
