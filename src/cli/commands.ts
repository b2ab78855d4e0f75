/**
 * Which command belongs to which preset: `main.ts` routes with these before it loads the authoring
 * commands, and `authoring.ts` refuses a command of the other preset with them.
 */

export const PHASES_COMMANDS: ReadonlySet<string> = new Set(["new", "move", "can-edit", "scope", "upgrade"]);
export const BOARD_COMMANDS: ReadonlySet<string> = new Set([
  "next",
  "list",
  "claim",
  "packet",
  "submit",
  "escalate",
  "reassign",
  "release-external",
]);
export const AUTHORING_COMMANDS: ReadonlySet<string> = new Set([...PHASES_COMMANDS, ...BOARD_COMMANDS, "unlock"]);
