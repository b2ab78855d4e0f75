/**
 * The use cases the commands run (check, audit, explain, render) and the configuration error they
 * throw: what `main.ts` and the hook import with `import()` once a command needs the core. The
 * core's barrel is tree-shaken to these and what they import (scripts/bundle-cli.mjs), so the
 * presets still load only when a config names them.
 */
export {
  ConfigError,
  auditRevision,
  checkPullRequest,
  configReport,
  explainTask,
  redactDeep,
  renderStatus,
} from "../core/index.js";
