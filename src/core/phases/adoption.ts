/**
 * Adopting work in flight. A repository that takes up taskgate has task folders that are already past
 * a gate: they hold a design, a bug report, a verdict. `taskgate upgrade` places each at the state its
 * artifacts show, and the pull request that brings them in is an adoption: it stays pending until one
 * eligible review approves it, and the bot then records `adopted:approved|<time>|<reviewer>` in every
 * adopted task's approvals log. That one record stands for the gates the task is placed past.
 *
 * What counts as an adoption is kept tight:
 * - the pull request touches only tasks that first appear in it (none had a `.state` at the base);
 * - an adopted task is one of those, at exactly the state its artifacts show (`placeByArtifacts`), and
 *   every path from the initial state to that state crosses a gate.
 * Anything else that appears past a gate is judged as a move from the initial state, as before.
 */
import type { Workflow } from "./workflow.js";
import type { PhasesTask } from "./reader.js";

/** The name an adoption record gives in place of a phase: `adopted:approved|<time>|<login>`. */
export const ADOPTED_PHASE = "adopted";

export interface Placement {
  readonly state: string;
  /** The artifact that decided it, or `no artifact`. */
  readonly from: string;
}

/** The state a task works on a phase in: the first state of that phase that is not awaiting. */
function workingState(workflow: Workflow, phase: string): string | undefined {
  return workflow.stateNames.find((name) => {
    const state = workflow.state(name);
    return state?.phase === phase && !state.awaiting;
  });
}

/**
 * The state a task folder's artifacts show: the working state of the latest phase (in workflow
 * order) whose artifact the folder holds, among those states where every artifact it holds is
 * allowed; the initial state when it holds none. It never claims a phase's own approval: a folder
 * with `DESIGN.md` is placed at `design`, not `design:approved`.
 */
export function placeByArtifacts(workflow: Workflow, files: ReadonlyMap<string, unknown>): Placement {
  const present = [...workflow.artifacts.keys()].filter((name) => files.has(name));
  const candidates: { state: string; from: string; rank: number }[] = [];
  for (const artifact of present) {
    const state = workingState(workflow, workflow.artifacts.get(artifact)!);
    if (state !== undefined) candidates.push({ state, from: artifact, rank: workflow.stateNames.indexOf(state) });
  }
  if (candidates.length === 0) return { state: workflow.def.initial, from: "no artifact" };
  candidates.sort((a, b) => b.rank - a.rank);
  const fits = candidates.find((candidate) => {
    const allowed = workflow.allowedArtifacts(candidate.state, false);
    return present.every((name) => allowed.has(name));
  });
  const best = fits ?? candidates[0]!;
  return { state: best.state, from: best.from };
}

/** The gates every path from the initial state to `state` crosses (the fewest any path crosses). */
export function gatesBefore(workflow: Workflow, state: string): string[] {
  const path = workflow.findPath(workflow.def.initial, state, (edge) => (edge.gate ? 1 : 0)) ?? [];
  return path.filter((edge) => edge.gate).map((edge) => workflow.gatePhase(edge));
}

/**
 * Is the task adopted by this pull request? `adoptionPr`: every task the pull request touches first
 * appears in it. The task must be new here, at the state its artifacts show, past at least one gate.
 */
export function isAdopted(workflow: Workflow, before: PhasesTask, after: PhasesTask, adoptionPr: boolean): boolean {
  if (!adoptionPr || before.hasStateFile || after.state === undefined) return false;
  if (after.state !== placeByArtifacts(workflow, after.files).state) return false;
  return gatesBefore(workflow, after.state).length > 0;
}
