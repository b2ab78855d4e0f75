/**
 * taskgate's public API: the pure core (`evaluate`, `audit`, `writeRecords`), the config, the use
 * cases over a repository port, and the shapes they exchange. Adapters (git, GitHub) implement
 * `TaskRepository`; everything here is free of I/O except through that port.
 */
export { audit, buildReport, createModel, evaluate, neutralReport, writeRecords } from "./evaluate.js";
export {
  CONFIG_PATH,
  ConfigSchema,
  defaultConfig,
  parseConfig,
  readLimits,
  type Config,
  type ConfigIssue,
  type ConfigResult,
} from "./config.js";
export {
  ConfigError,
  MAX_REVISIONS,
  auditRevision,
  buildPrContext,
  checkPullRequest,
  explainTask,
  loadConfig,
  renderStatus,
  wantedRevisions,
  type CheckRequest,
  type PrInput,
  type PrInputCommit,
} from "./service.js";
export { RefNotFoundError, RepositoryError, type ReadLimits, type SnapshotScope, type TaskRepository } from "./port.js";
export { isBotCommit, isBotLogin, reviewKey } from "./approval.js";
export { coAuthorsOf, noreplyLogin, parseIdentity, type GitIdentity } from "./trailers.js";
export { VIOLATIONS, VIOLATION_CODES, violation, type ViolationCode } from "./violations.js";
export { redactSecrets, scanSecrets, type SecretFinding } from "./secrets.js";
export type { Explanation, NextStep, WorkflowModel } from "./model.js";
export type * from "./types.js";
export {
  BINARY_CONTENT,
  BINARY_SNIFF_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  MODE_FILE,
  MODE_SUBMODULE,
  MODE_SYMLINK,
  bytesLookBinary,
  classifyFile,
  textLooksBinary,
  type FileFacts,
} from "./kernel/files.js";
export type { RenderResult } from "./service.js";
export { LOCAL_FILES } from "./paths.js";
