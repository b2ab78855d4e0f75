/** `taskgate explain` for a phases task: state, phase, artifacts, approvals, what is next and who approves it. */
import { describeApprovers, gatePolicy } from "../kernel/approval.js";
import type { Config } from "../kernel/config.js";
import type { Explanation, NextStep } from "../kernel/model.js";
import type { Violation } from "../kernel/types.js";
import type { PhasesTask } from "./reader.js";
import type { Workflow } from "./workflow.js";

export function explainTask(config: Config, workflow: Workflow, task: PhasesTask, problems: Violation[]): Explanation {
  const state = task.state;
  const facts: [string, string][] = [];
  const phase = state ? workflow.state(state)?.phase : undefined;
  facts.push(["state", state ?? "(unreadable)"]);
  if (phase) facts.push(["phase", phase]);
  const artifacts = [...task.files.keys()].filter((name) => workflow.artifacts.has(name)).sort();
  facts.push(["artifacts", artifacts.length > 0 ? artifacts.join(", ") : "(none)"]);
  if (task.approvals.length > 0) {
    facts.push(["approvals", task.approvals.map((line) => `${line.phase} by ${line.login} at ${line.at}`).join("; ")]);
  }
  const next: NextStep[] = [];
  const approvers = new Set<string>();
  for (const edge of state ? workflow.edgesFrom(state) : []) {
    const needs: string[] = [];
    if (phase && !workflow.state(edge.to)?.awaiting && workflow.state(edge.to)?.phase !== phase) {
      const file = workflow.def.phases[phase];
      if (file && !task.files.has(file)) needs.push(`${file}`);
    }
    const leaving = phase ? workflow.def.phases[phase] : null;
    if (leaving && workflow.state(edge.to)?.awaiting && !task.files.has(leaving)) needs.push(leaving);
    if (edge.verdict)
      needs.push(
        edge.verdict === "pass"
          ? `${workflow.def.verdict.file} saying PASS`
          : `${workflow.def.verdict.file} saying FAIL or NEEDS_REVIEW`,
      );
    if (edge.gate) {
      const policy = gatePolicy(config, workflow.gatePhase(edge));
      const who = describeApprovers(policy);
      who.forEach((entry) => approvers.add(entry));
      needs.push(
        workflow.isBotGate(edge)
          ? `${policy.count} approving review(s) from ${who.join(" or ")} (taskgate writes this state)`
          : `${policy.count} approving review(s) from ${who.join(" or ")}`,
      );
    }
    next.push({ to: edge.to, needs: [...new Set(needs)] });
  }
  return { task: task.id, state, facts, next, approvers: [...approvers], problems };
}
