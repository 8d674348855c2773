/**
 * The nightly pipeline, in order. The local runner (`driftwatch scan`) executes exactly these
 * stages, and the deployed state machine is built from the same list (a test holds them equal).
 */
export const PIPELINE_STAGES = [
  'LoadRegistry',
  'CheckBackend',
  // The first look at the locks; ConfirmLocks takes the second after the confirmation window,
  // which the scans in between overlap.
  'ObserveLocks',
  'ScanTerraform',
  'ScanCluster',
  'ConfirmLocks',
  'RecordFindings',
  // The night's HTML reports, before the digests that link to them.
  'WriteReports',
  'NotifyOwners',
] as const;
export type PipelineStage = (typeof PIPELINE_STAGES)[number];
