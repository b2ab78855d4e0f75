/**
 * The bundled entry of the GitHub Action (action/dist/index.js). It reads the runner's inputs and
 * sends GitHub the mode's first question before it loads the rest of the Action (Octokit and
 * taskgate's rules, the bundle's larger part), which then loads while the answer travels.
 */
import { askEarly, type EarlyAnswer } from "./early.js";
import { readInputs, type Inputs } from "./inputs.js";
import { runner } from "./runner.js";

const core = runner(process.env);
let start: { inputs: Inputs; early: EarlyAnswer | undefined } | undefined;
try {
  const inputs = readInputs(process.env, core);
  const early = askEarly(inputs, process.env);
  await early?.sent;
  start = { inputs, early };
} catch {
  // main() reads the inputs again and reports the problem as the step's failure.
}
const { main } = await import("./main.js");
await main(process.env, core, start);
