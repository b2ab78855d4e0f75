/**
 * The bundled entry of the GitHub Action (action/dist/index.js). It reads the runner's inputs and
 * sends GitHub the mode's first question before it loads the rest of the Action (Octokit and
 * taskgate's rules, the bundle's larger part), which then loads while the answer travels.
 *
 * Two ways in, one Action:
 * - the runner executes the file (`node dist/index.js`): it runs at once, with the Action's own
 *   runner (src/action/runner.ts), nothing else loaded first;
 * - a host imports it and calls `run()`, the convention of actions/typescript-action that GitHub's
 *   tools rely on (`local-action` imports the entrypoint, calls its `run()` and reports the outputs set
 *   through its stand-in for `@actions/core`): importing runs nothing, and `run()` talks through the
 *   host's `@actions/core` when it can import one (left out of the bundle), else through the runner.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { askEarly, type EarlyAnswer } from "./early.js";
import { readInputs, type Inputs } from "./inputs.js";
import { runner, toolkitRunner, type Runner } from "./runner.js";

/** Runs the Action once, as GitHub's tools call it; the step's result is `process.exitCode`. */
export async function run(): Promise<void> {
  await act(process.env, (await toolkit()) ?? runner(process.env));
}

async function act(env: NodeJS.ProcessEnv, core: Runner): Promise<void> {
  let start: { inputs: Inputs; early: EarlyAnswer | undefined } | undefined;
  try {
    const inputs = readInputs(env, core);
    const early = askEarly(inputs, env);
    await early?.sent;
    start = { inputs, early };
  } catch {
    // main() reads the inputs again and reports the problem as the step's failure.
  }
  const { main } = await import("./main.js");
  await main(env, core, start);
}

/** The host's `@actions/core`, when there is one to import (never on a runner: nothing is installed). */
async function toolkit(): Promise<Runner | undefined> {
  try {
    return toolkitRunner(await import("@actions/core"));
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND") return undefined;
    throw error;
  }
}

/** Whether Node.js was asked to run this file, rather than a host importing it. */
function executed(): boolean {
  // Node.js 24.2+ says so itself; older ones: the main script is this very file.
  const main = (import.meta as { main?: unknown }).main;
  if (typeof main === "boolean") return main;
  try {
    return realpathSync(process.argv[1] ?? "") === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (executed()) await act(process.env, runner(process.env));
