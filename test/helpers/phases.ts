/**
 * The fixture of the `phases` core tests: the default phases config, the usual times and spec, an
 * approval line as the bot writes it, and a pull request evaluated commit by commit.
 */
import { evaluate } from "../../src/core/evaluate.js";
import type { Report } from "../../src/core/kernel/types.js";
import { config, prHistory, type FileSpec, type PrSpec, type Step } from "./memory.js";

export {
  approve,
  botStep,
  config,
  prHistory,
  pullRequest,
  snapshot,
  task,
  type FileSpec,
  type PrSpec,
  type Step,
} from "./memory.js";

/** When the reviews of a test are submitted: the usual one, and one after it. */
export const AT = "2026-11-01T10:00:00Z";
export const LATER = "2026-11-01T12:00:00Z";
export const SPEC = { "SPEC.md": "# Spec\nwhat and why\n" };
/** The default `phases` config. */
export const phases = config();

export const codes = (report: Report) => report.violations.map((item) => item.code);

/** An approval line as taskgate records it. */
export const line = (phase: string, login: string, at = AT) => `${phase}:approved|${at}|${login}\n`;

/** Evaluates the pull request built by `steps` on `start`. */
export function runSteps(start: Record<string, FileSpec>, steps: Step[], spec: PrSpec = {}, conf = phases) {
  const { base, head, pr } = prHistory(start, steps, spec);
  return { report: evaluate(conf, base, head, pr), base, head, pr };
}
